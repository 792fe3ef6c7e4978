// Package feedback is the contract between the bot, which saves answers
// and the 👍/👎 votes people give them, the stores that keep them
// (sqlite, postgres), and the evaluation, which turns votes into cases.
// It holds only types, so that the stores need not import the bot that
// presents answers, nor the bot the stores.
package feedback

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard/switchboard/agent"
)

// Answer is a finished answer as posted in chat, kept for the votes it may
// get.
type Answer struct {
	ID       string
	Thread   string
	User     string // who asked
	Question string
	Answer   string
	Route    agent.Route
	Sources  []agent.Source
	At       time.Time
	// Result is the finished run as the presenter reads it, without its
	// trace: an answer shared later (Slack's /ask), after a restart too,
	// is shown in the same words. Nil when it was not kept.
	Result *agent.Result
	// Human is set on a person's reply saved as the answer (Save as
	// answer, issue 26): the Answer's Answer is the reply's text, its User
	// the reply's author. Nil on the bot's answers.
	Human *Human
}

// Human is where a person's reply saved as the answer came from.
type Human struct {
	Link     string `json:"link"`     // the reply's permalink, its source
	Title    string `json:"title"`    // the title of the document it was saved as
	SavedBy  string `json:"saved_by"` // who pressed Save as answer
	Document string `json:"document"` // the key of the document it was saved as
}

// Vote is one person's vote on one answer, with the answer it was given
// on.
type Vote struct {
	Answer
	Vote    int    // +1 helpful, -1 not
	Voter   string // who voted
	VotedAt time.Time
}

// Store keeps answers and votes. Both stores implement it; the bot uses
// SaveAnswer and SaveVote, the evaluation Votes.
type Store interface {
	// SaveAnswer stores a; saving the same ID again is harmless.
	SaveAnswer(ctx context.Context, a Answer) error
	// SaveVote records voter's vote (+1 or -1) on the saved answer
	// answerID; a later vote by the same person replaces the earlier one.
	// A vote on an answer never saved is ErrUnknownAnswer.
	SaveVote(ctx context.Context, answerID, voter string, vote int) error
	// Votes returns every vote with its answer, oldest first.
	Votes(ctx context.Context) ([]Vote, error)
	// Answered reports whether an answer was saved in thread for a
	// question of user ("" for anyone): a thread reply continues the
	// conversation only of someone the bot answered there.
	Answered(ctx context.Context, thread, user string) (bool, error)
	// Liked returns up to n questions whose answers people voted up
	// (more 👍 than 👎) in threads whose key starts with prefix (a
	// workspace's, "slack:T123:"), most liked first, each once: the
	// questions offered to people as examples of what the bot answers
	// well.
	Liked(ctx context.Context, prefix string, n int) ([]Liked, error)
	// Answer returns the saved answer id, or ErrUnknownAnswer.
	Answer(ctx context.Context, id string) (Answer, error)
	// Share marks the saved answer id shared in its channel (shared), or
	// no longer (a post that failed), and reports whether that changed
	// anything: of two presses of a share button, only one shares.
	Share(ctx context.Context, id string, shared bool) (bool, error)
	// Escalate marks the saved answer id as one its experts were asked
	// about (Ask an expert), or no longer (a post that failed), and
	// reports whether that changed anything, as Share does: of two
	// presses, on any replicas, only one asks.
	Escalate(ctx context.Context, id string, escalated bool) (bool, error)
	// HumanAnswers returns the people's replies saved as answers (Human
	// set), oldest first.
	HumanAnswers(ctx context.Context) ([]Answer, error)
}

// Liked is a question people voted up, with the thread of one time it
// was asked (the one voted on last): whoever offers it to others checks that the
// place it was asked in is theirs to see.
type Liked struct {
	Question string
	Thread   string
}

// ErrUnknownAnswer is returned by SaveVote and Answer for an answer never
// saved.
var ErrUnknownAnswer = errors.New("unknown answer")
