package bot

import (
	"context"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
)

// Incoming is a question as a chat platform delivered it, already
// translated by an adapter.
type Incoming struct {
	Platform  string // "slack", "discord"
	EventID   string // the platform's delivery id, for de-duplication ("" if none)
	Workspace string // Slack team id, Discord guild id ("" for DMs)
	Channel   string
	Thread    string // the thread the answer goes to: Slack thread_ts, Discord channel/interaction
	MessageID string // the asking message (Slack ts, Discord message id), for de-duplication
	// Sent is when the platform says the question was asked (Slack's ts,
	// Discord's snowflake); zero when it does not say. A thread's
	// questions are answered in this order, whatever order they arrive
	// in, and each with the history as of its own time.
	Sent time.Time
	User string
	Text string // the question, with the bot mention removed
	// Cleaned is Text as the agent reads it (its CleanQuestion), set by
	// the dispatcher as it takes the question and stored with it, so that
	// the agent does not clean it again; "" when it was not cleaned.
	Cleaned string
	// Conversation, when set, names the conversation within Channel
	// instead of Thread, for platforms where the answer's place is shared
	// by people who are not talking together: on Discord a channel (or
	// thread channel) holds everyone's questions, so the conversation is
	// the asker's.
	Conversation string
	// Viewing, when set, is the channel the asker is looking at while
	// asking (Slack's AI-app view tells it): the question may be about
	// it, so its private documents are in scope, as they are for a
	// question asked there.
	Viewing string
	// MaxIdle, when set, is the longest silence the conversation survives:
	// a question after a longer one starts afresh. Discord sets it, since
	// an asker's turns in a channel are a conversation only while recent;
	// a Slack thread never idles out.
	MaxIdle time.Duration
	// Sources, when set, are the only sources the answer may cite: the
	// asking channel's settings (channels.Settings.Sources), read by the
	// adapter as it takes the question and kept with it.
	Sources []string
}

// ThreadKey identifies the conversation whose state the question continues:
// the Conversation when set, else the Thread. Answers are saved under it,
// so that an adapter can ask whether it answered someone in a thread.
func (in Incoming) ThreadKey() string {
	conv := in.Thread
	if in.Conversation != "" {
		conv = in.Conversation
	}
	return in.Platform + ":" + in.Workspace + ":" + in.Channel + ":" + conv
}

// View is everything people see of one question: the progress so far, and
// once done, the result. Adapters render it (Block Kit, embeds, text).
type View struct {
	AnswerID string // identifies the answer for feedback buttons
	Question string // as asked
	Progress string // the latest progress line (see Progress), while not Done
	// Draft is the answer being written or checked, while not Done: not
	// yet checked against the sources, and shown as such (see DraftNote).
	// "" until the generator writes, and again once a draft is rejected.
	Draft string
	Done  bool
	// Final is the finished answer as people read it, every word decided
	// by the presenter (Present): set when Done and the run succeeded.
	Final  *Final
	Failed string // set when Done and the run failed: a short public line
}

// Replier shows one question's View in its platform: it posts the first
// view, edits it as the run progresses and finishes it. Implementations
// belong to the adapters and must apply their platform's timeouts and
// rate-limit handling; the presenter already limits how often Update is
// called.
type Replier interface {
	// Start posts the placeholder at once, so the asker never waits in silence.
	Start(ctx context.Context, v View) error
	// Update edits the posted message to show v.
	Update(ctx context.Context, v View) error
	// Finish shows the final view (answer, route, sources, badge, feedback
	// buttons), splitting it into several messages if it is too long.
	Finish(ctx context.Context, v View) error
	// Private tells only the asker something (Slack ephemeral message,
	// Discord ephemeral follow-up): errors, "please retry".
	Private(ctx context.Context, text string) error
}

// Asker answers questions: the agent.
type Asker interface {
	Ask(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error)
}

// Deduper remembers which deliveries were handled, so that a retried or
// doubled event is answered once. FirstSeen returns true only for the first
// call with a key. The PostgreSQL store implements it across replicas.
type Deduper interface {
	FirstSeen(ctx context.Context, key string) (bool, error)
}

// FeedbackStore keeps answers and the votes people give them.
// The stores implement feedback.Store, of which the bot needs only this.
type FeedbackStore interface {
	SaveAnswer(ctx context.Context, a feedback.Answer) error
	// SaveVote records user's vote (+1 or -1) on the answer; a later vote by
	// the same user replaces the earlier one.
	SaveVote(ctx context.Context, answerID, user string, vote int) error
}
