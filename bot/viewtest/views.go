// Package viewtest holds the views the presenter's golden files are made
// of: one set, rendered by the words golden in bot/console and by the
// shape goldens of bot/slack and bot/discord, so that every platform is
// checked on the same answers.
package viewtest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
)

// View is a named view.
type View struct {
	Name string
	View bot.View
}

// Final is what the presenter makes of r, asked as question, for a View.
func Final(question string, r agent.Result) *bot.Final {
	f := bot.Present(question, r)
	return &f
}

// Words are the presenter's sentences with the names cmd/bot gives them
// (a test there keeps the two the same), as the agent words a run with
// them: the outcomes, notes and route switches of the set read as people
// read them.
var Words = bot.Words{Names: bot.Names{
	WebSearchKey: "TAVILY_API_KEY",
	ModelKey:     "OPENAI_API_KEY",
	ModelURL:     "OPENAI_BASE_URL",
	MaxTokens:    "OPENAI_MAX_TOKENS",
	IngestFiles:  "switchboard ingest PATH…",
	IngestChat:   "switchboard ingest slack|discord --channel ID",
	GraphImport:  "switchboard graph import NODES.csv EDGES.csv",
	ChatIngest:   "@Switchboard ingest this channel",
}}

// Views returns the set, in a fixed order.
func Views() []View {
	done := func(q string, r agent.Result) bot.View {
		r.Question = q
		return bot.View{AnswerID: "a1", Question: q, Done: true, Final: Final(q, r)}
	}
	// worded is done for a run the agent did not answer, or answered in
	// part: it words the outcome, or opens the answer with its note, as
	// the agent does with Words.
	worded := func(q string, r agent.Result) bot.View {
		r.Question = q
		switch {
		case r.Outcome != agent.OutcomeAnswered:
			r.Answer = Words.Outcome(r)
		case r.Partial || r.CutOff:
			r.Answer = Words.Note(r) + "\n\n" + r.Answer
		}
		return done(q, r)
	}
	refund := agent.Source{N: 1, Title: "Refund Policy", Section: "Eligibility", Location: "docs/refund-policy.md",
		URL: "https://github.com/acme/handbook/blob/main/refund-policy.md", Route: agent.RouteVector}
	billing := agent.Source{N: 2, Title: "Billing FAQ", Section: "Refunds · Payment times", Location: "docs/billing-faq.md", Route: agent.RouteVector}
	return []View{
		{"progress", bot.View{AnswerID: "a1", Question: "What is our refund policy?", Progress: "Nothing relevant yet — trying other words (2 of 3)…"}},
		{"draft", bot.View{AnswerID: "a1", Question: "What is our refund policy?", Progress: "Checking it against the sources…",
			Draft: "Customers get a **full refund** within 30 days of the invoice [1]. Refunds are paid <!here> within"}},
		{"draft-long", bot.View{AnswerID: "a1", Question: "Tell me everything", Progress: "Writing the answer…",
			Draft: strings.Repeat("A long paragraph about the policy that goes on [1]. ", 400)}},
		{"failed", bot.View{AnswerID: "a1", Question: "What is our refund policy?", Done: true, Failed: bot.TimeoutMessage}},
		{"vector-high", done("What is our refund policy?", agent.Result{
			Route: agent.RouteVector, RouteReason: "asks what a company policy says", Confidence: agent.ConfidenceHigh,
			Answer:  "Customers get a **full refund** within 30 days of the invoice [1]. Refunds are paid within 10 business days [2].\n\n- Annual plans: pro rata after 30 days [1]\n- Monthly plans: no refund after 30 days [1]",
			Sources: []agent.Source{refund, billing}})},
		{"vector-follow-up", done("and for annual plans?", agent.Result{
			Standalone: "What is the refund policy for annual plans?", Route: agent.RouteVector,
			RouteReason: "a follow-up about the refund policy", Confidence: agent.ConfidenceMedium, Rewrites: 1, Offline: true,
			OfflineReason: "no language model is configured",
			Answer:        "Annual plans are refunded pro rata for the unused months after 30 days [1].", Sources: []agent.Source{refund}})},
		{"graph", done("Which suppliers are connected to our top 3 customers?", agent.Result{
			Route: agent.RouteGraph, RouteReason: "asks how suppliers relate to customers", Confidence: agent.ConfidenceMedium,
			Answer: "Amberley Batteries, Cirrus Hosting and Kestrel Microsystems supply our top 3 customers [1].",
			Sources: []agent.Source{{N: 1, Title: "Knowledge graph", Route: agent.RouteGraph,
				Location: "MATCH (c:Customer)-[:BUYS]->(p:Product)<-[:SUPPLIES]-(s:Supplier)\nRETURN c.name, s.name LIMIT 25"}}})},
		{"graph-walk", done("Who supplies Halvorsen Freight?", agent.Result{
			Route: agent.RouteGraph, Confidence: agent.ConfidenceMedium, Offline: true, OfflineReason: "the language model isn't answering",
			Answer: "Amberley Batteries and Cirrus Hosting [1].",
			Sources: []agent.Source{{N: 1, Title: "Knowledge graph: neighbourhood of Halvorsen Freight", Route: agent.RouteGraph, Kind: agent.KindGraph,
				Location: "graph: Halvorsen Freight and what is connected to it, 2 steps out",
				Walk:     "Halvorsen Freight and what is connected to it, 2 steps out"}}})},
		{"web", done("What did the Fed announce this morning?", agent.Result{
			Route: agent.RouteWeb, RouteReason: "asks about current events", Confidence: agent.ConfidenceHigh,
			Answer: "The Fed held rates [1][2].",
			Sources: []agent.Source{
				{N: 1, Title: "Fed holds rates (Reuters)", Location: "https://example.com/fed?a=1&b=<2>", Route: agent.RouteWeb},
				{N: 2, Title: "FOMC statement", Location: "https://federalreserve.example/fomc", Route: agent.RouteWeb}}})},
		{"low-unverified", done("Is jury duty paid?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceLow, Regenerations: 2,
			Answer:      "Jury duty is paid leave for up to 10 days [1].",
			Unsupported: []string{"up to 10 days"}, Sources: []agent.Source{billing}})},
		{"partial", done("Is the parking garage open on Sundays?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceLow, Partial: true,
			Answer:  "I found related text but nothing that says whether it is open on Sundays. The garage is open 7:00–20:00 on weekdays [1].",
			Sources: []agent.Source{{N: 1, Title: "Parking", Location: "docs/parking.md", Route: agent.RouteVector}}})},
		{"cut-off", done("What is our refund policy?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceLow, CutOff: true, CutAtLimit: true, Regenerations: 2, CutOffs: 2,
			Answer:  bot.Words{}.Note(agent.Result{CutOff: true, CutAtLimit: true}) + "\n\nCustomers get a **full refund** within 30 days of the invoice [1]. After that, annual plans …",
			Sources: []agent.Source{refund}})},
		// Worded by the presenter itself, as for an agent without Words.
		{"no-answer", done("What is the office wifi password?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceNone, Offline: true, OfflineReason: "no language model is configured",
			Outcome: agent.OutcomeNotFound, Attempts: []agent.Attempt{
				{Route: agent.RouteVector, Query: "office wifi password", Found: 3},
				{Route: agent.RouteWeb, Skipped: agent.SkipNoWebFallback}}})},
		{"not-found", worded("What is the office wifi password?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceNone, Outcome: agent.OutcomeNotFound, Attempts: []agent.Attempt{
				{Route: agent.RouteVector, Query: "office wifi password", Found: 3},
				{Route: agent.RouteVector, Query: "wifi"},
				{Route: agent.RouteVector, Query: "wifi key", Found: 2, Relevant: 1},
				{Route: agent.RouteWeb, Query: "wifi", Skipped: agent.SkipWebFailed},
				{Route: agent.RouteWeb, Skipped: agent.SkipNoWebFallback}}})},
		{"not-found-untried", worded("What is the office wifi password?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceNone, Outcome: agent.OutcomeNotFound})},
		{"empty-knowledge-base", worded("What is our refund policy?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceNone, Outcome: agent.OutcomeEmptyKnowledgeBase})},
		{"no-draft", worded("What is our refund policy?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceNone, Outcome: agent.OutcomeNoDraft})},
		{"no-model", worded("Write me a poem about spring", agent.Result{
			Route: agent.RouteDirect, Confidence: agent.ConfidenceNone, Offline: true, OfflineReason: "no language model is configured",
			Outcome: agent.OutcomeNoModel})},
		{"partial-note", worded("Is the parking garage open on Sundays?", agent.Result{
			Route: agent.RouteGraph, RouteReason: Words.Switched(agent.RouteVector, agent.RouteGraph),
			Confidence: agent.ConfidenceLow, Partial: true, Missing: "whether it is open on Sundays",
			Answer:  "The garage is open 7:00–20:00 on weekdays [1].",
			Sources: []agent.Source{{N: 1, Title: "Knowledge graph", Route: agent.RouteGraph, Kind: agent.KindGraph, Location: "MATCH (g:Garage) RETURN g.hours"}}})},
		{"partial-unnamed", worded("Is the parking garage open on Sundays?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceLow, Partial: true,
			Answer:  "The garage is open 7:00–20:00 on weekdays [1].",
			Sources: []agent.Source{{N: 1, Title: "Parking", Location: "docs/parking.md", Route: agent.RouteVector}}})},
		{"cut-off-unfinished", worded("What is our refund policy?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceLow, CutOff: true, Regenerations: 2, CutOffs: 2,
			Answer: "Customers get a **full refund** within 30 days of the invoice [1]. After that, annual plans …", Sources: []agent.Source{refund}})},
		{"direct", done("What is 15% of 340?", agent.Result{
			Route: agent.RouteDirect, Confidence: agent.ConfidenceGeneral, Answer: "15% of 340 is **51**."})},
		{"hostile", done("<!channel> *bold* `code` & <https://evil.example|click>", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceMedium,
			Answer:  "Use `<!here>` carefully [1]. See <https://evil.example|this> & [that](javascript:alert(1)).\n```\n[1] inside code stays\n```",
			Sources: []agent.Source{{N: 1, Title: "A | title with `ticks` and *stars*", Section: "<b>", Location: "javascript:alert(1)", URL: "javascript:alert(1)", Route: agent.RouteVector}}})},
		{"planted", done("How do I reset my password?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceMedium, Answer: PlantedAnswer,
			Sources: []agent.Source{{N: 1, Title: PlantedDoc.Title, Location: PlantedURL, Route: agent.RouteVector}}})},
		{"long", done("Tell me everything", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceMedium,
			Answer:  strings.Repeat("A long paragraph about the policy that goes on [1]. ", 120),
			Sources: []agent.Source{refund}})},
	}
}

// Escalation is a named escalation (Ask an expert).
type Escalation struct {
	Name       string
	Escalation bot.Escalation
}

// Hostile is text a document or a model may write to ping people; no
// renderer may let it notify anyone.
const Hostile = "Ask <!channel> or <@U999> or <!subteam^S999> @everyone @here <@&123> <@!456> <#C1>"

// Escalations returns the escalations the renderers' goldens are made
// of: the channel's experts asked (a user and a group), the documents'
// owners (some with no chat account), nobody to ask, and one whose every
// text from a document or a model tries to ping people. Ids are given
// for both platforms: each renderer mentions those it can.
func Escalations() []Escalation {
	searched := []string{"Company documents, for “bike parking”: 4 found, 1 relevant", "The web, for “bike parking”: web search isn't set up here"}
	why := []string{"🔴 Low confidence — some of it couldn't be checked against the sources", bot.UnverifiedLabel + ": “Racks are free.”"}
	return []Escalation{
		{"experts", bot.Escalation{AnswerID: "a1", Asker: "U0ASKER", Mention: []string{"U0EXPERT", "S0TEAM", "123456789012345678", "&223456789012345678"},
			Question: "Where do I park my bike?", Searched: searched, Why: why}},
		{"owners", bot.Escalation{AnswerID: "a1", Asker: "323456789012345678", Owners: true, Mention: []string{"U0OWNER", "423456789012345678"},
			Unreachable: []string{"facilities@example.com", "@acme/bikes"}, Question: "Where do I park my bike?", Searched: searched, Why: why}},
		{"nobody", bot.Escalation{AnswerID: "a1", Asker: "U0ASKER", Owners: true, Question: "What is the wifi password?",
			Why: []string{"⚫ No answer found"}}},
		{"hostile", bot.Escalation{AnswerID: "a1", Asker: Hostile, Owners: true, Mention: []string{"<!channel>", "@everyone"},
			Unreachable: []string{Hostile}, Question: Hostile, Searched: []string{Hostile}, Why: []string{Hostile, bot.UnverifiedLabel + ": “" + Hostile + "”"}}},
	}
}

var update = flag.Bool("update", false, "rewrite the golden files with what the renderers produce now")

// Golden compares got with the file at path, or writes it with -update.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the renderer produces now (go test -update rewrites it):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
