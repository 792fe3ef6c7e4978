package bot

import (
	"errors"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// TestWords pins the sentences of the outcomes the agent does not word,
// as they read before they moved here from the agent.
func TestWords(t *testing.T) {
	w := Words{Names: Names{WebSearchKey: "WEB_KEY", ModelKey: "MODEL_KEY", ModelURL: "MODEL_URL",
		MaxTokens: "MAX_TOKENS", IngestFiles: "sb ingest PATH…", IngestChat: "sb ingest chat", GraphImport: "sb graph import", ChatIngest: "@Sb ingest this channel"}}
	tried := []agent.Attempt{
		{Route: agent.RouteVector, Query: "office wifi password", Found: 3},
		{Route: agent.RouteVector, Query: "wifi"},
		{Route: agent.RouteVector, Query: "wifi key", Found: 2, Relevant: 1},
		{Route: agent.RouteWeb, Query: "wifi", Skipped: agent.SkipWebFailed},
		{Route: agent.RouteWeb, Skipped: agent.SkipNoWebFallback},
	}
	for _, c := range []struct{ name, got, want string }{
		{"not found", w.Outcome(agent.Result{Outcome: agent.OutcomeNotFound, Attempts: tried}),
			"I couldn't find an answer to that. Here is what I tried:\n• Company documents, for “office wifi password”: 3 found, none relevant\n" +
				"• Company documents, for “wifi”: nothing found\n• Company documents, for “wifi key”: 2 found, 1 relevant\n" +
				"• The web, for “wifi”: web search failed\n• no web fallback: web search isn't set up here"},
		{"not found, nothing tried", w.Outcome(agent.Result{Outcome: agent.OutcomeNotFound}), "I couldn't find an answer to that."},
		{"empty", w.Outcome(agent.Result{Outcome: agent.OutcomeEmptyKnowledgeBase}),
			"I couldn't find an answer: the knowledge base is empty, nothing has been ingested yet. Load documents with `sb ingest PATH…` (files and folders), " +
				"a chat channel with `sb ingest chat`, or a graph with `sb graph import`; in chat, an ingest admin can say \"@Sb ingest this channel\"."},
		{"empty, no names", Words{}.Outcome(agent.Result{Outcome: agent.OutcomeEmptyKnowledgeBase}),
			"I couldn't find an answer: the knowledge base is empty, nothing has been ingested yet."},
		{"no draft", w.Outcome(agent.Result{Outcome: agent.OutcomeNoDraft}),
			"I couldn't find an answer to that: I found documents that look relevant, but couldn't write an answer from them."},
		{"no model", w.Outcome(agent.Result{Outcome: agent.OutcomeNoModel}),
			"I can't answer that offline: no language model is configured, and this question needs one. Set MODEL_KEY (or MODEL_URL for a local model) to enable general answers."},
		{"web detail", w.Detail(agent.Event{Kind: agent.EventNotice, Skipped: agent.SkipWebNotSetUp}),
			"Web search is not configured: an admin can enable it by setting WEB_KEY."},
		{"web failed detail", w.Detail(agent.Event{Kind: agent.EventNotice, Skipped: agent.SkipWebFailed, Err: errors.New("timeout")}),
			"Web search failed: timeout"},
		{"cut-off detail", w.Detail(agent.Event{Kind: agent.EventNotice, Notice: agent.NoticeCutAtLimit}),
			"The language model's answer reached its length limit and was cut off: an admin can raise the limit with MAX_TOKENS."},
		{"cut-off detail, no names", Words{}.Detail(agent.Event{Kind: agent.EventNotice, Notice: agent.NoticeCutAtLimit}),
			"The language model's answer reached its length limit and was cut off."},
		{"cut off at the limit", w.Note(agent.Result{CutOff: true, CutAtLimit: true}),
			"This answer was cut off: the language model reached its length limit before it finished, so what follows is incomplete and wasn't checked against the sources."},
		{"cut off", w.Note(agent.Result{CutOff: true}),
			"This answer was cut off: the language model's reply stopped before it was finished, so what follows is incomplete and wasn't checked against the sources."},
		{"partial", w.Note(agent.Result{Partial: true, Missing: "whether it is open on Sundays"}),
			"I found related text but nothing that says whether it is open on Sundays, so I couldn't find a direct answer. Here is what the sources do say:"},
		{"partial, nothing named", w.Note(agent.Result{Partial: true}),
			"I found related text but nothing that answers the question directly, so I couldn't find an answer to it. Here is what the sources do say:"},
		{"switched", w.Switched(agent.RouteVector, agent.RouteGraph), "nothing relevant in company documents, so searching the knowledge graph"},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, c.got, c.want)
		}
	}
}
