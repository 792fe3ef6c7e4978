package agent

import (
	"slices"
	"time"

	"github.com/switchboard/switchboard/channels"
)

// Route is where the answer to a question is looked for.
type Route string

// The four routes (docs/DESIGN.md, "The four routes").
const (
	RouteVector Route = "vector" // internal documents
	RouteGraph  Route = "graph"  // relations in the knowledge graph
	RouteWeb    Route = "web"    // the public web
	RouteDirect Route = "direct" // the model alone (or the offline calculator)
)

// Valid reports whether r is one of the four routes.
func (r Route) Valid() bool {
	switch r {
	case RouteVector, RouteGraph, RouteWeb, RouteDirect:
		return true
	}
	return false
}

// Confidence is the badge shown with an answer. It is derived from the
// checks the run performed (see result.go), never chosen by a model.
type Confidence string

// The badges (docs/DESIGN.md, "Confidence badge"), decided by confidence in
// result.go.
const (
	ConfidenceHigh    Confidence = "high"
	ConfidenceMedium  Confidence = "medium"
	ConfidenceLow     Confidence = "low"
	ConfidenceGeneral Confidence = "general"
	ConfidenceNone    Confidence = "none"
)

// Document is one piece of retrieved evidence: a chunk of an internal
// document, the rows a graph query returned, or a web search result.
type Document struct {
	ID       string            `json:"id"`
	Title    string            `json:"title"`
	Location string            `json:"location"` // file path, URL, permalink or the Cypher that ran
	Content  string            `json:"content"`
	Score    float64           `json:"score,omitempty"`
	Route    Route             `json:"route"`
	Metadata map[string]string `json:"metadata,omitempty"`
	// Section is the heading of the part of the document this piece comes
	// from ("Annual plans"), as the stores keep it with each chunk; empty
	// for text above the first heading, graph rows and web results.
	Section string `json:"section,omitempty"`
	// Kind is what the evidence is; "" is read as the route's usual kind
	// (see KindOf).
	Kind Kind `json:"kind,omitempty"`
	// Key names the stored document this is a chunk of ("[workspace/]key")
	// and Chunk its index in it, as the stores set them: chunks of one Key
	// are one source. Both are zero for evidence not from a store.
	Key   string `json:"key,omitempty"`
	Chunk int    `json:"chunk,omitempty"`
	// Walk says what a graph walk covered, in words ("neighbourhood of
	// Acme (2 hops)"), for a graph result that has no link; "" otherwise.
	Walk string `json:"walk,omitempty"`
}

// Kind is what a piece of evidence, and so a source, is.
type Kind string

// The kinds of evidence.
const (
	KindDocument Kind = "document" // a chunk of a stored file or page
	KindChat     Kind = "chat"     // messages of a chat workspace
	KindGraph    Kind = "graph"    // what a graph query or walk found
	KindWeb      Kind = "web"      // a web search result
)

// KindOf is d's kind: the one its retriever set, else its route's.
func KindOf(d Document) Kind {
	if d.Kind != "" {
		return d.Kind
	}
	return d.Route.Kind()
}

// Kind is the usual kind of what the route finds, for evidence (or a
// stored source) that does not say: a graph or web route finds graph or
// web results, and the stores documents.
func (r Route) Kind() Kind {
	switch r {
	case RouteGraph:
		return KindGraph
	case RouteWeb:
		return KindWeb
	}
	return KindDocument
}

// GradedDocument is a retrieved document with the grader's verdict.
type GradedDocument struct {
	Document
	Relevant bool   `json:"relevant"`
	Reason   string `json:"reason,omitempty"`
}

// Source is a document cited by an answer, numbered as in the answer's [n].
// A document is one Source however many of its chunks the answer cites
// (see foldCitations in result.go): Location and Snippet are the first
// cited chunk's, Section joins the distinct headings of the cited chunks
// with " · ", and URL is an http(s) link (a permalink, a web page, a
// file's page from its front matter or DOCS_BASE_URL), never anything else.
type Source struct {
	N        int    `json:"n"`
	Title    string `json:"title"`
	Location string `json:"location"`
	Snippet  string `json:"snippet"`
	Route    Route  `json:"route"`
	Section  string `json:"section,omitempty"` // the heading(s) the cited text is under
	URL      string `json:"url,omitempty"`     // a link people can open; "" when none
	// Kind is what the source is, and Walk what a graph walk covered
	// (Document.Walk; "" for other sources and for a graph query, whose
	// Location is the Cypher that ran). They are for the presenter of a
	// fresh result, and kept out of stored turns and reports, whose format
	// stays as it was: a stored source's kind is its route's (Route.Kind).
	Kind Kind   `json:"-"`
	Walk string `json:"-"`
	// Owners are the people who answer for the document (its front
	// matter's owner:, its CODEOWNERS entry), as ingest recorded them:
	// the bot asks them when it could not answer well and the channel has
	// no experts. Stored with the answer, so that a later press finds them.
	Owners []string `json:"owners,omitempty"`
}

// Turn is one finished question and answer in a thread.
type Turn struct {
	Question string    `json:"question"`
	Answer   string    `json:"answer"`
	Route    Route     `json:"route"`
	Sources  []Source  `json:"sources,omitempty"`
	At       time.Time `json:"at"` // when it was answered
	// Asked is when the question was asked on its platform
	// (Question.Asked); zero when the platform did not say, and in turns
	// stored before it was kept. Turns are ordered by it only among
	// themselves: it is the platform's clock, At is this server's.
	Asked time.Time `json:"asked,omitzero"`
}

// Thread is the state kept between questions of one conversation, keyed by
// the platform's thread id. It is what a Checkpointer stores.
type Thread struct {
	ID          string    `json:"id"`
	Turns       []Turn    `json:"turns"`
	LastRoute   Route     `json:"last_route,omitempty"`
	LastSources []Source  `json:"last_sources,omitempty"`
	Updated     time.Time `json:"updated"`
}

// maxTurnsKept bounds the history a thread carries into prompts and storage.
const maxTurnsKept = 20

// Append records a finished turn in its place by when it was asked (a
// question answered late, after a later one of its thread, goes before
// it), keeping only the most recent turns. A turn of the same question
// asked at the same time replaces it: a question answered again (another
// replica took it over from one that stored its turn and died before it
// could say so) is in the thread once.
func (t *Thread) Append(turn Turn) {
	i := len(t.Turns)
	for i > 0 && !turn.Asked.IsZero() && t.Turns[i-1].Asked.After(turn.Asked) {
		i--
	}
	if i > 0 && !turn.Asked.IsZero() && t.Turns[i-1].Asked.Equal(turn.Asked) && t.Turns[i-1].Question == turn.Question {
		t.Turns[i-1] = turn
	} else {
		t.Turns = slices.Insert(t.Turns, i, turn)
	}
	if len(t.Turns) > maxTurnsKept {
		t.Turns = append([]Turn(nil), t.Turns[len(t.Turns)-maxTurnsKept:]...)
	}
	last := t.Turns[len(t.Turns)-1]
	t.LastRoute, t.LastSources = last.Route, last.Sources
	t.Updated = turn.At
}

// AsOf is the thread as it stood when a question asked at was asked:
// without the turns asked at or after it, so that a question answered
// after a later one of its thread (stored late: a platform's retry) is
// answered with the history its asker saw. Turns that do not say when
// they were asked stay. The zero time is now: every turn.
func (t Thread) AsOf(at time.Time) Thread {
	if at.IsZero() {
		return t
	}
	kept := make([]Turn, 0, len(t.Turns))
	for _, turn := range t.Turns {
		if turn.Asked.IsZero() || turn.Asked.Before(at) {
			kept = append(kept, turn)
		}
	}
	if len(kept) == len(t.Turns) {
		return t
	}
	t.Turns = kept
	t.LastRoute, t.LastSources = "", nil
	if n := len(kept); n > 0 {
		t.LastRoute, t.LastSources = kept[n-1].Route, kept[n-1].Sources
	}
	return t
}

// ForgetIdle drops the turns before the thread's last silence longer than
// maxIdle, counting up to now: what is left is the conversation still
// going on, empty when the last turn is older than maxIdle. The turns are
// dropped for good when the thread is saved again.
func (t *Thread) ForgetIdle(now time.Time, maxIdle time.Duration) {
	next := now
	for i := len(t.Turns) - 1; i >= 0; i-- {
		if next.Sub(t.Turns[i].At) > maxIdle {
			t.Turns = t.Turns[i+1:]
			break
		}
		next = t.Turns[i].At
	}
	if len(t.Turns) == 0 {
		t.Turns, t.LastRoute, t.LastSources = nil, "", nil
	}
}

// Attempt is one retrieval the run made, kept so that a no-answer can say
// what was searched.
type Attempt struct {
	Route    Route  `json:"route"`
	Query    string `json:"query"`
	Found    int    `json:"found"`
	Relevant int    `json:"relevant"`
	// Skipped says why the search did not run (web search not set up,
	// failed); "" for a search that ran.
	Skipped Skip `json:"skipped,omitempty"`
}

// State is the data one run works on. One goroutine owns a run, so State
// has no locks.
type State struct {
	Thread      Thread // history before this question
	Question    string // the user's words, never changed
	Standalone  string // the question made self-contained using the thread
	Query       string // the current search query; rewrites change only this
	Scope       Scope
	Route       Route  // the router's choice, until a rewrite switches it
	RouteReason string // why Route: the router's reason, or the switch's

	Docs     []GradedDocument // the last retrieval, graded
	Relevant []Document       // documents graded relevant, the only ones the generator sees
	Fallback bool             // the current retrieval is the web fallback
	WebTried bool
	// WebConfigured is set when the run has a web retriever: the web
	// fallback can run, once (graph.go).
	WebConfigured bool
	// NoNewSearch is set when the rewriter had no new search left:
	// rewriting is over, as when its budget is spent.
	NoNewSearch bool
	// Attempts are the run's searches, oldest first: the route and query of
	// each, what it found, and the searches that could not run. The
	// rewriter sees them, so that it never repeats one.
	Attempts []Attempt

	Answer           string
	Unsupported      []string     // claims the last check could not ground
	Draft            string       // the best checked answer so far, kept when checks fail
	DraftUnsupported []string     // the claims Draft could not ground
	Grounded         bool         // the last check passed
	Answers          bool         // the last check found that the answer addresses what was asked
	Missing          string       // what the question asks that the answer does not say (Verdict.Missing)
	Partial          bool         // the answer shown is grounded but does not answer; Ask puts the note saying so before it
	PartialDraft     string       // the last grounded answer that did not answer, shown if no regeneration does better
	PartialMissing   string       // Missing of PartialDraft
	AnswerRetried    bool         // the one regeneration for an answer that did not answer is used
	Checked          bool         // at least one check ran, so the next generate is a regeneration
	Finding          Finding      // what the last check made of the last draft
	Cut              *CutOffError // the last draft was cut off before the model finished it; nil when it is whole
	CutDraft         string       // the last draft cut off that was an answer as far as it went, shown if no checked draft is left
	CutDraftAtLimit  bool         // CutDraft was cut at the length limit
	CutOff           bool         // the answer shown is CutDraft; Ask puts the note saying so before it
	DirectOK         bool         // the direct route produced an answer, not an apology
	NoAnswer         bool         // the run ended without an answer
	Outcome          Outcome      // how, when NoAnswer or the direct route could not answer

	Rewrites      int
	Switches      int // rewrites that changed the route; Route is the last one searched
	Regenerations int
	CutOffs       int // the regenerations that wrote again a draft cut off, not one a check found wanting

	Offline       bool   // at least one step used the offline engine
	ModelOff      bool   // the model is not asked again in this run: none, over budget, or down
	OfflineReason string // why: "no model configured", the model's failure or a spent budget
	Trace         []Step
	Usage         Usage
}

// Scope limits what a retrieval may see: documents of other workspaces, and
// private channels other than the asker's, are never returned.
type Scope struct {
	Workspace string `json:"workspace,omitempty"`
	Channel   string `json:"channel,omitempty"`
	// Prefer is a channel whose history comes first among what is about
	// as relevant: the one the asker is looking at (Slack's AI-app view),
	// which the question is likely about.
	Prefer string `json:"prefer,omitempty"`
	// Sources, when set, are the only sources the asking channel's
	// answers may cite (channels.Settings.Sources, issue 26): document
	// key prefixes, which the retrievers filter by in their queries, and
	// the graph and the web by name, whose routes a run without them
	// does not take. Empty: every source the rules above let through.
	Sources []string `json:"sources,omitempty"`
}

// Cites reports whether the scope's sources include a document by its
// stored key (kb.Document.Key, without the workspace), or the graph or the
// web by name (channels.SourceGraph, channels.SourceWeb).
func (sc Scope) Cites(key string) bool {
	return channels.Settings{Sources: sc.Sources}.Cites(key)
}

// Usage counts model traffic for one run.
type Usage struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// Discarded counts the calls begun to grade documents ahead of a
	// route the router did not choose (Config.Speculate); those that
	// finished are among Calls.
	Discarded int `json:"discarded_calls,omitempty"`
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.Calls += u2.Calls
	u.PromptTokens += u2.PromptTokens
	u.CompletionTokens += u2.CompletionTokens
	u.Discarded += u2.Discarded
}

// Result is what a finished run reports.
type Result struct {
	Question      string     `json:"question"`
	Standalone    string     `json:"standalone,omitempty"`
	Route         Route      `json:"route"`
	RouteReason   string     `json:"route_reason"`
	Rewrites      int        `json:"rewrites"`
	Regenerations int        `json:"regenerations"`
	Answer        string     `json:"answer"`
	Sources       []Source   `json:"sources"`
	Confidence    Confidence `json:"confidence"`
	// Outcome says how the run ended when the agent did not write the
	// answer (no answer, an empty knowledge base, …); Answer is then what
	// Config.Words made of it.
	Outcome     Outcome  `json:"outcome,omitempty"`
	Unsupported []string `json:"unsupported,omitempty"`
	Partial     bool     `json:"partial,omitempty"` // grounded but not answering: the answer starts with a note, the badge is low
	Missing     string   `json:"missing,omitempty"` // what a partial answer does not say
	// CutOff is set when the answer is a draft the model did not finish
	// (CutOffError), after a note saying so: never checked, low.
	CutOff bool `json:"cut_off,omitempty"`
	// CutAtLimit says that the cut-off answer stopped at the model's
	// length limit, which an admin can raise.
	CutAtLimit bool `json:"cut_at_limit,omitempty"`
	// CutOffs counts the regenerations (among Regenerations) that wrote
	// again a draft cut off: they say nothing against the answer's
	// grounding, and do not lower its badge.
	CutOffs       int       `json:"cut_offs,omitempty"`
	Offline       bool      `json:"offline"`
	OfflineReason string    `json:"offline_reason,omitempty"`
	Attempts      []Attempt `json:"attempts,omitempty"`
	LLMCalls      int       `json:"llm_calls"`
	Tokens        int       `json:"tokens"`
	// DiscardedCalls counts the calls begun to grade documents ahead of a
	// route the router did not choose (Config.Speculate), finished (and
	// among LLMCalls) or cancelled.
	DiscardedCalls int    `json:"discarded_calls,omitempty"`
	Trace          []Step `json:"trace"`
}
