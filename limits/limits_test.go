package limits

import (
	"fmt"
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
	b := NewBudget(1000, c.now)
	if _, over := b.Exhausted("slack:T1"); over {
		t.Fatal("exhausted before any use")
	}
	b.Spend("slack:T1", 600)
	b.Spend("slack:T1", 400)
	renews, over := b.Exhausted("slack:T1")
	if !over || renews != 5*time.Hour+30*time.Minute {
		t.Fatalf("over=%v renews in %v, want exhausted until midnight UTC (5h30m)", over, renews)
	}
	if _, over := b.Exhausted("slack:T2"); over {
		t.Error("another workspace is exhausted too")
	}
	c.add(renews)
	if _, over := b.Exhausted("slack:T1"); over || b.Used("slack:T1") != 0 {
		t.Errorf("not renewed at midnight: used %d", b.Used("slack:T1"))
	}
}

func TestBudgetOff(t *testing.T) {
	b := NewBudget(0, nil)
	b.Spend("w", 1<<30)
	if _, over := b.Exhausted("w"); over {
		t.Error("a zero budget caps")
	}
}
