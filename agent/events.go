package agent

// EventKind names what happened in a run.
type EventKind string

// The events a run emits, in the order they can occur.
const (
	EventCondensed    EventKind = "condensed"    // Query: the standalone question
	EventRouted       EventKind = "routed"       // Route, Reason
	EventRetrieved    EventKind = "retrieved"    // Route, Query, Total documents
	EventGraded       EventKind = "graded"       // Count relevant of Total
	EventRewriting    EventKind = "rewriting"    // Attempt of Max, Query: the new query, Route: where it searches; Reason: why, when the rewrite switched route
	EventWebFallback  EventKind = "web_fallback" // Reason
	EventGenerating   EventKind = "generating"   // Total sources
	EventDrafting     EventKind = "drafting"     // Text: the draft so far, not yet checked; Attempt: regenerations before it
	EventChecking     EventKind = "checking"
	EventRegenerating EventKind = "regenerating" // Attempt of Max, Reason: why ("unsupported: …", "the answer does not say …")
	EventDegraded     EventKind = "degraded"     // Reason: why the run went offline
	EventNotice       EventKind = "notice"       // Skipped: a search that did not run; or only a Detail
	EventDone         EventKind = "done"         // Result
	EventFailed       EventKind = "failed"       // Err
)

// Event is one progress report. Only the fields its kind names are set.
type Event struct {
	Kind    EventKind
	Step    Step
	Route   Route
	Reason  string
	Query   string
	Count   int
	Total   int
	Attempt int
	Max     int
	// Text is a draft of the answer (EventDrafting), its citations
	// numbered as the finished answer's sources will be.
	Text string
	// Skipped is the search an EventNotice says did not run, and why.
	Skipped Skip
	// Notice is what else an EventNotice reports, for the presenter to
	// word (Words.Detail).
	Notice Notice
	// From is the route the rewriter moved away from (EventRewriting);
	// "" when it kept the route.
	From   Route
	Result *Result
	Err    error
	// Detail is for the asker alone and the log, never a public message:
	// a server's error, a setting's name. Reason is what anyone may read.
	Detail string
}

// Emitter receives a run's events. It is called on the run's goroutine and
// must not block for long; a presenter that does I/O should hand events off.
type Emitter func(Event)
