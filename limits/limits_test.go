package limits

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// clock is a hand-advanced clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock(s string) *clock       { t, _ := time.Parse(time.RFC3339, s); return &clock{t} }

func TestAskerBucket(t *testing.T) {
	c := newClock("2025-03-01T10:00:00Z")
	a := NewAskers(3, 0, c.now)
	for i := 0; i < 3; i++ {
		if ok, _, _ := a.Allow("u1", "c1"); !ok {
			t.Fatalf("question %d refused within the burst", i+1)
		}
	}
	ok, limit, wait := a.Allow("u1", "c1")
	if ok || limit != LimitUser || wait != 20*time.Second {
		t.Fatalf("4th question: ok=%v limit=%q wait=%v, want refused by user for 20s", ok, limit, wait)
	}
	if ok, _, _ := a.Allow("u2", "c1"); !ok {
		t.Error("another asker was refused")
	}
	c.add(15 * time.Second)
	if ok, _, wait := a.Allow("u1", "c1"); ok || wait != 5*time.Second {
		t.Errorf("after 15s: ok=%v wait=%v, want refused for 5s more", ok, wait)
	}
	c.add(5 * time.Second)
	if ok, _, _ := a.Allow("u1", "c1"); !ok {
		t.Error("refused after the refill")
	}
}

func TestChannelLimitCostsTheAskerNothing(t *testing.T) {
	c := newClock("2025-03-01T10:00:00Z")
	a := NewAskers(2, 1, c.now)
	if ok, _, _ := a.Allow("u1", "c1"); !ok {
		t.Fatal("first question refused")
	}
	ok, limit, wait := a.Allow("u2", "c1")
	if ok || limit != LimitChannel || wait != time.Minute {
		t.Fatalf("ok=%v limit=%q wait=%v, want refused by channel for 1m", ok, limit, wait)
	}
	// u2's refused question took nothing from u2's own bucket.
	for i := 0; i < 2; i++ {
		if ok, _, _ := a.Allow("u2", fmt.Sprint("other", i)); !ok {
			t.Fatalf("u2 question %d in another channel refused", i+1)
		}
	}
}

func TestAskersOff(t *testing.T) {
	a := NewAskers(0, 0, nil)
	for i := 0; i < 100; i++ {
		if ok, _, _ := a.Allow("u", "c"); !ok {
			t.Fatal("refused with no limits")
		}
	}
	if a.Len() != 0 {
		t.Errorf("%d buckets kept with no limits", a.Len())
	}
}

func TestSweepForgetsFullBuckets(t *testing.T) {
	c := newClock("2025-03-01T10:00:00Z")
	a := NewAskers(5, 0, c.now)
	for i := 0; i < sweepEvery-1; i++ {
		a.Allow(fmt.Sprint("u", i), "c")
	}
	c.add(time.Minute)
	a.Allow("last", "c") // the sweep runs before this one is added
	if n := a.Len(); n != 1 {
		t.Errorf("%d buckets after the sweep, want 1", n)
	}
}

func TestBudget(t *testing.T) {
	c := newClock("2025-03-01T18:30:00Z")
	b := NewBudget(1000, 0, c.now)
	h, err := b.Reserve("slack:T1", "slack:T1:U1", 600)
	if err != nil {
		t.Fatalf("the first call was refused: %v", err)
	}
	b.Settle(h, 400) // it used less than it held
	if used, _ := b.Used("slack:T1", ""); used != 400 {
		t.Fatalf("used %d after a call that used 400", used)
	}
	if _, err := b.Reserve("slack:T1", "slack:T1:U2", 601); err == nil {
		t.Fatal("a call that would pass the budget was let through")
	}
	h, err = b.Reserve("slack:T1", "slack:T1:U2", 600)
	if err != nil {
		t.Fatalf("a call that fits exactly was refused: %v", err)
	}
	_, err = b.Reserve("slack:T1", "slack:T1:U3", 1)
	var spent *SpentError
	if !errors.As(err, &spent) || spent.Budget != BudgetWorkspace || spent.RenewsIn != 5*time.Hour+30*time.Minute {
		t.Fatalf("with the budget held: %v; want the workspace's spent until midnight UTC (5h30m)", err)
	}
	if _, err := b.Reserve("slack:T2", "slack:T2:U1", 1000); err != nil {
		t.Errorf("another workspace was refused: %v", err)
	}
	c.add(spent.RenewsIn)
	b.Settle(h, 600) // yesterday's call counts against yesterday only
	if used, _ := b.Used("slack:T1", ""); used != 0 {
		t.Errorf("not renewed at midnight: used %d", used)
	}
}

func TestBudgetShare(t *testing.T) {
	c := newClock("2025-03-01T23:00:00Z")
	b := NewBudget(1000, 300, c.now)
	h, err := b.Reserve("w", "w:U1", 300)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Reserve("w", "w:U1", 1)
	var spent *SpentError
	if !errors.As(err, &spent) || spent.Budget != BudgetUser || spent.RenewsIn != time.Hour {
		t.Fatalf("U1 past their share: %v; want their share spent for an hour", err)
	}
	if _, err := b.Reserve("w", "w:U2", 300); err != nil {
		t.Fatalf("another person was refused: %v", err)
	}
	b.Settle(h, 100)
	if _, err := b.Reserve("w", "w:U1", 200); err != nil {
		t.Errorf("U1 was refused what their settled call left: %v", err)
	}
	if ws, u1 := b.Used("w", "w:U1"); ws != 600 || u1 != 300 {
		t.Errorf("used %d in the workspace and %d by U1, want 600 and 300", ws, u1)
	}
}

// Calls made at once never hold more than the budget together, whatever
// their order: each is held before it is made.
func TestBudgetHoldsOfCallsAtOnce(t *testing.T) {
	b := NewBudget(1000, 0, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	held := 0
	for i := range 50 {
		wg.Go(func() {
			if h, err := b.Reserve("w", fmt.Sprint("w:U", i), 70); err == nil {
				mu.Lock()
				held += h.Tokens
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if used, _ := b.Used("w", ""); held > 1000 || used != held || held < 1000-70 {
		t.Errorf("held %d (counted %d) of a 1000 budget in calls of 70: want all that fit, and no more", held, used)
	}
}

// A call that used more than it held (a server that ignores max_tokens)
// passes the budget by that much, and no call is held after it.
func TestBudgetPassedOnlyByWhatACallUsedBeyondItsHold(t *testing.T) {
	b := NewBudget(1000, 0, nil)
	h, _ := b.Reserve("w", "w:U1", 900)
	b.Settle(h, 1200)
	if used, _ := b.Used("w", ""); used != 1200 {
		t.Errorf("counted %d, want the 1200 the call used", used)
	}
	if _, err := b.Reserve("w", "w:U2", 1); err == nil {
		t.Error("a call was held with the budget passed")
	}
}

func TestBudgetOff(t *testing.T) {
	b := NewBudget(0, 0, nil)
	for range 3 {
		if _, err := b.Reserve("w", "w:u", 1<<30); err != nil {
			t.Fatalf("a budget off refused a call: %v", err)
		}
	}
}
