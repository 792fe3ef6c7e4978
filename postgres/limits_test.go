package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/limits"
	"github.com/switchboard/switchboard/questions/questionstest"
)

// Two replicas' limits count against the same buckets and the same day's
// tokens.
func TestLimitsAreShared(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	c := questionstest.ClockAt(time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC))
	db.Now = c.Now
	a, b := NewLimits(db, 2, 3, 100, 0), NewLimits(db, 2, 3, 100, 0)

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
	c.Add(30 * time.Second)
	if ok, _, _ := b.Allow("T1:U1", "T1:C2"); !ok {
		t.Fatal("refused after the bucket refilled")
	}

	h, err := a.Reserve("T1", "T1:U1", 60)
	if err != nil {
		t.Fatalf("the first call was refused: %v", err)
	}
	if _, err := b.Reserve("T1", "T1:U2", 41); err == nil {
		t.Fatal("a call that would pass the budget, with 60 of 100 held on another replica, was let through")
	}
	a.Settle(h, 50) // it used less than it held
	if h, err = b.Reserve("T1", "T1:U2", 50); err != nil {
		t.Fatalf("a call that fits what the first one left was refused: %v", err)
	}
	b.Settle(h, 50)
	_, err = a.Reserve("T1", "T1:U3", 1)
	var spent *limits.SpentError
	if !errors.As(err, &spent) || spent.Budget != limits.BudgetWorkspace || spent.RenewsIn != 59*time.Minute+30*time.Second { // it is 23:00:30
		t.Fatalf("after 100 tokens on two replicas: %v; want the workspace's budget spent until midnight UTC", err)
	}
	if _, err := a.Reserve("T2", "T2:U1", 100); err != nil {
		t.Fatalf("another workspace was refused: %v", err)
	}
	c.Add(time.Hour)
	if _, err := a.Reserve("T1", "T1:U1", 100); err != nil {
		t.Fatalf("the budget did not renew at midnight UTC: %v", err)
	}
	if n, err := a.Prune(context.Background(), c.Now()); err != nil || n == 0 {
		t.Fatalf("Prune = %d, %v; want yesterday's count and the full buckets forgotten", n, err)
	}
}

// Calls held at once on two replicas never hold more than a person's share
// or the workspace's budget together, and every call that fits is held:
// the rows are read and written under their locks.
func TestTokenBudgetHoldsAcrossReplicas(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	replicas := []*Limits{NewLimits(db, 0, 0, 1000, 300), NewLimits(db, 0, 0, 1000, 300)}
	var mu sync.Mutex
	held := map[string]int{}
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Go(func() {
			user := fmt.Sprint("T1:U", i%5) // five people, twelve calls each
			h, err := replicas[i%2].Reserve("T1", user, 70)
			var spent *limits.SpentError
			switch {
			case errors.As(err, &spent):
				return
			case err != nil:
				t.Error(err)
				return
			}
			mu.Lock()
			held[user] += h.Tokens
			held[""] += h.Tokens
			mu.Unlock()
		})
	}
	wg.Wait()
	for user, n := range held {
		switch {
		case user == "" && (n > 1000 || n < 1000-70):
			t.Errorf("the workspace holds %d tokens in calls of 70; want all that fit in 1000, and no more", n)
		case user != "" && n > 300:
			t.Errorf("%s holds %d tokens; their share is 300", user, n)
		}
	}
	// The count is what the calls hold, until they are settled.
	used, err := countedTokens(db, "w:T1")
	if err != nil || used != held[""] {
		t.Fatalf("the workspace's count is %d (%v), want the %d held", used, err, held[""])
	}
}

// countedTokens is today's count of a token_budget key.
func countedTokens(db *DB, key string) (int, error) {
	var n int
	err := db.pool.QueryRow(context.Background(), `SELECT coalesce(sum(used), 0) FROM token_budget WHERE key = $1`, key).Scan(&n)
	return n, err
}
