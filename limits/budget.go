package limits

import (
	"sync"
	"time"
)

// Budget caps the model tokens each workspace may use per day. Days are
// UTC calendar days, so every replica and every asker sees the budget
// renew at the same moment, midnight UTC. It is safe for concurrent use.
//
// Tokens are counted after an answer, so answers that started before the
// budget ran out may overshoot it by their own usage.
type Budget struct {
	perDay int
	now    func() time.Time

	mu   sync.Mutex
	day  time.Time      // midnight UTC that began the counted day
	used map[string]int // tokens by workspace on day
}

// NewBudget returns a budget of tokensPerDay per workspace (0: no cap).
// now is the clock; nil means time.Now.
func NewBudget(tokensPerDay int, now func() time.Time) *Budget {
	if now == nil {
		now = time.Now
	}
	return &Budget{perDay: max(tokensPerDay, 0), now: now, used: map[string]int{}}
}

// Exhausted reports whether workspace has used its tokens for today, and
// if so how long until the budget renews.
func (b *Budget) Exhausted(workspace string) (renewsIn time.Duration, exhausted bool) {
	if b.perDay == 0 {
		return 0, false
	}
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll(now)
	if b.used[workspace] < b.perDay {
		return 0, false
	}
	return b.day.AddDate(0, 0, 1).Sub(now), true
}

// Spend counts tokens used by workspace.
func (b *Budget) Spend(workspace string, tokens int) {
	if b.perDay == 0 || tokens <= 0 {
		return
	}
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll(now)
	b.used[workspace] += tokens
}

// Used reports the tokens workspace has used today.
func (b *Budget) Used(workspace string) int {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll(now)
	return b.used[workspace]
}

// roll starts a new day's count when now is past the counted day.
func (b *Budget) roll(now time.Time) {
	day := now.UTC().Truncate(24 * time.Hour)
	if !day.Equal(b.day) {
		b.day = day
		clear(b.used)
	}
}
