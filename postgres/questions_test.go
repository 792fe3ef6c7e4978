package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/questions"
)

// clock is a settable db.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openQuestions(t *testing.T) (*Questions, *clock) {
	t.Helper()
	db := openTest(t)
	c := &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	db.Now = c.now
	return NewQuestions(db), c
}

func enqueue(t *testing.T, q *Questions, id, thread string) {
	t.Helper()
	enqueueAsked(t, q, id, thread, time.Time{})
}

func enqueueAsked(t *testing.T, q *Questions, id, thread string, asked time.Time) {
	t.Helper()
	job := questions.Job{ID: id, Thread: thread, Platform: "slack", Question: []byte(`{"text":"` + id + `"}`), Address: []byte(`{}`), Asked: asked}
	if _, err := q.Enqueue(context.Background(), job, []string{"slack:event:" + id}, 0); err != nil {
		t.Fatal(err)
	}
	if err := q.Placed(context.Background(), id, []byte(`{"ts":"`+id+`"}`), true); err != nil {
		t.Fatal(err)
	}
}

func claim(t *testing.T, q *Questions, owner string) (questions.Job, bool) {
	t.Helper()
	j, ok, err := q.Claim(context.Background(), owner, []string{"slack"}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return j, ok
}

// A thread's questions are claimed one at a time, in order; other
// threads' meanwhile; a finished question lets the next one go.
func TestQuestionsOneThreadAtATimeInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q, _ := openQuestions(t)
	enqueue(t, q, "a1", "A")
	enqueue(t, q, "a2", "A")
	enqueue(t, q, "b1", "B")

	first, _ := claim(t, q, "r1")
	second, _ := claim(t, q, "r2")
	if first.ID != "a1" || second.ID != "b1" || string(first.Address) != `{"ts": "a1"}` || !first.Placed || first.Attempts != 1 {
		t.Fatalf("claims %+v, %+v: want a1 (placed, its address) then b1, not a2 while a1 runs", first, second)
	}
	if j, ok := claim(t, q, "r3"); ok {
		t.Fatalf("claimed %s while both threads run", j.ID)
	}
	if err := q.Finish(ctx, "a1", "r1"); err != nil {
		t.Fatal(err)
	}
	if j, _ := claim(t, q, "r3"); j.ID != "a2" {
		t.Fatalf("after a1, claimed %q, want a2", j.ID)
	}
}

// A thread's questions are claimed in the order they were asked on the
// platform, not the order they were stored in: a delivery a frozen replica
// held, stored by another replica after the thread's next question, still
// goes first while that question waits; one stored while a later question
// runs waits for it (one at a time); one stored after a later question
// was answered is claimed all the same (answered with the history as of
// its own time, by the agent), not skipped.
func TestQuestionsClaimedInTheOrderAsked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q, _ := openQuestions(t)
	at := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	ask := func(n int) time.Time { return at.Add(time.Duration(n) * time.Second) }

	// Stored late while the next one waits: claimed first.
	enqueueAsked(t, q, "a1", "A", ask(1))
	enqueueAsked(t, q, "a0", "A", ask(0))
	j, ok := claim(t, q, "r1")
	if !ok || j.ID != "a0" || !j.Asked.Equal(ask(0)) {
		t.Fatalf("claimed %+v, %v; want a0, asked before a1 though stored after it, with its time", j, ok)
	}
	// Stored late while a later one runs: it waits for it, and nothing
	// else of the thread is claimed meanwhile.
	if err := q.Finish(ctx, "a0", "r1"); err != nil {
		t.Fatal(err)
	}
	if j, _ := claim(t, q, "r1"); j.ID != "a1" {
		t.Fatalf("claimed %q, want a1", j.ID)
	}
	enqueueAsked(t, q, "a05", "A", ask(0).Add(500*time.Millisecond))
	if j, ok := claim(t, q, "r2"); ok {
		t.Fatalf("claimed %s while a1 of its thread runs", j.ID)
	}
	if err := q.Finish(ctx, "a1", "r1"); err != nil {
		t.Fatal(err)
	}
	// Stored after a later one was answered: claimed, not skipped.
	if j, ok := claim(t, q, "r2"); !ok || j.ID != "a05" {
		t.Fatalf("claimed %+v, %v; want a05, asked before the answered a1", j, ok)
	}
	// Questions without a time keep their place by when they were stored.
	enqueue(t, q, "b0", "B")
	enqueue(t, q, "b1", "B")
	if j, _ := claim(t, q, "r3"); j.ID != "b0" {
		t.Fatalf("claimed %q, want b0", j.ID)
	}
}

// A replica frozen inside a claim (it holds its thread's claim lock in an
// open transaction) holds up no other replica: their claims pass that
// thread over and take the others'.
func TestQuestionsClaimNotHeldUpByAFrozenClaim(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q, _ := openQuestions(t)
	enqueue(t, q, "a1", "A")
	enqueue(t, q, "b1", "B")
	tx, err := q.db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext('A'))`, claimThreadLock); err != nil {
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

// A question whose placeholder is still being posted waits; after a
// lease, a replica that died posting it leaves it to the others.
func TestQuestionsWaitForThePlaceholder(t *testing.T) {
	t.Parallel()
	q, c := openQuestions(t)
	if _, err := q.Enqueue(context.Background(), questions.Job{ID: "p1", Thread: "A", Platform: "slack", Question: []byte(`{}`)}, nil, 0); err != nil {
		t.Fatal(err)
	}
	if j, ok := claim(t, q, "r1"); ok {
		t.Fatalf("claimed %s before its placeholder was posted", j.ID)
	}
	c.add(31 * time.Second) // claim's lease is 30s
	if j, ok := claim(t, q, "r1"); !ok || j.ID != "p1" || j.Placed {
		t.Fatalf("claim after the grace = %+v, %v; want p1, not placed", j, ok)
	}
}

// A lease that runs out gives the question to another replica; the old
// owner can no longer extend, finish or release it.
func TestQuestionsLeaseRunsOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q, c := openQuestions(t)
	enqueue(t, q, "a1", "A")
	claim(t, q, "dead")
	if kept, err := q.Extend(ctx, "a1", "dead", 30*time.Second); err != nil || !kept {
		t.Fatalf("Extend by the owner = %v, %v", kept, err)
	}
	c.add(20 * time.Second)
	if j, ok := claim(t, q, "r2"); ok {
		t.Fatalf("claimed %s within its renewed lease", j.ID)
	}
	c.add(11 * time.Second)
	j, ok := claim(t, q, "r2")
	if !ok || j.ID != "a1" || j.Attempts != 2 {
		t.Fatalf("claim after the lease = %+v, %v; want a1, attempt 2", j, ok)
	}
	if kept, _ := q.Extend(ctx, "a1", "dead", time.Minute); kept {
		t.Error("the old owner extended a question it lost")
	}
	if err := q.Finish(ctx, "a1", "dead"); err != nil {
		t.Fatal(err)
	}
	if err := q.Release(ctx, "a1", "dead"); err != nil {
		t.Fatal(err)
	}
	if kept, _ := q.Extend(ctx, "a1", "r2", time.Minute); !kept {
		t.Error("the old owner's Finish or Release took the question from its new owner")
	}
	// Released by its owner, it is claimed again at once.
	if err := q.Release(ctx, "a1", "r2"); err != nil {
		t.Fatal(err)
	}
	if j, ok := claim(t, q, "r3"); !ok || j.ID != "a1" || j.Attempts != 2 {
		t.Fatalf("claim after release = %+v, %v; want a1, attempt 2 (the claim given back does not count)", j, ok)
	}
}

// Replicas claiming at once take each question once, and never two of
// one thread together.
func TestQuestionsClaimedOnceAcrossReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q, _ := openQuestions(t)
	const threads, perThread = 6, 5
	for i := range perThread {
		for th := range threads {
			enqueue(t, q, fmt.Sprintf("t%d-%d", th, i), fmt.Sprintf("T%d", th))
		}
	}
	var (
		mu      sync.Mutex
		running = map[string]bool{} // threads with a claimed question
		done    = map[string][]string{}
		wg      sync.WaitGroup
	)
	for r := range 4 {
		owner := fmt.Sprintf("r%d", r)
		wg.Go(func() {
			for range threads * perThread * 4 { // bounded: more than enough claims
				j, ok, err := q.Claim(ctx, owner, []string{"slack"}, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					mu.Lock()
					n := 0
					for _, ids := range done {
						n += len(ids)
					}
					mu.Unlock()
					if n == threads*perThread {
						return
					}
					continue
				}
				mu.Lock()
				if running[j.Thread] {
					t.Errorf("%s claimed while its thread %s runs", j.ID, j.Thread)
				}
				running[j.Thread] = true
				done[j.Thread] = append(done[j.Thread], j.ID)
				mu.Unlock()
				// Cleared before Finish: once finished, the next question
				// of the thread may be claimed at once.
				mu.Lock()
				running[j.Thread] = false
				mu.Unlock()
				if err := q.Finish(ctx, j.ID, owner); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for th := range threads {
		key := fmt.Sprintf("T%d", th)
		var want []string
		for i := range perThread {
			want = append(want, fmt.Sprintf("t%d-%d", th, i))
		}
		if fmt.Sprint(done[key]) != fmt.Sprint(want) {
			t.Errorf("thread %s answered %v, want %v", key, done[key], want)
		}
	}
}

// Enqueue refuses past the waiting limit and says how many wait ahead.
func TestQuestionsEnqueueLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q, c := openQuestions(t)
	for i := range 3 {
		ahead, err := q.Enqueue(ctx, questions.Job{ID: fmt.Sprint(i), Thread: "A", Platform: "slack", Question: []byte(`{}`)}, []string{fmt.Sprint("k", i)}, 3)
		if err != nil || ahead != i {
			t.Fatalf("Enqueue %d = %d, %v; want %d ahead", i, ahead, err, i)
		}
	}
	if n, err := q.Waiting(ctx); err != nil || n != 3 {
		t.Fatalf("Waiting = %d, %v; want 3", n, err)
	}
	if _, err := q.Enqueue(ctx, questions.Job{ID: "x", Thread: "B", Platform: "slack", Question: []byte(`{}`)}, []string{"kx"}, 3); !errors.Is(err, questions.ErrFull) {
		t.Fatalf("Enqueue past the limit: %v, want ErrFull", err)
	}
	// A delivery seen before is a duplicate, whichever of its keys was;
	// one refused as full was not seen.
	if _, err := q.Enqueue(ctx, questions.Job{ID: "y", Thread: "B", Platform: "slack", Question: []byte(`{}`)}, []string{"kx2", "k1"}, 0); !errors.Is(err, questions.ErrDuplicate) {
		t.Fatalf("Enqueue of a delivery seen before: %v, want ErrDuplicate", err)
	}
	if _, err := q.Enqueue(ctx, questions.Job{ID: "x", Thread: "B", Platform: "slack", Question: []byte(`{}`)}, []string{"kx", "kx2"}, 0); err != nil {
		t.Fatalf("Enqueue of the delivery refused as full, and a key of the duplicate: %v", err)
	}
	// The same job again (a retry of a call that stored it and failed
	// after) is stored, not a duplicate, and stored once.
	if _, err := q.Enqueue(ctx, questions.Job{ID: "x", Thread: "B", Platform: "slack", Question: []byte(`{}`)}, []string{"kx", "kx2"}, 0); err != nil {
		t.Fatalf("Enqueue of a job stored already: %v, want it taken as stored", err)
	}
	if n, err := q.Waiting(ctx); err != nil || n != 4 {
		t.Fatalf("Waiting = %d, %v; want 4, the job stored again counted once", n, err)
	}
	// Finished questions are pruned with their age.
	if err := q.Placed(ctx, "0", nil, true); err != nil {
		t.Fatal(err)
	}
	claim(t, q, "r1")
	if err := q.Finish(ctx, "0", "r1"); err != nil {
		t.Fatal(err)
	}
	c.add(time.Hour)
	if n, err := q.Prune(ctx, c.now().Add(-time.Minute)); err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want the finished question", n, err)
	}
}
