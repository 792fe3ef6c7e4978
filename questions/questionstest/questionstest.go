// Package questionstest is the contract every questions.Store is held to:
// the one in memory, SQLite's and PostgreSQL's run the same tests (Run),
// so that the dispatcher's one engine behaves the same on each.
package questionstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/questions"
)

// NewStore returns an empty store of the test's own on the clock now,
// which the contract moves to run leases out without waiting.
type NewStore func(t *testing.T, now func() time.Time) questions.Store

// Clock is a settable clock.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock at a fixed time.
func NewClock() *Clock { return ClockAt(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)) }

// ClockAt returns a Clock at t.
func ClockAt(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// lease is the lease of the contract's claims.
const lease = 30 * time.Second

// Run runs the contract on stores newStore makes.
func Run(t *testing.T, newStore NewStore) {
	for _, tc := range []struct {
		name string
		test func(*testing.T, questions.Store, *Clock)
	}{
		{"OneThreadAtATimeInOrder", oneThreadAtATimeInOrder},
		{"ClaimedInTheOrderAsked", claimedInTheOrderAsked},
		{"WaitForThePlaceholder", waitForThePlaceholder},
		{"LeaseRunsOut", leaseRunsOut},
		{"GiveBack", giveBack},
		{"ClaimedOnceAcrossReplicas", claimedOnceAcrossReplicas},
		{"EnqueueLimitAndDuplicates", enqueueLimitAndDuplicates},
		{"OnlyPlatformsAsked", onlyPlatformsAsked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := NewClock()
			tc.test(t, newStore(t, c.Now), c)
		})
	}
}

// Enqueue stores a placed job of id in thread, asked at asked (zero:
// unknown).
func Enqueue(t *testing.T, q questions.Store, id, thread string, asked time.Time) {
	t.Helper()
	job := questions.Job{ID: id, Thread: thread, Platform: "slack", Question: []byte(`{"text":"` + id + `"}`), Address: []byte(`{}`), Asked: asked}
	if _, err := q.Enqueue(context.Background(), job, []string{"slack:event:" + id}, 0); err != nil {
		t.Fatal(err)
	}
	if err := q.Placed(context.Background(), id, []byte(`{"ts":"`+id+`"}`), true); err != nil {
		t.Fatal(err)
	}
}

// Claim claims a slack job for owner.
func Claim(t *testing.T, q questions.Store, owner string) (questions.Job, bool) {
	t.Helper()
	j, ok, err := q.Claim(context.Background(), owner, []string{"slack"}, lease)
	if err != nil {
		t.Fatal(err)
	}
	return j, ok
}

func finish(t *testing.T, q questions.Store, id, owner string) {
	t.Helper()
	if err := q.Finish(context.Background(), id, owner); err != nil {
		t.Fatal(err)
	}
}

// sameJSON reports whether a and b are the same JSON value, whatever
// their spacing (PostgreSQL's jsonb rewrites it).
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// A thread's questions are claimed one at a time, in order; other
// threads' meanwhile; a finished question lets the next one go.
func oneThreadAtATimeInOrder(t *testing.T, q questions.Store, _ *Clock) {
	Enqueue(t, q, "a1", "A", time.Time{})
	Enqueue(t, q, "a2", "A", time.Time{})
	Enqueue(t, q, "b1", "B", time.Time{})

	first, _ := Claim(t, q, "r1")
	second, _ := Claim(t, q, "r2")
	if first.ID != "a1" || second.ID != "b1" || !sameJSON(first.Address, []byte(`{"ts":"a1"}`)) ||
		!sameJSON(first.Question, []byte(`{"text":"a1"}`)) || !first.Placed || first.Attempts != 1 ||
		first.Thread != "A" || first.Platform != "slack" {
		t.Fatalf("claims %+v, %+v: want a1 (placed, its address) then b1, not a2 while a1 runs", first, second)
	}
	if j, ok := Claim(t, q, "r3"); ok {
		t.Fatalf("claimed %s while both threads run", j.ID)
	}
	finish(t, q, "a1", "r1")
	if j, _ := Claim(t, q, "r3"); j.ID != "a2" {
		t.Fatalf("after a1, claimed %q, want a2", j.ID)
	}
}

// A thread's questions are claimed in the order they were asked on the
// platform, not the order they were stored in: a delivery a frozen replica
// held, stored by another replica after the thread's next question, still
// goes first while that question waits; one stored while a later question
// runs waits for it (one at a time); one stored after a later question
// was answered is claimed all the same, not skipped.
func claimedInTheOrderAsked(t *testing.T, q questions.Store, _ *Clock) {
	at := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	ask := func(n int) time.Time { return at.Add(time.Duration(n) * time.Second) }

	Enqueue(t, q, "a1", "A", ask(1))
	Enqueue(t, q, "a0", "A", ask(0))
	j, ok := Claim(t, q, "r1")
	if !ok || j.ID != "a0" || !j.Asked.Equal(ask(0)) {
		t.Fatalf("claimed %+v, %v; want a0, asked before a1 though stored after it, with its time", j, ok)
	}
	finish(t, q, "a0", "r1")
	if j, _ := Claim(t, q, "r1"); j.ID != "a1" {
		t.Fatalf("claimed %q, want a1", j.ID)
	}
	Enqueue(t, q, "a05", "A", ask(0).Add(500*time.Millisecond))
	if j, ok := Claim(t, q, "r2"); ok {
		t.Fatalf("claimed %s while a1 of its thread runs", j.ID)
	}
	finish(t, q, "a1", "r1")
	if j, ok := Claim(t, q, "r2"); !ok || j.ID != "a05" {
		t.Fatalf("claimed %+v, %v; want a05, asked before the answered a1", j, ok)
	}
	// Questions without a time keep their place by when they were
	// stored, and say when that was.
	Enqueue(t, q, "b0", "B", time.Time{})
	Enqueue(t, q, "b1", "B", time.Time{})
	if j, _ := Claim(t, q, "r3"); j.ID != "b0" || j.Asked.IsZero() {
		t.Fatalf("claimed %+v, want b0 with the time it was stored", j)
	}
}

// A question whose placeholder is still being posted waits; after a
// lease, a replica that died posting it leaves it to the others.
func waitForThePlaceholder(t *testing.T, q questions.Store, c *Clock) {
	if _, err := q.Enqueue(context.Background(), questions.Job{ID: "p1", Thread: "A", Platform: "slack", Question: []byte(`{}`)}, nil, 0); err != nil {
		t.Fatal(err)
	}
	if j, ok := Claim(t, q, "r1"); ok {
		t.Fatalf("claimed %s before its placeholder was posted", j.ID)
	}
	c.Add(lease + time.Second)
	if j, ok := Claim(t, q, "r1"); !ok || j.ID != "p1" || j.Placed {
		t.Fatalf("claim after the grace = %+v, %v; want p1, not placed", j, ok)
	}
}

// A lease that runs out gives the question to another replica (take-over);
// the old owner can no longer extend, finish or release it.
func leaseRunsOut(t *testing.T, q questions.Store, c *Clock) {
	ctx := context.Background()
	Enqueue(t, q, "a1", "A", time.Time{})
	Claim(t, q, "dead")
	if kept, err := q.Extend(ctx, "a1", "dead", lease); err != nil || !kept {
		t.Fatalf("Extend by the owner = %v, %v", kept, err)
	}
	c.Add(20 * time.Second)
	if j, ok := Claim(t, q, "r2"); ok {
		t.Fatalf("claimed %s within its renewed lease", j.ID)
	}
	c.Add(11 * time.Second)
	j, ok := Claim(t, q, "r2")
	if !ok || j.ID != "a1" || j.Attempts != 2 {
		t.Fatalf("claim after the lease = %+v, %v; want a1, attempt 2", j, ok)
	}
	if kept, _ := q.Extend(ctx, "a1", "dead", time.Minute); kept {
		t.Error("the old owner extended a question it lost")
	}
	finish(t, q, "a1", "dead")
	if err := q.Release(ctx, "a1", "dead"); err != nil {
		t.Fatal(err)
	}
	if kept, _ := q.Extend(ctx, "a1", "r2", time.Minute); !kept {
		t.Error("the old owner's Finish or Release took the question from its new owner")
	}
	finish(t, q, "a1", "r2")
	if j, ok := Claim(t, q, "r3"); ok {
		t.Fatalf("claimed %s, finished", j.ID)
	}
}

// A question given back is claimed again at once, its claim not counted;
// the thread's next question waits for it.
func giveBack(t *testing.T, q questions.Store, _ *Clock) {
	ctx := context.Background()
	Enqueue(t, q, "a1", "A", time.Time{})
	Enqueue(t, q, "a2", "A", time.Time{})
	Claim(t, q, "r1")
	if err := q.Release(ctx, "a1", "r1"); err != nil {
		t.Fatal(err)
	}
	if n, err := q.Waiting(ctx); err != nil || n != 2 {
		t.Fatalf("Waiting = %d, %v after the give back; want 2", n, err)
	}
	if kept, _ := q.Extend(ctx, "a1", "r1", lease); kept {
		t.Error("the owner still holds a question it gave back")
	}
	if j, ok := Claim(t, q, "r2"); !ok || j.ID != "a1" || j.Attempts != 1 {
		t.Fatalf("claim after release = %+v, %v; want a1, attempt 1 (the claim given back does not count)", j, ok)
	}
}

// Replicas claiming at once take each question once, and never two of
// one thread together.
func claimedOnceAcrossReplicas(t *testing.T, q questions.Store, _ *Clock) {
	ctx := context.Background()
	const threads, perThread = 6, 5
	for i := range perThread {
		for th := range threads {
			Enqueue(t, q, fmt.Sprintf("t%d-%d", th, i), fmt.Sprintf("T%d", th), time.Time{})
		}
	}
	var (
		mu      sync.Mutex
		running = map[string]bool{} // threads with a claimed question
		done    = map[string][]string{}
		n       int
		wg      sync.WaitGroup
	)
	for r := range 4 {
		owner := fmt.Sprintf("r%d", r)
		wg.Go(func() {
			for range threads * perThread * 40 { // bounded: far more than enough claims
				j, ok, err := q.Claim(ctx, owner, []string{"slack"}, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if !ok {
					all := n == threads*perThread
					mu.Unlock()
					if all {
						return
					}
					continue
				}
				if running[j.Thread] {
					t.Errorf("%s claimed while its thread %s runs", j.ID, j.Thread)
				}
				running[j.Thread] = true
				done[j.Thread] = append(done[j.Thread], j.ID)
				n++
				// Cleared before Finish: once finished, the next question
				// of the thread may be claimed at once.
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

// Enqueue refuses past the waiting limit and says how many wait ahead; a
// delivery seen before is a duplicate, by any of its keys; a job stored
// already is taken as stored.
func enqueueLimitAndDuplicates(t *testing.T, q questions.Store, _ *Clock) {
	ctx := context.Background()
	job := func(id, thread string) questions.Job {
		return questions.Job{ID: id, Thread: thread, Platform: "slack", Question: []byte(`{}`)}
	}
	for i := range 3 {
		ahead, err := q.Enqueue(ctx, job(fmt.Sprint(i), "A"), []string{fmt.Sprint("k", i)}, 3)
		if err != nil || ahead != i {
			t.Fatalf("Enqueue %d = %d, %v; want %d ahead", i, ahead, err, i)
		}
	}
	if n, err := q.Waiting(ctx); err != nil || n != 3 {
		t.Fatalf("Waiting = %d, %v; want 3", n, err)
	}
	if _, err := q.Enqueue(ctx, job("x", "B"), []string{"kx"}, 3); !errors.Is(err, questions.ErrFull) {
		t.Fatalf("Enqueue past the limit: %v, want ErrFull", err)
	}
	if _, err := q.Enqueue(ctx, job("y", "B"), []string{"kx2", "k1"}, 0); !errors.Is(err, questions.ErrDuplicate) {
		t.Fatalf("Enqueue of a delivery seen before: %v, want ErrDuplicate", err)
	}
	// One refused as full was not seen, nor the other key of a duplicate.
	if _, err := q.Enqueue(ctx, job("x", "B"), []string{"kx", "kx2"}, 0); err != nil {
		t.Fatalf("Enqueue of the delivery refused as full, and a key of the duplicate: %v", err)
	}
	// The same job again (a retry of a call that stored it and failed
	// after) is stored, not a duplicate, and stored once.
	if _, err := q.Enqueue(ctx, job("x", "B"), []string{"kx", "kx2"}, 0); err != nil {
		t.Fatalf("Enqueue of a job stored already: %v, want it taken as stored", err)
	}
	if n, err := q.Waiting(ctx); err != nil || n != 4 {
		t.Fatalf("Waiting = %d, %v; want 4, the job stored again counted once", n, err)
	}
	// A finished question's keys still name a duplicate.
	if err := q.Placed(ctx, "0", nil, true); err != nil {
		t.Fatal(err)
	}
	Claim(t, q, "r1")
	finish(t, q, "0", "r1")
	if _, err := q.Enqueue(ctx, job("z", "C"), []string{"k0"}, 0); !errors.Is(err, questions.ErrDuplicate) {
		t.Fatalf("Enqueue of an answered delivery: %v, want ErrDuplicate", err)
	}
	if n, err := q.Waiting(ctx); err != nil || n != 3 {
		t.Fatalf("Waiting = %d, %v; want 3 once one is answered", n, err)
	}
}

// A replica claims only the platforms it can show.
func onlyPlatformsAsked(t *testing.T, q questions.Store, _ *Clock) {
	ctx := context.Background()
	if _, err := q.Enqueue(ctx, questions.Job{ID: "d1", Thread: "D", Platform: "discord", Question: []byte(`{}`)}, nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := q.Placed(ctx, "d1", nil, true); err != nil {
		t.Fatal(err)
	}
	if j, ok := Claim(t, q, "r1"); ok {
		t.Fatalf("a slack replica claimed %+v", j)
	}
	if j, ok, err := q.Claim(ctx, "r2", []string{"slack", "discord"}, lease); err != nil || !ok || j.ID != "d1" {
		t.Fatalf("Claim = %+v, %v, %v; want d1", j, ok, err)
	}
}
