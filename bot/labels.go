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

// The words of Ask an expert and Save as answer (issue 26; expert.go).
const (
	// AskExpertLabel is the button under an answer that was not good
	// enough (Final.AskExpert), and under the thanks for a 👎.
	AskExpertEmoji, AskExpertLabel = "🙋", "Ask an expert"
	// SaveAnswerLabel is the button on the escalation that saves the
	// latest reply after it as the answer; SaveShortcutLabel names
	// Slack's message shortcut that saves the reply it is used on.
	SaveAnswerEmoji, SaveAnswerLabel = "📌", "Save as answer"
	SaveShortcutLabel                = "Save as Switchboard answer"
	// The escalation's parts.
	EscalationQuestionLabel = "Question"
	EscalationSearchedLabel = "What I searched"
	EscalationWhyLabel      = "Why my answer wasn't good enough"
	// SaveHintLine ends the escalation.
	SaveHintLine = "When someone has answered here, the asker or an expert can press “" + SaveAnswerLabel + "” and I'll answer from that reply next time, citing it."
	// VotedDownLine is the reason given when the button came with a 👎.
	VotedDownLine = "Someone voted the answer not helpful."
	// What the presser alone is told.
	AlreadyEscalatedLabel = "The experts were already asked about this answer, in its thread."
	EscalateFailedLabel   = "Sorry, I couldn't ask the experts. Please try again."
	AlreadySavedLabel     = "This reply is already saved as the answer."
	NotAllowedToSaveLabel = "Only the person who asked or one of the channel's experts can save an answer."
	NoReplyLabel          = "There is no reply after my message to save yet: answer in this thread first."
	NotEscalatedLabel     = "Use this on a person's reply in the thread of my “" + AskExpertLabel + "” message."
	AnswerGoneLabel       = "I no longer have the answer this was about; please ask again."
	SaveFailedLabel       = "Sorry, I couldn't save that reply. Please try again."
)

// EscalationLead opens the escalation: whom it asks (mentions, rendered
// by the platform; "" when nobody could be asked), for whom (asker, as
// the platform mentions them), and whether they are the channel's experts
// or the documents' owners.
func EscalationLead(mentions, asker string, owners bool) string {
	switch {
	case mentions == "" && owners:
		return asker + " needs a person to answer this: I couldn't answer it well, and no experts are set for this channel nor owners named in the sources."
	case mentions == "":
		return asker + " needs a person to answer this: I couldn't answer it well."
	case owners:
		return mentions + " — you own the documents I used; " + asker + " needs a person to answer this: I couldn't answer it well."
	}
	return mentions + " — " + asker + " needs an expert to answer this: I couldn't answer it well."
}

// NotNotified names the owners who could not be notified: the sources
// name them by e-mail address or handle, not by a chat account.
func NotNotified(names string) string {
	return "Owners named in the sources, not notified (they have no chat account I can mention): " + names
}

// SavedAnswer confirms in the thread that a reply was saved as the
// answer: author is the reply's author as the platform mentions them
// (without notifying), question the question it answers.
func SavedAnswer(author, question, saver string) string {
	return saver + " saved " + author + "'s reply as the answer to “" + oneLine(question) + "”. I'll answer from it next time, citing it."
}
