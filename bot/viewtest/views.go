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

// Views returns the set, in a fixed order.
func Views() []View {
	done := func(q string, r agent.Result) bot.View {
		r.Question = q
		return bot.View{AnswerID: "a1", Question: q, Done: true, Final: Final(q, r)}
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
		{"no-answer", done("What is the office wifi password?", agent.Result{
			Route: agent.RouteVector, Confidence: agent.ConfidenceNone, Offline: true, OfflineReason: "no language model is configured",
			Answer: "I couldn't find an answer to that. Here is what I tried:\n• Company documents, for “office wifi password”: 3 found, none relevant\n• no web fallback: web search isn't set up here"})},
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
