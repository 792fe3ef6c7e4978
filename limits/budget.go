package limits

import (
	"fmt"
	"sync"
	"time"
)

// Budget caps the model tokens each workspace, and each person in it, may
// use per day. Days are UTC calendar days, so every replica and every
// asker sees the budgets renew at the same moment, midnight UTC. It is
// safe for concurrent use.
//
// Tokens are held before each model call (Reserve), for the most the call
// may use, and the hold is replaced by what the call used once it is over
// (Settle). A call that would pass a budget is refused before it is made,
// so calls made at once never pass it together: the count passes a budget
// only by what calls used beyond their holds.
type Budget struct {
	perDay, perUser int
	now             func() time.Time

	mu    sync.Mutex
	day   time.Time      // midnight UTC that began the counted day
	used  map[string]int // tokens used or held on day, by workspace
	users map[string]int // the same by person
}

// Which budget Reserve found spent.
const (
	BudgetWorkspace = "workspace"
	BudgetUser      = "user"
)

// Hold is the tokens Reserve held for one model call, until Settle
// replaces them by the tokens the call used.
type Hold struct {
	Workspace, User string
	Day             time.Time // the UTC day they count against
	Tokens          int
}

// SpentError is Reserve's refusal: the call would pass the budget named by
// Budget (BudgetWorkspace or BudgetUser), which renews in RenewsIn.
type SpentError struct {
	Budget   string
	RenewsIn time.Duration
}

func (e *SpentError) Error() string {
	return fmt.Sprintf("limits: today's %s token budget is spent; it renews in %s", e.Budget, e.RenewsIn.Round(time.Second))
}

// NewBudget returns a budget of tokensPerDay per workspace and
// tokensPerUser per person (0: that cap off). now is the clock; nil means
// time.Now.
func NewBudget(tokensPerDay, tokensPerUser int, now func() time.Time) *Budget {
	if now == nil {
		now = time.Now
	}
	return &Budget{perDay: max(tokensPerDay, 0), perUser: max(tokensPerUser, 0), now: now,
		used: map[string]int{}, users: map[string]int{}}
}

// Reserve holds tokens of today's budgets of workspace and of user, keys
// that the caller makes unique (a person's across workspaces too), when
// both have room for them. When either has not, it holds nothing and
// returns a *SpentError naming it (the workspace's first).
func (b *Budget) Reserve(workspace, user string, tokens int) (Hold, error) {
	if b.perDay == 0 && b.perUser == 0 {
		return Hold{}, nil
	}
	tokens = max(tokens, 1) // a call always costs something
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll(now)
	h := Hold{Workspace: workspace, User: user, Day: b.day}
	switch renews := b.day.AddDate(0, 0, 1).Sub(now); {
	case !fits(b.used[workspace], tokens, b.perDay):
		return h, &SpentError{Budget: BudgetWorkspace, RenewsIn: renews}
	case !fits(b.users[user], tokens, b.perUser):
		return h, &SpentError{Budget: BudgetUser, RenewsIn: renews}
	}
	h.Tokens = tokens
	b.add(h, tokens)
	return h, nil
}

// fits reports whether tokens more fit a cap of which used are spent or
// held; a limit of 0 is off.
func fits(used, tokens, limit int) bool { return limit == 0 || used+tokens <= limit }

// Settle replaces the tokens h held by the tokens its call used (0 if it
// failed before the server worked). A hold of a day already over counts
// no more.
func (b *Budget) Settle(h Hold, used int) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll(now)
	if h.Day.Equal(b.day) {
		b.add(h, max(used, 0)-h.Tokens)
	}
}

// add counts n more tokens (fewer, when negative) against the budgets of
// h that are on.
func (b *Budget) add(h Hold, n int) {
	if b.perDay > 0 {
		b.used[h.Workspace] = max(b.used[h.Workspace]+n, 0)
	}
	if b.perUser > 0 {
		b.users[h.User] = max(b.users[h.User]+n, 0)
	}
}

// Used reports the tokens workspace, and user, have used or hold today.
func (b *Budget) Used(workspace, user string) (inWorkspace, byUser int) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll(now)
	return b.used[workspace], b.users[user]
}

// roll starts a new day's count when now is past the counted day.
func (b *Budget) roll(now time.Time) {
	day := now.UTC().Truncate(24 * time.Hour)
	if !day.Equal(b.day) {
		b.day = day
		clear(b.used)
		clear(b.users)
	}
}
