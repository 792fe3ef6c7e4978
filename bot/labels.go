package bot

import (
	"fmt"
	"strings"

	"github.com/switchboard/switchboard/internal/text"
)

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
)

// MoreSources ends a source list cut at n sources short of its end.
func MoreSources(n int) string { return fmt.Sprintf("…and %d more", n) }

// UnderstoodAs is the question as understood, quoted, after its label.
func UnderstoodAs(q string) string { return UnderstoodAsLabel + " “" + q + "”" }

// The words of private answers and of Slack's AI-app view.
const (
	// ShareLabel is the button under a private answer that posts it in
	// the channel; SharedLabel replaces it once pressed, and
	// AlreadySharedLabel answers a second press.
	ShareEmoji, ShareLabel = "📣", "Share in channel"
	SharedLabel            = "Shared in channel"
	AlreadySharedLabel     = "This answer is already in the channel."
	// ShareFailedLabel answers a press whose post the platform (or the
	// store) did not take.
	ShareFailedLabel = "Sorry, I couldn't share the answer. Please try again."
	// ShareGoneLabel answers a press on an answer no longer kept to share.
	ShareGoneLabel = "I no longer have this answer to share; please ask again."
	// SuggestionsLabel heads the suggested prompts of a new thread.
	SuggestionsLabel = "Try asking"
	// maxTitle bounds a thread's title and a suggestion's.
	maxTitle = 60
)

// Asked says who asked the question of an answer shared in the channel;
// who is the asker as the platform mentions them, question "" when it is
// no longer at hand.
func Asked(who, question string) string {
	if question = oneLine(question); question == "" {
		return who + " asked:"
	}
	return who + " asked: “" + question + "”"
}

// Title names a thread after its first question.
func Title(question string) string { return text.ClipWords(oneLine(question), maxTitle) }

// Suggestion is a question offered to someone who has not asked yet.
type Suggestion struct {
	Title   string // short, on the button
	Message string // what is asked when it is pressed
}

// Suggest offers up to n questions: those people voted up (liked),
// else questions about the knowledge base's documents (titles), each
// once.
func Suggest(liked, titles []string, n int) []Suggestion {
	var out []Suggestion
	seen := map[string]bool{}
	add := func(title, message string) {
		title, message = oneLine(title), oneLine(message)
		if len(out) >= n || title == "" || seen[strings.ToLower(message)] {
			return
		}
		seen[strings.ToLower(message)] = true
		out = append(out, Suggestion{Title: text.ClipWords(title, maxTitle), Message: message})
	}
	for _, q := range liked {
		add(q, q)
	}
	for _, t := range titles {
		add(t, "What does “"+oneLine(t)+"” say?")
	}
	return out
}
