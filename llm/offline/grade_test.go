package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

func TestGrade(t *testing.T) {
	refund := agent.Document{
		Title:   "Refund policy",
		Content: "Customers can return unused items within 30 days of purchase for a full refund.",
		Route:   agent.RouteVector,
	}
	retention := agent.Document{
		Title:   "Data retention",
		Content: "We keep customer data for 90 days after an account is closed. EU data is stored in Frankfurt.",
		Route:   agent.RouteVector,
	}
	expenses := agent.Document{
		Title:   "Expenses",
		Content: "Submit receipts within a month to be reimbursed.",
		Route:   agent.RouteVector,
	}
	expenses2 := agent.Document{
		Title:   "Submitting expenses",
		Content: "Lost receipts need a short written explanation and are limited to 100 EUR per year.",
		Route:   agent.RouteVector,
	}
	graph := agent.Document{
		Title:   "neighbourhood of Acme Corp",
		Content: "Acme Corp -[SUPPLIES]-> Globex\nInitech -[SUPPLIES]-> Acme Corp",
		Route:   agent.RouteGraph,
	}
	tests := []struct {
		name     string
		question string
		doc      agent.Document
		relevant bool
		reason   string
	}{
		{"direct match", "What is our refund policy?", refund, true, "refund"},
		{"plural and case", "How do REFUNDS work?", refund, true, "refunds"},
		{"synonym", "How long do we retain logs?", agent.Document{
			Title: "Logging", Content: "Log retention is 30 days.", Route: agent.RouteVector,
		}, true, "mentions retain and logs"},
		{"unrelated", "How do I reset my VPN password?", refund, false, "no keywords"},
		{"vague words only", "What is the way to do things at the office?", agent.Document{
			Title: "Ways of working", Content: "There is a way to do things, and it is written down.", Route: agent.RouteVector,
		}, false, "only"},
		{"most keywords", "What is our data retention policy for EU customers?", retention, true, "retention"},
		{"below share", "What is the approval limit for expenses of contractors in Asia?", expenses, false, "mentions only expenses"},
		{"no keywords", "what is it?", refund, false, "no keywords"},
		{"one of two topics", "What is our parental leave policy?", agent.Document{
			Title: "Offboarding", Content: "When someone leaves, all access is removed on their last working day.", Route: agent.RouteVector,
		}, false, "only leave"},
		{"one of two topics, a word no dictionary has", "What does evictionHard mean for a cluster?", agent.Document{
			Title: "Node pressure", Content: "Set evictionHard to the memory floor below which pods are evicted.", Route: agent.RouteVector,
		}, true, "evictionhard"},
		{"how word is no topic", "How long is a work cycle?", agent.Document{
			Title: "How we work", Content: "We work in 6-week cycles.", Route: agent.RouteVector,
		}, true, "cycle"},
		// Related words (WordNet) and word forms.
		{"derived form", "Who can approve a deployment?", agent.Document{
			Title: "Releases", Content: "Only the on-call lead may approve when we deploy.", Route: agent.RouteVector,
		}, true, "deployment"},
		{"irregular form", "Is there a cap on expenses after losing the receipt?", expenses2, true, "losing"},
		{"a phrase is whole", "When are public holidays announced?", agent.Document{
			Title: "Holidays", Content: "Holidays are announced every year in December.", Route: agent.RouteVector,
		}, false, "too few"}, // "public holidays" is one topic
		// Words that shape the question do not make a document relevant.
		{"numbers are no topic", "What payout do I get if I am laid off after three years?", agent.Document{
			Title: "Sabbatical", Content: "Every three years employees may take a 6-week paid sabbatical.", Route: agent.RouteVector,
		}, false, "only years"},
		{"vague words are not enough", "Can I take a cab to the client?", agent.Document{
			Title: "Trains", Content: "Take the train when the journey takes less than 5 hours.", Route: agent.RouteVector,
		}, false, "only take"},
		{"caps are no topic", "Is there a limit on gifts?", agent.Document{
			Title: "Hotels", Content: "Hotels are reimbursed up to a nightly limit.", Route: agent.RouteVector,
		}, false, "no keywords"},
		// The words must meet in one passage.
		{"together", "How long are audit trails stored?", agent.Document{
			Title: "Data policy",
			Content: "## Storage\nData is stored in Frankfurt. It is not replicated.\n" +
				"## Audit\nAudit logs are stored for 400 days.",
			Route: agent.RouteVector,
		}, true, "audit"},
		{"graph keyword", "Who are our suppliers?", graph, true, "suppliers"},
		{"graph entity", "Tell me about Globex", graph, true, "globex"},
		{"graph unrelated", "What is the weather?", graph, false, "none"},
	}
	b := testBrain()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := b.Grade(context.Background(), tt.question, tt.doc)
			if err != nil {
				t.Fatal(err)
			}
			if g.Relevant != tt.relevant || !strings.Contains(g.Reason, tt.reason) {
				t.Errorf("Grade(%q) = %v %q, want %v with reason containing %q", tt.question, g.Relevant, g.Reason, tt.relevant, tt.reason)
			}
		})
	}
}

// glossary is a list of short items without closing punctuation: they
// are what the document says, not headings of what follows.
var glossary = agent.Document{
	Title: "Release terms",
	Content: "## Words you will hear\n\nYou may hear these during a release.\n\n" +
		"* **Rollback** - \"Return to the last release that worked well for everyone\"\n" +
		"* **Canary** - \"A small first deploy\"\n",
	Route: agent.RouteVector,
}

// A glossary's entry is found and quoted; a word the question quotes is
// what it asks about: a document that has it is relevant though it says
// nothing of the rest of the scene, and the answer need not repeat the
// scene either.
func TestGlossaryAndQuotedWord(t *testing.T) {
	for _, q := range []string{
		"on a release call someone said 'canary', what does that mean?",
		"in the war room someone typed 'canary' to the pager, what's that mean?",
	} {
		g, err := testBrain().Grade(context.Background(), q, glossary)
		if err != nil || !g.Relevant {
			t.Fatalf("Grade(%q) = %+v, %v; want relevant", q, g, err)
		}
		ans, err := testBrain().Generate(context.Background(), agent.GenerateRequest{Question: q, Docs: []agent.Document{glossary}})
		if err != nil || !strings.Contains(ans, "A small first deploy") {
			t.Fatalf("Generate(%q) = %q, %v; want the canary item", q, ans, err)
		}
		v, err := testBrain().Check(context.Background(), q, ans, []agent.Document{glossary})
		if err != nil || !v.Answers {
			t.Errorf("Check(%q) = %+v, %v; want it to answer what 'canary' means", q, v, err)
		}
	}
	// An apostrophe is not a quote.
	if q := quotedIn("the IC's \"ship it\" wasn't clear", "ship it"); q != "ship it" {
		t.Errorf("quotedIn = %q", q)
	}
	if q := quotedIn("don't the IC's notes say?", "don t the IC s notes"); q != "" {
		t.Errorf("quotedIn = %q, want none", q)
	}
}
