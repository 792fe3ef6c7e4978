package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/limits"
)

// limitTimeout bounds one check of a limit: a question waits for it.
const limitTimeout = 2 * time.Second

// Limits are the askers' rate limits and the daily token budget of package
// limits, kept in the database so that every replica counts against the
// same buckets and the same day's tokens (limits.Askers and limits.Budget
// count one process's questions only).
//
// A limit protects the model's cost, not anyone's answer, so when the
// database cannot say, in limitTimeout, the question is let through and
// the failure logged.
type Limits struct {
	db            *DB
	user, channel limits.Rate
	perDay        int
}

// NewLimits returns limits of userPerMinute questions per asker and
// channelPerMinute per channel, and tokensPerDay model tokens per
// workspace and UTC day (0: that limit off).
func NewLimits(db *DB, userPerMinute, channelPerMinute, tokensPerDay int) *Limits {
	return &Limits{db: db, user: limits.NewRate(userPerMinute), channel: limits.NewRate(channelPerMinute), perDay: max(tokensPerDay, 0)}
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

// Exhausted implements bot.TokenBudget.
func (l *Limits) Exhausted(workspace string) (renewsIn time.Duration, exhausted bool) {
	if l.perDay == 0 {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), limitTimeout)
	defer cancel()
	now := l.db.now()
	day := now.UTC().Truncate(24 * time.Hour)
	var used int64
	err := l.db.pool.QueryRow(ctx, `SELECT used FROM token_budget WHERE workspace = $1 AND day = $2`, workspace, day).Scan(&used)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, false
	case err != nil:
		l.db.opts.Logger.Warn("token budget unavailable; question answered with the model", "err", err)
		return 0, false
	case used < int64(l.perDay):
		return 0, false
	}
	return day.AddDate(0, 0, 1).Sub(now), true
}

// Spend implements bot.TokenBudget.
func (l *Limits) Spend(workspace string, tokens int) {
	if l.perDay == 0 || tokens <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), limitTimeout)
	defer cancel()
	day := l.db.now().UTC().Truncate(24 * time.Hour)
	_, err := l.db.pool.Exec(ctx, `INSERT INTO token_budget (workspace, day, used) VALUES ($1, $2, $3)
		ON CONFLICT (workspace, day) DO UPDATE SET used = token_budget.used + EXCLUDED.used`, workspace, day, tokens)
	if err != nil {
		l.db.opts.Logger.Warn("could not count tokens against the budget", "workspace", workspace, "tokens", tokens, "err", err)
	}
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
