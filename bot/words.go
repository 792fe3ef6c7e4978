package bot

import (
	"fmt"
	"strings"

	"github.com/switchboard/switchboard/agent"
)

// Names are the names of settings and commands that the presenter's
// sentences tell people to use. cmd/bot, which defines them, supplies
// them; a name left "" leaves out the sentence that would use it.
type Names struct {
	// WebSearchKey is the setting that enables web search.
	WebSearchKey string
	// ModelKey and ModelURL are the settings of a language model: an
	// API key, and the address of a local model's server.
	ModelKey, ModelURL string
	// IngestFiles, IngestChat and GraphImport are the commands that fill
	// the knowledge base, as people type them
	// ("switchboard ingest PATH…").
	IngestFiles, IngestChat, GraphImport string
	// MaxTokens is the setting of the longest answer a model may write.
	MaxTokens string
	// ChatIngest is what an ingest admin says in chat to ingest a
	// channel ("@Switchboard ingest this channel").
	ChatIngest string
}

// Words writes what the agent reports without wording it (agent.Words):
// the answer of a run that found none, and the details a notice tells
// the asker alone.
type Words struct{ Names Names }

var _ agent.Words = Words{}

// Outcome is the answer of r, whose Outcome is not agent.OutcomeAnswered.
// Every no-answer says "couldn't find", which the evaluation counts on.
func (w Words) Outcome(r agent.Result) string {
	switch r.Outcome {
	case agent.OutcomeEmptyKnowledgeBase:
		return w.emptyKnowledgeBase()
	case agent.OutcomeNoDraft:
		return "I couldn't find an answer to that: I found documents that look relevant, but couldn't write an answer from them."
	case agent.OutcomeNoModel:
		s := "I can't answer that offline: no language model is configured, and this question needs one."
		switch n := w.Names; {
		case n.ModelKey != "" && n.ModelURL != "":
			s += fmt.Sprintf(" Set %s (or %s for a local model) to enable general answers.", n.ModelKey, n.ModelURL)
		case n.ModelKey != "":
			s += fmt.Sprintf(" Set %s to enable general answers.", n.ModelKey)
		}
		return s
	}
	return notFound(r.Attempts)
}

// notFound says what was searched, so that the asker can judge where
// else to look.
func notFound(attempts []agent.Attempt) string {
	var b strings.Builder
	b.WriteString("I couldn't find an answer to that.")
	if len(attempts) == 0 {
		return b.String()
	}
	b.WriteString(" Here is what I tried:")
	for _, a := range attempts {
		b.WriteString("\n• " + searched(a))
	}
	return b.String()
}

// searched says what one search was and what it found.
func searched(a agent.Attempt) string {
	place := capitalize(Place(a.Route))
	switch {
	case a.Skipped != "" && a.Query == "":
		return skipped(a.Skipped)
	case a.Skipped != "":
		return fmt.Sprintf("%s, for “%s”: %s", place, a.Query, skipped(a.Skipped))
	case a.Found == 0:
		return fmt.Sprintf("%s, for “%s”: nothing found", place, a.Query)
	case a.Relevant == 0:
		return fmt.Sprintf("%s, for “%s”: %d found, none relevant", place, a.Query, a.Found)
	}
	return fmt.Sprintf("%s, for “%s”: %d found, %d relevant", place, a.Query, a.Found, a.Relevant)
}

// webNotSetUp is what the thread reads when the web has no search to use;
// which setting enables it is for the asker alone (Detail).
const webNotSetUp = "web search isn't set up here"

// skipped says, within a sentence, why a search did not run.
func skipped(why agent.Skip) string {
	switch why {
	case agent.SkipWebFailed:
		return "web search failed"
	case agent.SkipNoWebFallback:
		return "no web fallback: " + webNotSetUp
	}
	return webNotSetUp
}

// emptyKnowledgeBase is the answer when nothing has been ingested: how to
// fill the knowledge base, with the commands that do.
func (w Words) emptyKnowledgeBase() string {
	n := w.Names
	s := "I couldn't find an answer: the knowledge base is empty, nothing has been ingested yet."
	var ways []string
	if n.IngestFiles != "" {
		ways = append(ways, "documents with `"+n.IngestFiles+"` (files and folders)")
	}
	if n.IngestChat != "" {
		ways = append(ways, "a chat channel with `"+n.IngestChat+"`")
	}
	if n.GraphImport != "" {
		ways = append(ways, "a graph with `"+n.GraphImport+"`")
	}
	switch len(ways) {
	case 0:
	case 1:
		s += " Load " + ways[0] + ";"
	default:
		s += " Load " + strings.Join(ways[:len(ways)-1], ", ") + ", or " + ways[len(ways)-1] + ";"
	}
	if n.ChatIngest != "" {
		s += " in chat, an ingest admin can say \"" + n.ChatIngest + "\"."
	} else if len(ways) > 0 {
		s = strings.TrimSuffix(s, ";") + "."
	}
	return s
}

// Detail is what the asker alone is told about e: which setting enables
// web search, or the error a search failed with, or which raises the
// length limit an answer was cut off at.
func (w Words) Detail(e agent.Event) string {
	if e.Notice == agent.NoticeCutAtLimit {
		s := "The language model's answer reached its length limit and was cut off"
		if w.Names.MaxTokens == "" {
			return s + "."
		}
		return s + ": an admin can raise the limit with " + w.Names.MaxTokens + "."
	}
	switch e.Skipped {
	case agent.SkipWebNotSetUp:
		if w.Names.WebSearchKey == "" {
			return "Web search is not configured."
		}
		return "Web search is not configured: an admin can enable it by setting " + w.Names.WebSearchKey + "."
	case agent.SkipWebFailed:
		if e.Err != nil {
			return fmt.Sprintf("Web search failed: %v", e.Err)
		}
		return "Web search failed."
	}
	return ""
}

// Note is the first paragraph of an answer that is partial or cut off.
//
// A partial answer: related text was found, but not what was asked;
// r.Missing completes "nothing that says …", and without it the note says
// so in general terms. It says "couldn't find", as the no-answer does,
// because for what was asked that is the truth.
//
// A cut-off answer: what follows is incomplete and was not checked, and
// why it stopped, for whoever runs the bot (a length limit can be raised).
func (Words) Note(r agent.Result) string {
	switch {
	case r.CutOff:
		why := "the language model's reply stopped before it was finished"
		if r.CutAtLimit {
			why = "the language model reached its length limit before it finished"
		}
		return "This answer was cut off: " + why + ", so what follows is incomplete and wasn't checked against the sources."
	case r.Missing == "":
		return "I found related text but nothing that answers the question directly, so I couldn't find an answer to it. Here is what the sources do say:"
	}
	return "I found related text but nothing that says " + r.Missing + ", so I couldn't find a direct answer. Here is what the sources do say:"
}

// Switched is the route reason when the rewriter moved the search from
// one route to another without saying why.
func (Words) Switched(from, to agent.Route) string {
	return "nothing relevant in " + Place(from) + ", so searching " + Place(to)
}

// Place names a route in people's words, for everything people read (the
// bot's messages, the no-answer summary): where the answer was looked for,
// not the machinery behind it.
func Place(r agent.Route) string {
	switch r {
	case agent.RouteVector:
		return "company documents"
	case agent.RouteGraph:
		return "the knowledge graph"
	case agent.RouteWeb:
		return "the web"
	case agent.RouteDirect:
		return "general knowledge"
	}
	return string(r)
}
