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

// Notice is what an EventNotice reports besides a search that did not
// run (Skip), for the presenter to word.
type Notice string

// NoticeCutAtLimit: the model's answer reached its length limit and was
// cut off; the asker alone is told which setting raises the limit.
const NoticeCutAtLimit Notice = "cut_at_limit"

// Words are the sentences of what the agent reports but does not write.
// The presenter implements it (bot.Words) with the setting and command
// names cmd/bot supplies. Without Words, a Result's Answer for an
// Outcome other than OutcomeAnswered is empty (its Outcome says what
// happened), a partial or cut-off answer has no note before it, a route
// switched without the rewriter's reason has none, and a notice carries
// no detail.
type Words interface {
	// Outcome is the answer of r, whose Outcome is not OutcomeAnswered.
	Outcome(r Result) string
	// Detail is what the asker alone is told about e (EventNotice with
	// its Skip or Notice), "" for nothing.
	Detail(e Event) string
	// Note is the first paragraph of an answer that is Partial (with
	// what it Missing) or CutOff (CutAtLimit says why it stopped): what
	// follows is not the answer asked for, or is incomplete.
	Note(r Result) string
	// Switched is the route reason when the rewriter moved the search
	// from one route to another without saying why.
	Switched(from, to Route) string
}
