package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/questions"
)

var _ questions.Store = (*Questions)(nil)

// Questions keeps the questions every replica took from chat until they
// are answered (package questions). A job is one row; claims take a row
// lock and skip rows another replica is locking, so that replicas never
// wait on each other nor take the same question.
type Questions struct {
	db *DB
}

// NewQuestions returns the question store in db.
func NewQuestions(db *DB) *Questions { return &Questions{db: db} }

// Enqueue implements questions.Store. The keys go to processed_events,
// which the Events de-duplication of chat deliveries also writes, in the
// transaction that stores the job. The count and the insert are one
// statement; two replicas enqueueing at once may both pass a limit that
// one more question would reach, which a limit on waiting questions can
// afford.
func (q *Questions) Enqueue(ctx context.Context, job questions.Job, keys []string, maxWaiting int) (int, error) {
	var ahead int
	now := q.stamp()
	err := q.db.withTx(ctx, func(tx pgx.Tx) error {
		var stored bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM questions WHERE id = $1)`, job.ID).Scan(&stored); err != nil {
			return err
		}
		if stored {
			return nil // a retry of an Enqueue that failed after its commit
		}
		for _, key := range keys {
			tag, err := tx.Exec(ctx, `INSERT INTO processed_events (platform, event_id, received_at)
				VALUES ('chat', $1, coalesce($2::timestamptz, now())) ON CONFLICT (platform, event_id) DO NOTHING`, key, now)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return questions.ErrDuplicate
			}
		}
		err := tx.QueryRow(ctx, `WITH waiting AS (
			SELECT count(*) AS n FROM questions WHERE state IN ('posting', 'queued')
		), added AS (
			INSERT INTO questions (id, thread, platform, question, address, asked, created, updated)
			SELECT $1, $2, $3, $4, $5, $8, coalesce($6::timestamptz, now()), coalesce($6::timestamptz, now())
			FROM waiting WHERE $7 <= 0 OR n < $7
			RETURNING id
		)
		SELECT n FROM waiting, added`,
			job.ID, job.Thread, job.Platform, jsonParam(job.Question), jsonParam(job.Address), now, maxWaiting, timeParam(job.Asked)).Scan(&ahead)
		if errors.Is(err, pgx.ErrNoRows) {
			return questions.ErrFull // and the keys are not kept: a retry may find room
		}
		return err
	})
	if errors.Is(err, questions.ErrFull) || errors.Is(err, questions.ErrDuplicate) {
		return 0, err
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: enqueue question %s: %w", job.ID, err)
	}
	return ahead, nil
}

// Placed implements questions.Store.
func (q *Questions) Placed(ctx context.Context, id string, address []byte, placed bool) error {
	_, err := q.db.pool.Exec(ctx, `UPDATE questions SET address = $2, placed = $3, updated = coalesce($4::timestamptz, now()),
		state = CASE WHEN state = 'posting' THEN 'queued' ELSE state END
		WHERE id = $1`, id, jsonParam(address), placed, q.stamp())
	if err != nil {
		return fmt.Errorf("postgres: question %s placed: %w", id, err)
	}
	return nil
}

// A thread's questions are taken in the order they were asked on the
// platform (asked, else when stored; seq breaks ties), one at a time: a
// question is claimable when it is the first unfinished one of its thread
// and no other question of the thread runs under a live lease. A question
// stored late (a platform's retry of a delivery a frozen replica held)
// goes before the thread's later questions still waiting; one stored
// after a later one was answered is taken all the same, and answered with
// the history as of its own time (agent.Question.Asked).
//
// The head of a thread can change under a claim (an earlier question
// stored meanwhile, another replica claiming), which a row lock on the
// head alone does not see. So a claim picks a candidate, then takes a
// transaction lock on its thread (claimThreadLock, and a hash of the schema
// and the thread: advisory locks are the database's, and two installs in
// two schemas of one database must not hold up each other's threads) and
// checks again with a snapshot taken after the lock: claims of one thread
// are serialised, and each sees the claims committed before it. A thread
// whose lock another claim holds is passed over for now.
const (
	claimThreadLock = 0x53575154 // "SWQT": the first key of a thread's claim lock
	claimPicks      = 3          // candidates tried by one Claim before it reports none
)

// pickSQL finds a candidate, oldest asked first. A question whose
// placeholder is not posted within a lease ($3) is taken as its replica's
// loss: the replica that claims it looks for the placeholder by its
// marker before posting. The state is tested on the locked row itself,
// so that a row another replica claimed meanwhile is re-read and passed
// over.
const pickSQL = `WITH clock AS (
	SELECT coalesce($2::timestamptz, now()) AS now
), head AS (
	SELECT DISTINCT ON (thread) id FROM questions
	WHERE state IN ('posting', 'queued', 'running')
	ORDER BY thread, coalesce(asked, created), seq
)
SELECT q.id, q.thread FROM questions q JOIN head USING (id), clock
WHERE q.platform = ANY ($1) AND NOT (q.thread = ANY ($4::text[])) AND (q.state = 'queued'
	OR (q.state = 'posting' AND q.created < clock.now - $3::interval)
	OR (q.state = 'running' AND q.lease_until < clock.now))
ORDER BY coalesce(q.asked, q.created), q.seq
LIMIT 1
FOR UPDATE OF q SKIP LOCKED`

// headSQL checks a candidate under its thread's lock: still the thread's
// first unfinished question, and no other question of the thread running
// under a live lease.
const headSQL = `WITH clock AS (
	SELECT coalesce($3::timestamptz, now()) AS now
)
SELECT coalesce((SELECT id FROM questions WHERE thread = $1 AND state IN ('posting', 'queued', 'running')
		ORDER BY coalesce(asked, created), seq LIMIT 1) = $2, false)
	AND NOT EXISTS (SELECT 1 FROM questions, clock WHERE thread = $1 AND id <> $2
		AND state = 'running' AND lease_until >= clock.now)`

const claimSQL = `WITH clock AS (
	SELECT coalesce($3::timestamptz, now()) AS now
)
UPDATE questions q SET state = 'running', owner = $2, lease_until = clock.now + $4::interval,
	attempts = q.attempts + 1, updated = clock.now
FROM clock WHERE q.id = $1
RETURNING q.id, q.thread, q.platform, q.question, q.address, q.placed, q.attempts, coalesce(q.asked, q.created)`

// Claim implements questions.Store.
func (q *Questions) Claim(ctx context.Context, owner string, platforms []string, lease time.Duration) (questions.Job, bool, error) {
	busy := []string{} // threads whose claim lock another claim holds (not nil: NULL matches nothing)
	for range claimPicks {
		var (
			j       questions.Job
			claimed bool
		)
		err := q.db.withTx(ctx, func(tx pgx.Tx) error {
			now := q.stamp()
			var id, thread string
			err := tx.QueryRow(ctx, pickSQL, platforms, now, lease, busy).Scan(&id, &thread)
			if errors.Is(err, pgx.ErrNoRows) {
				claimed = false
				return nil
			}
			if err != nil {
				return err
			}
			// Tried, not waited for: a replica frozen inside its claim
			// (SIGSTOP) holds the lock until the server ends its
			// transaction, and must not hold up every other replica's.
			var locked, head bool
			if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1, hashtext(coalesce(current_schema(), '') || ':' || $2))`, claimThreadLock, thread).Scan(&locked); err != nil {
				return err
			}
			if !locked {
				busy = append(busy, thread)
				return errPickAgain
			}
			if err := tx.QueryRow(ctx, headSQL, thread, id, now).Scan(&head); err != nil {
				return err
			}
			if !head {
				return errPickAgain
			}
			claimed = true
			return tx.QueryRow(ctx, claimSQL, id, owner, now, lease).
				Scan(&j.ID, &j.Thread, &j.Platform, &j.Question, &j.Address, &j.Placed, &j.Attempts, &j.Asked)
		})
		switch {
		case errors.Is(err, errPickAgain):
			continue // the thread changed under the pick: look again
		case err != nil:
			return questions.Job{}, false, fmt.Errorf("postgres: claim a question: %w", err)
		case !claimed:
			return questions.Job{}, false, nil
		}
		return j, true, nil
	}
	return questions.Job{}, false, nil
}

// errPickAgain rolls back a claim whose candidate was no longer its
// thread's to take.
var errPickAgain = errors.New("postgres: the candidate is no longer its thread's head")

// Extend implements questions.Store.
func (q *Questions) Extend(ctx context.Context, id, owner string, lease time.Duration) (bool, error) {
	tag, err := q.db.pool.Exec(ctx, `UPDATE questions SET lease_until = coalesce($3::timestamptz, now()) + $4::interval,
		updated = coalesce($3::timestamptz, now())
		WHERE id = $1 AND owner = $2 AND state = 'running'`, id, owner, q.stamp(), lease)
	if err != nil {
		return false, fmt.Errorf("postgres: extend question %s: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Finish implements questions.Store.
func (q *Questions) Finish(ctx context.Context, id, owner string) error {
	_, err := q.db.pool.Exec(ctx, `UPDATE questions SET state = 'done', updated = coalesce($3::timestamptz, now())
		WHERE id = $1 AND owner = $2`, id, owner, q.stamp())
	if err != nil {
		return fmt.Errorf("postgres: finish question %s: %w", id, err)
	}
	return nil
}

// Release implements questions.Store.
func (q *Questions) Release(ctx context.Context, id, owner string) error {
	// A question given back does not count as an attempt: those count
	// the claims that ended with their replica gone.
	_, err := q.db.pool.Exec(ctx, `UPDATE questions SET state = 'queued', owner = '', lease_until = NULL, updated = coalesce($3::timestamptz, now()),
		attempts = greatest(attempts - 1, 0)
		WHERE id = $1 AND owner = $2 AND state = 'running'`, id, owner, q.stamp())
	if err != nil {
		return fmt.Errorf("postgres: release question %s: %w", id, err)
	}
	return nil
}

// Waiting implements questions.Store.
func (q *Questions) Waiting(ctx context.Context) (int, error) {
	var n int
	if err := q.db.pool.QueryRow(ctx, `SELECT count(*) FROM questions WHERE state IN ('posting', 'queued')`).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count the questions waiting: %w", err)
	}
	return n, nil
}

// Prune forgets the questions finished before olderThan and returns how
// many it forgot.
func (q *Questions) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	tag, err := q.db.pool.Exec(ctx, `DELETE FROM questions WHERE state IN ('done', 'failed') AND updated < $1`, olderThan)
	if err != nil {
		return 0, fmt.Errorf("postgres: prune questions: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// stamp is the time the statements take as now: NULL, for the database's
// own clock, so that leases written by one replica and read by another
// are on one clock whatever the replicas' clocks say; DB.Now's in tests.
func (q *Questions) stamp() any {
	if q.db.Now == nil {
		return nil
	}
	return q.db.Now()
}

// timeParam is t as a timestamptz parameter: NULL for the zero time.
func timeParam(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// jsonParam is b as a jsonb parameter: NULL for none, which the columns refuse,
// is written as an empty object.
func jsonParam(b []byte) string {
	if len(b) == 0 {
		return "{}"
	}
	return string(b)
}
