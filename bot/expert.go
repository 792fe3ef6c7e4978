package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/internal/text"
	"github.com/switchboard/switchboard/kb"
)

// This file is the platform-neutral half of issue 26's "a person when the
// bot can't answer": Ask an expert, which asks a channel's experts (or,
// with none set, the owners of the cited documents) in the answer's
// thread, and Save as answer, which stores a person's reply there as a
// document the bot answers from next time. The adapters read the presses
// and the thread, and render an Escalation; who is asked, what they are
// told and what is stored is decided here.

// AnswerBook keeps the answers the bot gave, each with the run it was
// presented from and whether its experts were asked, and the replies
// saved as answers; the feedback stores implement it (feedback.Store).
// Because the store marks an answer escalated in one conditional update,
// as it marks one shared (ClaimShare), a press is handled once after a
// restart and on any replica.
type AnswerBook interface {
	Answer(ctx context.Context, id string) (feedback.Answer, error)
	SaveAnswer(ctx context.Context, a feedback.Answer) error
	Escalate(ctx context.Context, id string, escalated bool) (bool, error)
}

// DocumentSaver stores a document in the knowledge base, embedded and
// searchable; cmd/bot implements it with the ingest pipeline.
type DocumentSaver interface {
	SaveDocument(ctx context.Context, doc kb.Document) error
}

// Experts handles Ask an expert and Save as answer for the adapters.
type Experts struct {
	Answers AnswerBook
	// Channels gives each channel's experts; nil: none is set anywhere,
	// and the owners of the cited documents are asked.
	Channels SettingsReader
	// Documents stores the saved replies; nil: Save as answer is off.
	Documents DocumentSaver
	// Now is the clock of saved replies; nil: time.Now.
	Now func() time.Time
}

// Errors of Escalate and Save: each has words for the presser (Refused).
var (
	ErrEscalated  = errors.New("bot: the experts were asked already")
	ErrSaved      = errors.New("bot: the reply was saved already")
	ErrNotAllowed = errors.New("bot: only the asker or an expert may save an answer")
	ErrNoReply    = errors.New("bot: no reply to save")
)

// Escalation is what Ask an expert posts in the answer's thread; the
// adapters render it, mentioning Mention and nobody else.
type Escalation struct {
	AnswerID string
	// Thread is the answer's conversation (Incoming.ThreadKey), where the
	// escalation goes.
	Thread string
	Asker  string // who asked, as the platform names them
	// Mention are the platform ids to notify: the channel's experts, or
	// the owners of the cited documents that are chat accounts (Owners).
	Mention []string
	Owners  bool
	// Unreachable are owners named in the sources who are no chat account
	// (an e-mail address, a GitHub handle): named, never notified.
	Unreachable []string
	Question    string
	Searched    []string // what was searched, a line each
	Why         []string // why the answer was not good enough, a line each
	answers     AnswerBook
}

// Release lets the answer's experts be asked again, after a post that
// failed before any of it showed, so that the presser can try again.
func (esc Escalation) Release(ctx context.Context) error {
	if esc.answers == nil {
		return nil
	}
	_, err := esc.answers.Escalate(context.WithoutCancel(ctx), esc.AnswerID, false)
	return err
}

// EscalateRequest is a press of Ask an expert.
type EscalateRequest struct {
	AnswerID string
	Channel  string // where the answer is
	User     string // who pressed
	Voted    bool   // the button came with the presser's 👎
	// Mentionable reports whether an owner's name is an account of the
	// platform's that can be mentioned (a Slack user id, a Discord
	// snowflake); nil: none is.
	Mentionable func(string) bool
}

// Escalate decides what Ask an expert posts for req, and marks the
// answer escalated in the store: ErrEscalated when its experts were asked
// already, an error wrapping feedback.ErrUnknownAnswer for an answer not
// kept. What it says of the answer (its badge, the claims not found, the
// searches) is read from the run kept with it, in the presenter's words.
// The adapter that cannot post it calls Release.
func (e *Experts) Escalate(ctx context.Context, req EscalateRequest) (Escalation, error) {
	a, experts, err := e.answer(ctx, req.AnswerID, req.Channel)
	if err != nil {
		return Escalation{}, err
	}
	switch first, err := e.Answers.Escalate(ctx, a.ID, true); {
	case err != nil:
		return Escalation{}, fmt.Errorf("bot: mark the answer escalated: %w", err)
	case !first:
		return Escalation{}, ErrEscalated
	}
	esc := Escalation{AnswerID: a.ID, Thread: a.Thread, Asker: a.User, Question: oneLine(a.Question), Mention: experts,
		answers: e.Answers}
	if len(experts) == 0 {
		esc.Owners = true
		for _, o := range owners(a.Sources) {
			if req.Mentionable != nil && req.Mentionable(o) {
				esc.Mention = append(esc.Mention, o)
			} else {
				esc.Unreachable = append(esc.Unreachable, o)
			}
		}
	}
	if a.Result != nil {
		for _, at := range a.Result.Attempts {
			esc.Searched = append(esc.Searched, oneLine(searched(at)))
		}
	}
	if len(esc.Searched) == 0 && a.Route != "" {
		esc.Searched = append(esc.Searched, capitalize(Place(a.Route)))
	}
	if v, ok := Finished(a); ok {
		if b := oneLine(v.Final.Badge.String()); b != "" {
			esc.Why = append(esc.Why, b)
		}
		for _, c := range v.Final.Unverified {
			esc.Why = append(esc.Why, UnverifiedLabel+": “"+oneLine(c)+"”")
		}
	}
	if req.Voted {
		esc.Why = append(esc.Why, VotedDownLine)
	}
	return esc, nil
}

// Parts are the escalation's parts under its question, each with its
// label: what was searched, and why the answer was not good enough;
// those with no lines are left out.
func (esc Escalation) Parts() []EscalationPart {
	var out []EscalationPart
	for _, p := range []EscalationPart{{EscalationSearchedLabel, esc.Searched}, {EscalationWhyLabel, esc.Why}} {
		if len(p.Lines) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// EscalationPart is a labelled list of an escalation.
type EscalationPart struct {
	Label string
	Lines []string
}

// answer is the saved answer id and the experts of channel, where it
// was pressed on.
func (e *Experts) answer(ctx context.Context, id, channel string) (feedback.Answer, []string, error) {
	a, err := e.Answers.Answer(ctx, id)
	if err != nil {
		return a, nil, err
	}
	experts, err := e.experts(ctx, channel)
	return a, experts, err
}

// experts are the channel's experts, none without Channels.
func (e *Experts) experts(ctx context.Context, channel string) ([]string, error) {
	if e.Channels == nil || channel == "" {
		return nil, nil
	}
	s, err := e.Channels.Settings(ctx, channel)
	if err != nil {
		return nil, fmt.Errorf("bot: the experts of %s: %w", channel, err)
	}
	return s.Experts, nil
}

// owners are the owners of the sources, each once, in order.
func owners(sources []agent.Source) []string {
	var out []string
	for _, s := range sources {
		for _, o := range s.Owners {
			if o = strings.TrimSpace(o); o != "" && !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
	}
	return out
}

// Reply is a person's reply in an escalation's thread, as the adapter
// read it.
type Reply struct {
	ID     string // the message's id (Slack ts, Discord snowflake)
	Author string // the platform's user id of who wrote it
	Text   string // as the platform gives it
	Link   string // its permalink
	At     time.Time
}

// SaveRequest is a press of Save as answer (or Slack's message shortcut).
type SaveRequest struct {
	AnswerID  string // the answer the escalation was about
	Platform  string // "slack", "discord"
	Workspace string
	Channel   string
	// Private says that the channel is not the workspace's to read (a
	// private channel, a DM): the saved reply is seen only there, as the
	// channel's history is (ingest/chat).
	Private bool
	User    string // who pressed
	Reply   Reply
}

// Saved says what Save stored.
type Saved struct {
	Author, Question, Link string
}

// Save stores req's reply as the answer to its escalation's question: a
// document whose source is the reply's permalink and whose author is who
// wrote it, seen where the thread is, and an answer people gave
// (feedback.Human) for the evaluation. Only the asker or one of the
// channel's experts may save (ErrNotAllowed); a reply saved already is
// ErrSaved.
func (e *Experts) Save(ctx context.Context, req SaveRequest) (Saved, error) {
	if e.Documents == nil {
		return Saved{}, errors.New("bot: saving answers is not set up")
	}
	r := req.Reply
	if strings.TrimSpace(r.Text) == "" || r.ID == "" {
		return Saved{}, ErrNoReply
	}
	a, experts, err := e.answer(ctx, req.AnswerID, req.Channel)
	if err != nil {
		return Saved{}, err
	}
	if req.User != a.User && !slices.Contains(experts, req.User) {
		return Saved{}, ErrNotAllowed
	}
	key := req.Platform + ":" + req.Channel + ":answer:" + r.ID
	// A reply saved is an answer in the store (human:key), kept after a
	// restart and seen by every replica. Two presses at once may both
	// store it (idempotent: the document's key, the answer's id) and both
	// be told so, privately and truly.
	switch _, err := e.Answers.Answer(ctx, humanID(key)); {
	case err == nil:
		return Saved{}, ErrSaved
	case !errors.Is(err, feedback.ErrUnknownAnswer):
		return Saved{}, err
	}
	question := oneLine(a.Question)
	title := text.ClipWords(question, maxSavedTitle)
	md := map[string]string{"author": r.Author, "question": question, "answer": a.ID}
	if r.Link != "" {
		md["url"] = r.Link
	}
	if !r.At.IsZero() {
		md["timestamp"] = r.At.UTC().Format(time.RFC3339)
	}
	doc := kb.Document{Key: key, Title: title, Location: r.Link, Workspace: req.Workspace, Channel: req.Channel,
		Private: req.Private, Metadata: md,
		// The question leads, so that it is found by its own words.
		Chunks: []kb.Chunk{{Content: question + "\n\n" + strings.TrimSpace(r.Text)}}}
	if err := e.Documents.SaveDocument(ctx, doc); err != nil {
		return Saved{}, err
	}
	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	human := feedback.Answer{ID: humanID(key), Thread: a.Thread, User: r.Author, Question: a.Question,
		Answer: strings.TrimSpace(r.Text), Route: agent.RouteVector, At: now(),
		Sources: []agent.Source{{N: 1, Title: title, Location: r.Link, URL: r.Link, Route: agent.RouteVector}},
		Human:   &feedback.Human{Link: r.Link, Title: title, SavedBy: req.User, Document: key}}
	if err := e.Answers.SaveAnswer(ctx, human); err != nil {
		return Saved{}, err
	}
	return Saved{Author: r.Author, Question: question, Link: r.Link}, nil
}

// humanID is the answer id of the reply saved as the document key.
func humanID(key string) string { return "human:" + key }

// maxSavedTitle bounds the title of a saved reply, its question.
const maxSavedTitle = 120

// Refused returns the words for the presser of an Escalate or Save that
// failed with err, and whether err is one of theirs rather than ours.
func Refused(err error) (string, bool) {
	switch {
	case errors.Is(err, ErrEscalated):
		return AlreadyEscalatedLabel, true
	case errors.Is(err, ErrSaved):
		return AlreadySavedLabel, true
	case errors.Is(err, ErrNotAllowed):
		return NotAllowedToSaveLabel, true
	case errors.Is(err, ErrNoReply):
		return NoReplyLabel, true
	case errors.Is(err, feedback.ErrUnknownAnswer):
		return AnswerGoneLabel, true
	}
	return "", false
}
