package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/limits"
)

// limitTimeout bounds one check of a limit: a question waits for it.
const limitTimeout = 2 * time.Second

// Limits are the askers' rate limits and the daily token budgets of
// package limits, kept in the database so that every replica counts
// against the same buckets and the same day's tokens (limits.Askers and
// limits.Budget count one process's questions only).
//
// A limit protects the model's cost, not anyone's answer, so when the
// database cannot say, in limitTimeout, the question is let through and
// the failure logged.
type Limits struct {
	db              *DB
	user, channel   limits.Rate
	perDay, perUser int
}

// NewLimits returns limits of userPerMinute questions per asker and
// channelPerMinute per channel, and tokensPerDay model tokens per
// workspace and tokensPerUser per person in a UTC day (0: that limit off).
func NewLimits(db *DB, userPerMinute, channelPerMinute, tokensPerDay, tokensPerUser int) *Limits {
	return &Limits{db: db, user: limits.NewRate(userPerMinute), channel: limits.NewRate(channelPerMinute),
		perDay: max(tokensPerDay, 0), perUser: max(tokensPerUser, 0)}
}

// Allow implements bot.RateLimiter, as limits.Askers.Allow does: both
// buckets are read and taken from in one transaction, which holds their
// rows, in the order of their keys so that two replicas never wait on
// each other in a cycle.
func (l *Limits) Allow(user, channel string) (ok bool, limit string, retryAfter time.Duration) {
	type check struct {
		key, limit string
		r          limits.Rate
	}
	var checks []check
	for _, c := range []check{{"u:" + user, limits.LimitUser, l.user}, {"c:" + channel, limits.LimitChannel, l.channel}} {
		if c.r.On() {
			checks = append(checks, c)
		}
	}
	if len(checks) == 0 {
		return true, "", 0
	}
	slices.SortFunc(checks, func(a, b check) int { return strings.Compare(a.key, b.key) })
	ctx, cancel := context.WithTimeout(context.Background(), limitTimeout)
	defer cancel()
	now := l.db.now()
	ok = true
	err := l.db.withTx(ctx, func(tx pgx.Tx) error {
		full := make([]time.Time, len(checks))
		for i, c := range checks {
			err := tx.QueryRow(ctx, `INSERT INTO rate_buckets (key, full_at) VALUES ($1, to_timestamp(0))
				ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key
				RETURNING full_at`, c.key).Scan(&full[i])
			if err != nil {
				return err
			}
			if wait := c.r.Wait(full[i], now); wait > 0 {
				ok, limit, retryAfter = false, c.limit, wait
				return nil // a refusal takes nothing
			}
		}
		for i, c := range checks {
			if _, err := tx.Exec(ctx, `UPDATE rate_buckets SET full_at = $2 WHERE key = $1`, c.key, c.r.Take(full[i], now)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		l.db.opts.Logger.Warn("rate limits unavailable; question let through", "err", err)
		return true, "", 0
	}
	return ok, limit, retryAfter
}

// Reserve implements bot.TokenBudget, as limits.Budget.Reserve does, for
// every replica at once: in one transaction it takes the rows of the
// person's and the workspace's counts for today (in the order of their
// keys, so that two replicas never wait on each other in a cycle), and
// adds the tokens to both only if both have room. A call held on one
// replica is seen by the others before they hold their own, so calls made
// at once across replicas never hold more than the budget together.
//
// A hold outlives its replica: one that dies with a call in flight leaves
// the call's most tokens counted, as if the call had used them.
func (l *Limits) Reserve(workspace, user string, tokens int) (limits.Hold, error) {
	caps := l.caps(workspace, user)
	if len(caps) == 0 {
		return limits.Hold{}, nil
	}
	tokens = max(tokens, 1)
	ctx, cancel := context.WithTimeout(context.Background(), limitTimeout)
	defer cancel()
	now := l.db.now()
	day := now.UTC().Truncate(24 * time.Hour)
	h := limits.Hold{Workspace: workspace, User: user, Day: day}
	keys := make([]string, len(caps))
	for i, c := range caps {
		keys[i] = c.key
	}
	var spent *limits.SpentError
	err := l.db.withTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `INSERT INTO token_budget (key, day) SELECT unnest($1::text[]), $2
			ON CONFLICT (key, day) DO UPDATE SET key = EXCLUDED.key
			RETURNING key, used`, keys, day)
		if err != nil {
			return err
		}
		used := map[string]int64{}
		var key string
		var n int64
		if _, err := pgx.ForEachRow(rows, []any{&key, &n}, func() error { used[key] = n; return nil }); err != nil {
			return err
		}
		for _, c := range caps {
			if used[c.key]+int64(tokens) > int64(c.limit) {
				spent = &limits.SpentError{Budget: c.budget, RenewsIn: day.AddDate(0, 0, 1).Sub(now)}
				return nil // a refusal holds nothing
			}
		}
		_, err = tx.Exec(ctx, `UPDATE token_budget SET used = used + $3 WHERE key = ANY($1) AND day = $2`, keys, day, tokens)
		return err
	})
	switch {
	case err != nil:
		l.db.opts.Logger.Warn("token budget unavailable; model call let through", "err", err)
		return h, nil // Settle still counts what it uses
	case spent != nil:
		return h, spent
	}
	h.Tokens = tokens
	return h, nil
}

// Settle implements bot.TokenBudget: what h held is replaced by what its
// call used, in the counts of h's day.
func (l *Limits) Settle(h limits.Hold, used int) {
	caps := l.caps(h.Workspace, h.User)
	delta := max(used, 0) - h.Tokens
	if len(caps) == 0 || delta == 0 {
		return
	}
	keys := make([]string, len(caps))
	for i, c := range caps {
		keys[i] = c.key
	}
	ctx, cancel := context.WithTimeout(context.Background(), limitTimeout)
	defer cancel()
	_, err := l.db.pool.Exec(ctx, `INSERT INTO token_budget (key, day, used) SELECT unnest($1::text[]), $2, GREATEST($3::bigint, 0)
		ON CONFLICT (key, day) DO UPDATE SET used = GREATEST(token_budget.used + $3::bigint, 0)`, keys, h.Day, delta)
	if err != nil {
		l.db.opts.Logger.Warn("could not count tokens against the budget", "workspace", h.Workspace, "tokens", delta, "err", err)
	}
}

// budgetCap is one budget a call counts against: its row's key, its
// tokens per day, and its name for a refusal.
type budgetCap struct {
	key, budget string
	limit       int
}

// caps are the budgets that are on for a person in a workspace, in the
// order of their keys.
func (l *Limits) caps(workspace, user string) []budgetCap {
	var caps []budgetCap
	if l.perUser > 0 {
		caps = append(caps, budgetCap{"u:" + user, limits.BudgetUser, l.perUser})
	}
	if l.perDay > 0 {
		caps = append(caps, budgetCap{"w:" + workspace, limits.BudgetWorkspace, l.perDay})
	}
	slices.SortFunc(caps, func(a, b budgetCap) int { return strings.Compare(a.key, b.key) })
	return caps
}

// Prune forgets the token counts of days before olderThan and the rate
// buckets full again by then (a bucket never seen is full), and returns
// how many it forgot.
func (l *Limits) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	var n int64
	err := l.db.withTx(ctx, func(tx pgx.Tx) error {
		a, err := tx.Exec(ctx, `DELETE FROM token_budget WHERE day < $1`, olderThan.UTC().Truncate(24*time.Hour))
		if err != nil {
			return err
		}
		b, err := tx.Exec(ctx, `DELETE FROM rate_buckets WHERE full_at < $1`, olderThan)
		n = a.RowsAffected() + b.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: prune limits: %w", err)
	}
	return int(n), nil
}
