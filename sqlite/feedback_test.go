package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/internal/storetest"
)

func TestFeedback(t *testing.T) {
	storetest.TestFeedback(t, func(t *testing.T, now func() time.Time) feedback.Store {
		db, err := Open(context.Background(), filepath.Join(t.TempDir(), "fb.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.Now = now
		return NewFeedback(db)
	})
}
