package postgres

import (
	"testing"
	"time"

	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/internal/storetest"
)

func TestFeedback(t *testing.T) {
	t.Parallel()
	storetest.TestFeedback(t, func(t *testing.T, now func() time.Time) feedback.Store {
		db := openTest(t)
		db.Now = now
		return NewFeedback(db)
	})
}
