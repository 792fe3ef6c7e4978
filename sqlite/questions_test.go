package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard/switchboard/questions/questionstest"
)

// Questions stored in the file outlive the process that stored them: one
// killed while answering (its file closed without a word, as kill -9
// leaves it) leaves its question to the next process once the lease runs
// out, and an answered one is not claimed again.
func TestQuestionsSurviveARestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	c := questionstest.NewClock()
	open := func() *Questions {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.Now = c.Now
		return NewQuestions(db)
	}
	q := open()
	questionstest.Enqueue(t, q, "a1", "A", time.Time{})
	questionstest.Enqueue(t, q, "b1", "B", time.Time{})
	questionstest.Claim(t, q, "dead")
	if j, _ := questionstest.Claim(t, q, "dead"); j.ID != "b1" {
		t.Fatalf("claimed %q, want b1", j.ID)
	}
	if err := q.Finish(ctx, "b1", "dead"); err != nil {
		t.Fatal(err)
	}
	q.db.db.Close() // killed: nothing given back

	q = open()
	if j, ok := questionstest.Claim(t, q, "next"); ok {
		t.Fatalf("claimed %s within the dead process's lease", j.ID)
	}
	c.Add(time.Minute)
	j, ok := questionstest.Claim(t, q, "next")
	if !ok || j.ID != "a1" || j.Attempts != 2 {
		t.Fatalf("claim after the restart = %+v, %v; want a1, attempt 2", j, ok)
	}
	if err := q.Finish(ctx, "a1", "next"); err != nil {
		t.Fatal(err)
	}
	if j, ok := questionstest.Claim(t, q, "next"); ok {
		t.Fatalf("claimed %s, answered", j.ID)
	}
	// Answered questions and old deliveries are pruned.
	c.Add(time.Hour)
	if n, err := q.Prune(ctx, c.Now().Add(-time.Minute)); err != nil || n != 2 {
		t.Fatalf("Prune = %d, %v; want the two answered questions", n, err)
	}
}
