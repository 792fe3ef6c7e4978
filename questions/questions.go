// Package questions is the contract between the bot, which takes
// questions from chat and answers them, and the store that keeps the
// questions taken until they are answered (postgres.Questions), shared by
// every replica. It holds only types, as package feedback does, so that
// the store need not import the bot nor the bot the store.
//
// A question is a job: stored when it is accepted, claimed by one replica
// at a time for a lease that replica keeps renewing while it answers, and
// finished once its answer is shown. A replica that dies leaves its lease
// to run out, and another replica claims the question again. Questions of
// one thread are claimed one at a time and in the order they came, across
// replicas, so that a follow-up is answered after the question before it:
// the order they were asked in on the platform, which is not always the
// order they were stored in (a platform retries a delivery a replica held
// and lost after the thread's next question was stored).
package questions

import (
	"context"
	"errors"
	"time"
)

// Job is one accepted question.
type Job struct {
	ID       string // the answer's id, unique
	Thread   string // the conversation (bot.Incoming.ThreadKey): one at a time per thread
	Platform string // "slack", "discord": whose adapter shows it
	// Question is the question as the chat delivered it (the bot's
	// encoding), Address where its view is shown (the adapter's).
	Question []byte
	Address  []byte
	// Asked is when the platform says the question was asked (Slack's
	// ts, Discord's snowflake): a thread's questions are claimed in that
	// order, whatever order they were stored in. Zero when unknown: the
	// question then takes its place by when it was stored. Claim returns
	// the time the question took its place by.
	Asked time.Time
	// Placed reports whether the placeholder was posted; false while it
	// is being posted, and if posting it failed.
	Placed   bool
	Attempts int // claims so far, this one included
}

// Errors of Enqueue: as many questions as it allows are waiting, or the
// delivery was taken already.
var (
	ErrFull      = errors.New("questions: too many questions waiting")
	ErrDuplicate = errors.New("questions: delivery taken already")
)

// Store keeps the jobs. Every method is safe for concurrent use by many
// processes; a lost race is never an error.
type Store interface {
	// Enqueue stores job, waiting until Placed says its placeholder is
	// out, unless maxWaiting (> 0) questions wait already (ErrFull) or
	// one of keys, the delivery's names, was enqueued before
	// (ErrDuplicate): the keys are remembered with the job, at once, so
	// that no retry of a delivery is lost nor answered twice. It returns
	// how many questions wait before it, for the placeholder. A job whose
	// ID is stored already is taken as stored (nil, 0 ahead): a call
	// that failed may have stored it before its error.
	Enqueue(ctx context.Context, job Job, keys []string, maxWaiting int) (ahead int, err error)
	// Placed records that the placeholder of the job id was posted, or
	// could not be (placed false), and where its view is now shown; the
	// job can then be claimed. A job never Placed (its replica died while
	// posting) can be claimed all the same a lease after it was stored.
	Placed(ctx context.Context, id string, address []byte, placed bool) error
	// Claim takes the oldest claimable job of one of platforms for owner
	// until lease from now: the first unfinished question of its thread
	// by Asked, waiting, or running with its lease run out, in a thread
	// where no other question runs under a live lease. ok is false when
	// there is none.
	Claim(ctx context.Context, owner string, platforms []string, lease time.Duration) (job Job, ok bool, err error)
	// Extend renews owner's lease on job id; kept is false when the job
	// is no longer owner's (its lease ran out and another claimed it).
	Extend(ctx context.Context, id, owner string, lease time.Duration) (kept bool, err error)
	// Finish records that the job id was answered (or given up on) by
	// owner: it is never claimed again.
	Finish(ctx context.Context, id, owner string) error
	// Waiting counts the jobs not yet claimed, of every replica.
	Waiting(ctx context.Context) (int, error)
	// Release gives the job id back, to be claimed again at once (owner
	// is shutting down without answering it); the claim it gives back is
	// not counted in Attempts.
	Release(ctx context.Context, id, owner string) error
}
