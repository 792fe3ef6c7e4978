package bot

import (
	"errors"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// TestWords pins what the golden set (bot/viewtest) cannot show: the
// details the asker alone is told, which are no view, and what a name
// that cmd/bot leaves unset leaves out. The outcomes, notes and route
// switches read in the thread are views of the set.
func TestWords(t *testing.T) {
	w := Words{Names: Names{WebSearchKey: "WEB_KEY", MaxTokens: "MAX_TOKENS"}}
	for _, c := range []struct{ name, got, want string }{
		{"empty, no names", Words{}.Outcome(agent.Result{Outcome: agent.OutcomeEmptyKnowledgeBase}),
			"I couldn't find an answer: the knowledge base is empty, nothing has been ingested yet."},
		{"no model, no names", Words{}.Outcome(agent.Result{Outcome: agent.OutcomeNoModel}),
			"I can't answer that offline: no language model is configured, and this question needs one."},
		{"web detail", w.Detail(agent.Event{Kind: agent.EventNotice, Skipped: agent.SkipWebNotSetUp}),
			"Web search is not configured: an admin can enable it by setting WEB_KEY."},
		{"web detail, no names", Words{}.Detail(agent.Event{Kind: agent.EventNotice, Skipped: agent.SkipWebNotSetUp}),
			"Web search is not configured."},
		{"web failed detail", w.Detail(agent.Event{Kind: agent.EventNotice, Skipped: agent.SkipWebFailed, Err: errors.New("timeout")}),
			"Web search failed: timeout"},
		{"cut-off detail", w.Detail(agent.Event{Kind: agent.EventNotice, Notice: agent.NoticeCutAtLimit}),
			"The language model's answer reached its length limit and was cut off: an admin can raise the limit with MAX_TOKENS."},
		{"cut-off detail, no names", Words{}.Detail(agent.Event{Kind: agent.EventNotice, Notice: agent.NoticeCutAtLimit}),
			"The language model's answer reached its length limit and was cut off."},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, c.got, c.want)
		}
	}
}
