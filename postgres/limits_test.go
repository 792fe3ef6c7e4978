package postgres

import (
	"context"
	"testing"
	"time"
)

// Two replicas' limits count against the same buckets and the same day's
// tokens.
func TestLimitsAreShared(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	c := &clock{t: time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)}
	db.Now = c.now
	a, b := NewLimits(db, 2, 3, 100), NewLimits(db, 2, 3, 100)

	if ok, _, _ := a.Allow("T1:U1", "T1:C1"); !ok {
		t.Fatal("first question refused")
	}
	if ok, _, _ := b.Allow("T1:U1", "T1:C1"); !ok {
		t.Fatal("second question refused: the bucket holds two")
	}
	ok, limit, wait := a.Allow("T1:U1", "T1:C1")
	if ok || limit != "user" || wait != 30*time.Second {
		t.Fatalf("third question on another replica = %v %q %v; want refused by the user limit for 30s", ok, limit, wait)
	}
	// The refusal took nothing from the channel: another asker gets the
	// channel's third question, and then the channel is full.
	if ok, _, _ := b.Allow("T1:U2", "T1:C1"); !ok {
		t.Fatal("another asker refused")
	}
	if ok, limit, _ := a.Allow("T1:U3", "T1:C1"); ok || limit != "channel" {
		t.Fatalf("fourth question in the channel = %v %q; want refused by the channel limit", ok, limit)
	}
	c.add(30 * time.Second)
	if ok, _, _ := b.Allow("T1:U1", "T1:C2"); !ok {
		t.Fatal("refused after the bucket refilled")
	}

	a.Spend("T1", 60)
	if _, over := b.Exhausted("T1"); over {
		t.Fatal("exhausted after 60 of 100 tokens")
	}
	b.Spend("T1", 40)
	renews, over := a.Exhausted("T1")
	if !over || renews != 59*time.Minute+30*time.Second { // it is 23:00:30
		t.Fatalf("Exhausted after 100 tokens on two replicas = %v, %v; want true, renewing at midnight UTC", over, renews)
	}
	if _, over := a.Exhausted("T2"); over {
		t.Fatal("another workspace exhausted")
	}
	c.add(time.Hour)
	if _, over := a.Exhausted("T1"); over {
		t.Fatal("the budget did not renew at midnight UTC")
	}
	if n, err := a.Prune(context.Background(), c.now()); err != nil || n == 0 {
		t.Fatalf("Prune = %d, %v; want yesterday's count and the full buckets forgotten", n, err)
	}
}
