package bot

import "fmt"

// The labels around a finished answer and its progress. They are the
// presenter's words: a renderer lays them out in its platform's shapes and
// writes none of its own, so that every platform reads the same.
const (
	// SourcesLabel heads the numbered sources; SourcesMoreLabel heads
	// their continuation where a platform cuts the list.
	SourcesLabel     = "Sources"
	SourcesMoreLabel = "Sources (continued)"
	// AnsweredFromLabel leads the place the answer came from (Final.Place)
	// and UnderstoodAsLabel the question as understood (Final.Understood).
	AnsweredFromLabel = "Answered from"
	UnderstoodAsLabel = "understood as"
	// UnverifiedLabel heads the claims the check could not find
	// (Final.Unverified).
	UnverifiedLabel = "Not found in the sources"
	// EmptyAnswerLabel stands in for an answer with no text.
	EmptyAnswerLabel = "(empty answer)"
	// ContinuedLabel ends a message whose answer goes on in the next one.
	ContinuedLabel = "continued below ↓"
	// The feedback buttons.
	HelpfulEmoji, HelpfulLabel       = "👍", "Helpful"
	NotHelpfulEmoji, NotHelpfulLabel = "👎", "Not helpful"
	// WorkingOnLabel leads the question in the notification of a view in
	// progress.
	WorkingOnLabel = "Working on: "
	// ProgressEmoji leads a progress line, FailedEmoji a failed view.
	ProgressEmoji, FailedEmoji = "⏳", "⚠️"
	// CheckedAnswerLabel introduces the checked answer under a draft
	// that the check changed, where the draft stays on the screen.
	CheckedAnswerLabel = "After the check, the answer reads:"
	// RewrittenCutLabel and RewrittenLabel say why a second draft follows
	// a first that stayed on the screen.
	RewrittenCutLabel = "(written again: the draft was cut off)"
	RewrittenLabel    = "(rewritten to keep to the sources)"
	// NoteLabel leads a detail told to the asker alone.
	NoteLabel = "Note:"
	// ShareLabel is the button under an answer given to the asker alone
	// (a private /ask) that posts it in the channel; SharedLabel replaces
	// it once pressed.
	ShareEmoji, ShareLabel = "📣", "Share in channel"
	SharedLabel            = "Shared in channel"
	// AlreadySharedMessage answers a second press of the share button:
	// an answer is posted in the channel once.
	AlreadySharedMessage = "This answer is already shared in the channel."
	// ShareFailedMessage tells the asker that the answer could not be
	// posted in the channel.
	ShareFailedMessage = "Sorry, I couldn't share this answer in the channel."
	// ShareGoneMessage answers a share button whose answer is no longer
	// at hand.
	ShareGoneMessage = "This answer can't be shared any more; please ask again."
)

// AskedBy leads an answer shared in the channel by who asked it (a
// platform's mention of them).
func AskedBy(who string) string { return "Asked by " + who }

// MoreSources ends a source list cut at n sources short of its end.
func MoreSources(n int) string { return fmt.Sprintf("…and %d more", n) }

// UnderstoodAs is the question as understood, quoted, after its label.
func UnderstoodAs(q string) string { return UnderstoodAsLabel + " “" + q + "”" }
