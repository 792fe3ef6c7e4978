// Package sqlitetest gives tests of other packages a SQLite store of
// their own. It is apart from internal/testenv, which package sqlite's
// dependencies (ingest) use in their tests: importing sqlite there would
// make a cycle.
package sqlitetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/sqlite"
)

// Feedback is a SQLite feedback store in a file of the test's,
// closed when it ends: the answers kept as the bot keeps them, for tests
// of what reads them back (shares, Ask an expert). It needs no service.
func Feedback(t testing.TB) *sqlite.Feedback {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "answers.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return sqlite.NewFeedback(db)
}
