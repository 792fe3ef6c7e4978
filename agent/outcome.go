package agent

// Outcome says how a run ended when the agent did not write the answer
// itself: the presenter words it (Words), so that the agent holds no
// sentence that names a setting or a command.
type Outcome string

const (
	// OutcomeAnswered: Answer is what the agent (its Brain) wrote.
	OutcomeAnswered Outcome = ""
	// OutcomeNotFound: nothing relevant was found; Result.Attempts says
	// what was searched.
	OutcomeNotFound Outcome = "not_found"
	// OutcomeEmptyKnowledgeBase: nothing relevant was found because
	// nothing has been ingested yet.
	OutcomeEmptyKnowledgeBase Outcome = "empty_knowledge_base"
	// OutcomeNoDraft: documents looked relevant, but no draft written
	// from them was an answer.
	OutcomeNoDraft Outcome = "no_draft"
	// OutcomeNoModel: a question for the direct route that needs a
	// language model, and none is configured.
	OutcomeNoModel Outcome = "no_model"
)

// Skip says why a search did not run, in an Attempt.
type Skip string

const (
	// SkipWebNotSetUp: the web route has no search configured.
	SkipWebNotSetUp Skip = "web_not_set_up"
	// SkipWebFailed: the web search returned an error.
	SkipWebFailed Skip = "web_failed"
	// SkipNoWebFallback: rewriting ended with no web fallback to run,
	// since none is configured.
	SkipNoWebFallback Skip = "no_web_fallback"
)

// Words are the sentences of what the agent reports but does not write.
// The presenter implements it (bot.Words) with the setting and command
// names cmd/bot supplies. Without Words, a Result's Answer for an
// Outcome other than OutcomeAnswered is empty (its Outcome says what
// happened) and a notice carries no detail.
type Words interface {
	// Outcome is the answer of r, whose Outcome is not OutcomeAnswered.
	Outcome(r Result) string
	// Detail is what the asker alone is told about e (EventNotice with
	// its Skip), "" for nothing.
	Detail(e Event) string
}
