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
	// Detail is what was shown with the answer besides its text, kept
	// for a press of Ask an expert that may come later, on any replica.
	Detail Detail
}

// Detail is what people were shown of an answer besides its text: why
// it was not good enough, and what was searched (issue 26). A person's
// reply saved as the answer (Save as answer) is an Answer too, with
// Human set.
type Detail struct {
	// Level and Badge are the confidence badge's level ("low", "none",
	// as bot.Level) and words.
	Level string `json:"level,omitempty"`
	Badge string `json:"badge,omitempty"`
	// Unverified are the claims the check could not find in the sources.
	Unverified []string `json:"unverified,omitempty"`
	// Attempts are the searches the run made.
	Attempts []agent.Attempt `json:"attempts,omitempty"`
	// Human is set on a person's reply saved as the answer.
	Human *Human `json:"human,omitempty"`
}

// Human is a person's reply in a thread saved as the answer to its
// question: the Answer's Answer is the reply's text, its User the author.
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
	Liked(ctx context.Context, prefix string, n int) ([]string, error)
	// Answer returns the saved answer id, with its Detail; one never
	// saved is ErrUnknownAnswer.
	Answer(ctx context.Context, id string) (Answer, error)
	// HumanAnswers returns the answers people gave that were saved as the
	// answer (Detail.Human set), oldest first.
	HumanAnswers(ctx context.Context) ([]Answer, error)
}

// ErrUnknownAnswer is returned by SaveVote and Answer for an answer never
// saved.
var ErrUnknownAnswer = errors.New("unknown answer")
