package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/switchboard/switchboard/questions/questionstest"
)

func openQuestions(t *testing.T) (*Questions, *questionstest.Clock) {
	t.Helper()
	db := openTest(t)
	c := questionstest.NewClock()
	db.Now = c.Now
	return NewQuestions(db), c
}

// A replica frozen inside a claim (it holds its thread's claim lock in an
// open transaction) holds up no other replica: their claims pass that
// thread over and take the others'.
func TestQuestionsClaimNotHeldUpByAFrozenClaim(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q, _ := openQuestions(t)
	questionstest.Enqueue(t, q, "a1", "A", time.Time{})
	questionstest.Enqueue(t, q, "b1", "B", time.Time{})
	tx, err := q.db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(coalesce(current_schema(), '') || ':A'))`, claimThreadLock); err != nil {
		t.Fatal(err)
	}
	// A deadline far beyond what a claim takes: a guard against a
	// claim that waits for the frozen one, not a timing.
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var got []string
	for range 3 {
		j, ok, err := q.Claim(cctx, "r2", []string{"slack"}, 30*time.Second)
		if err != nil {
			t.Fatalf("claim while thread A's lock is held: %v", err)
		}
		if ok {
			got = append(got, j.ID)
		}
	}
	if fmt.Sprint(got) != "[b1]" {
		t.Errorf("claimed %v while thread A's claim lock is held; want only b1", got)
	}
}

// Finished questions are pruned with their age; the others are kept.
func TestQuestionsPrune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q, c := openQuestions(t)
	questionstest.Enqueue(t, q, "a1", "A", time.Time{})
	questionstest.Enqueue(t, q, "b1", "B", time.Time{})
	questionstest.Claim(t, q, "r1")
	if err := q.Finish(ctx, "a1", "r1"); err != nil {
		t.Fatal(err)
	}
	c.Add(time.Hour)
	if n, err := q.Prune(ctx, c.Now().Add(-time.Minute)); err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want the finished question", n, err)
	}
	if n, err := q.Waiting(ctx); err != nil || n != 1 {
		t.Fatalf("Waiting = %d, %v; want b1 kept", n, err)
	}
}
