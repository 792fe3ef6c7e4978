package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/questions"
)

var _ questions.Store = (*Questions)(nil)

// Questions keeps the questions `bot serve` took from chat in the embedded
// file until they are answered (package questions), so that a restart,
// even a kill -9, loses none. Every transaction takes SQLite's write lock
// when it begins (_txlock=immediate), so a claim reads and takes its
// question with no other writer in between: processes sharing the file
// claim each question once.
type Questions struct {
	db *DB
}

// NewQuestions returns the question store in db.
func NewQuestions(db *DB) *Questions { return &Questions{db: db} }

// Enqueue implements questions.Store.
func (q *Questions) Enqueue(ctx context.Context, job questions.Job, keys []string, maxWaiting int) (int, error) {
	var ahead int
	now := q.db.now().UnixMicro()
	err := q.db.withTx(ctx, func(tx *sql.Tx) error {
		var stored int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM questions WHERE id = ?`, job.ID).Scan(&stored); err != nil {
			return err
		}
		if stored > 0 {
			return nil // a retry of an Enqueue that failed after its commit
		}
		for _, key := range keys {
			res, err := tx.ExecContext(ctx, `INSERT INTO question_keys (key, received) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, key, now)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return errors.Join(questions.ErrDuplicate, err)
			}
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM questions WHERE state IN ('posting', 'queued')`).Scan(&ahead); err != nil {
			return err
		}
		if maxWaiting > 0 && ahead >= maxWaiting {
			return questions.ErrFull // rolled back: the keys are not kept, a retry may find room
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO questions (id, thread, platform, question, address, asked, created, updated)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, job.ID, job.Thread, job.Platform, blob(job.Question), blob(job.Address), micros(job.Asked), now, now)
		return err
	})
	if errors.Is(err, questions.ErrFull) || errors.Is(err, questions.ErrDuplicate) {
		return 0, err
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: enqueue question %s: %w", job.ID, err)
	}
	return ahead, nil
}

// Placed implements questions.Store.
func (q *Questions) Placed(ctx context.Context, id string, address []byte, placed bool) error {
	_, err := q.db.db.ExecContext(ctx, `UPDATE questions SET address = ?, placed = ?, updated = ?,
		state = CASE WHEN state = 'posting' THEN 'queued' ELSE state END
		WHERE id = ?`, blob(address), placed, q.db.now().UnixMicro(), id)
	if err != nil {
		return fmt.Errorf("sqlite: question %s placed: %w", id, err)
	}
	return nil
}

// pickSQL finds the question to claim, as postgres.Questions does: the
// first unfinished question of its thread by when it was asked (else
// stored), waiting, posted for longer than a lease (its process died
// posting it), or running with its lease run out; in a thread where no
// other question runs under a live lease; oldest first. Parameters: the
// platforms as a JSON array, now, and now less a lease.
const pickSQL = `WITH open AS (
	SELECT id, thread, platform, state, created, lease_until, coalesce(asked, created) AS at, seq,
		row_number() OVER (PARTITION BY thread ORDER BY coalesce(asked, created), seq) AS n
	FROM questions WHERE state IN ('posting', 'queued', 'running')
)
SELECT q.id FROM open q
WHERE q.n = 1 AND q.platform IN (SELECT value FROM json_each(?1))
	AND (q.state = 'queued' OR (q.state = 'posting' AND q.created < ?3) OR (q.state = 'running' AND q.lease_until < ?2))
	AND NOT EXISTS (SELECT 1 FROM open r WHERE r.thread = q.thread AND r.id <> q.id AND r.state = 'running' AND r.lease_until >= ?2)
ORDER BY q.at, q.seq
LIMIT 1`

// Claim implements questions.Store.
func (q *Questions) Claim(ctx context.Context, owner string, platforms []string, lease time.Duration) (questions.Job, bool, error) {
	names, err := json.Marshal(platforms)
	if err != nil {
		return questions.Job{}, false, fmt.Errorf("sqlite: claim a question: %w", err)
	}
	var (
		j       questions.Job
		claimed bool
	)
	now := q.db.now()
	// Looked for first outside a transaction, which would take the write
	// lock: idle workers look often and mostly find nothing.
	var id string
	err = q.db.db.QueryRowContext(ctx, pickSQL, string(names), now.UnixMicro(), now.Add(-lease).UnixMicro()).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return questions.Job{}, false, nil
	}
	if err != nil {
		return questions.Job{}, false, fmt.Errorf("sqlite: claim a question: %w", err)
	}
	err = q.db.withTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, pickSQL, string(names), now.UnixMicro(), now.Add(-lease).UnixMicro()).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		var asked int64
		err = tx.QueryRowContext(ctx, `UPDATE questions SET state = 'running', owner = ?, lease_until = ?, attempts = attempts + 1, updated = ?
			WHERE id = ?
			RETURNING id, thread, platform, question, address, placed, attempts, coalesce(asked, created)`,
			owner, now.Add(lease).UnixMicro(), now.UnixMicro(), id).
			Scan(&j.ID, &j.Thread, &j.Platform, &j.Question, &j.Address, &j.Placed, &j.Attempts, &asked)
		j.Asked = time.UnixMicro(asked).UTC()
		claimed = err == nil
		return err
	})
	if err != nil {
		return questions.Job{}, false, fmt.Errorf("sqlite: claim a question: %w", err)
	}
	return j, claimed, nil
}

// Extend implements questions.Store.
func (q *Questions) Extend(ctx context.Context, id, owner string, lease time.Duration) (bool, error) {
	now := q.db.now()
	res, err := q.db.db.ExecContext(ctx, `UPDATE questions SET lease_until = ?, updated = ?
		WHERE id = ? AND owner = ? AND state = 'running'`, now.Add(lease).UnixMicro(), now.UnixMicro(), id, owner)
	if err != nil {
		return false, fmt.Errorf("sqlite: extend question %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: extend question %s: %w", id, err)
	}
	return n == 1, nil
}

// Finish implements questions.Store.
func (q *Questions) Finish(ctx context.Context, id, owner string) error {
	_, err := q.db.db.ExecContext(ctx, `UPDATE questions SET state = 'done', updated = ? WHERE id = ? AND owner = ?`,
		q.db.now().UnixMicro(), id, owner)
	if err != nil {
		return fmt.Errorf("sqlite: finish question %s: %w", id, err)
	}
	return nil
}

// Release implements questions.Store: the claim given back is not counted
// in attempts, which count the claims that ended with their process gone.
func (q *Questions) Release(ctx context.Context, id, owner string) error {
	_, err := q.db.db.ExecContext(ctx, `UPDATE questions SET state = 'queued', owner = '', lease_until = NULL, updated = ?,
		attempts = max(attempts - 1, 0)
		WHERE id = ? AND owner = ? AND state = 'running'`, q.db.now().UnixMicro(), id, owner)
	if err != nil {
		return fmt.Errorf("sqlite: release question %s: %w", id, err)
	}
	return nil
}

// Waiting implements questions.Store.
func (q *Questions) Waiting(ctx context.Context) (int, error) {
	var n int
	if err := q.db.db.QueryRowContext(ctx, `SELECT count(*) FROM questions WHERE state IN ('posting', 'queued')`).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: count the questions waiting: %w", err)
	}
	return n, nil
}

// Prune forgets the questions answered before olderThan, and the
// deliveries taken before it, and returns how many questions it forgot.
func (q *Questions) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	var n int64
	err := q.db.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM questions WHERE state = 'done' AND updated < ?`, olderThan.UnixMicro())
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM question_keys WHERE received < ?`, olderThan.UnixMicro())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune questions: %w", err)
	}
	return int(n), nil
}

// micros is t as Unix microseconds, NULL for the zero time.
func micros(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// blob is b for a NOT NULL column: empty, not NULL, for none.
func blob(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
