package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

var (
	refundDoc = agent.Document{
		Title: "Refund policy",
		Content: "# Refunds\n" +
			"Customers can return unused items within 30 days of purchase for a full refund. " +
			"Refunds are paid to the original payment method within 5 business days. " +
			"Gift cards are not refundable.\n" +
			"# Shipping\n" +
			"We ship to 40 countries.",
		Route: agent.RouteVector,
	}
	officeDoc = agent.Document{
		Title:   "Offices",
		Content: "The Berlin office opens at 9. Visitors sign in at reception.",
		Route:   agent.RouteVector,
	}
	supplyDoc = agent.Document{
		Title:    "graph: suppliers of top customers",
		Location: "MATCH (s:Supplier)-[:SUPPLIES]->(c:Customer) RETURN s, c",
		Content: "Initech -[SUPPLIES]-> Acme Corp\n" +
			"Globex -[SUPPLIES]-> Acme Corp\n" +
			"Acme Corp -[LOCATED_IN]-> Berlin",
		Route: agent.RouteGraph,
	}
)

func TestGenerateQuotesAndCites(t *testing.T) {
	b := testBrain()
	docs := []agent.Document{officeDoc, refundDoc}
	ans, err := b.Generate(context.Background(), agent.GenerateRequest{Question: "How do refunds work?", Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"within 30 days of purchase for a full refund [2].",
		"within 5 business days [2].",
	} {
		if !strings.Contains(ans, want) {
			t.Errorf("answer lacks %q:\n%s", want, ans)
		}
	}
	if strings.Contains(ans, "[1]") || strings.Contains(ans, "Berlin") {
		t.Errorf("answer cites the unrelated document:\n%s", ans)
	}
	if strings.Count(ans, "[2]") > maxQuoted {
		t.Errorf("answer quotes more than %d sentences:\n%s", maxQuoted, ans)
	}
	v, err := b.Check(context.Background(), "How do refunds work?", ans, docs)
	if err != nil || !v.Grounded {
		t.Errorf("Check(own answer) = %+v, %v; want grounded", v, err)
	}
}

func TestGenerateNoDuplicates(t *testing.T) {
	b := testBrain()
	docs := []agent.Document{refundDoc, refundDoc}
	ans, err := b.Generate(context.Background(), agent.GenerateRequest{Question: "refund within 30 days?", Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(ans, "within 30 days of purchase"); n != 1 {
		t.Errorf("sentence quoted %d times:\n%s", n, ans)
	}
}

func TestGenerateGraphRows(t *testing.T) {
	b := testBrain()
	docs := []agent.Document{refundDoc, supplyDoc}
	ans, err := b.Generate(context.Background(), agent.GenerateRequest{Question: "Which suppliers are connected to Acme Corp?", Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		graphLeadIn,
		"- Initech -[SUPPLIES]-> Acme Corp [2]",
		"- Globex -[SUPPLIES]-> Acme Corp [2]",
		"- Acme Corp -[LOCATED_IN]-> Berlin [2]",
	} {
		if !strings.Contains(ans, want) {
			t.Errorf("answer lacks %q:\n%s", want, ans)
		}
	}
	v, err := b.Check(context.Background(), "", ans, docs)
	if err != nil || !v.Grounded {
		t.Errorf("Check(graph answer) = %+v, %v; want grounded", v, err)
	}
}

func TestGenerateExcludesUnsupported(t *testing.T) {
	b := testBrain()
	req := agent.GenerateRequest{
		Question:    "How do refunds work?",
		Docs:        []agent.Document{refundDoc},
		Unsupported: []string{"Refunds are paid to the original payment method within 5 business days."},
	}
	ans, err := b.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ans, "original payment method") {
		t.Errorf("answer repeats an unsupported claim:\n%s", ans)
	}
	if !strings.Contains(ans, "30 days") {
		t.Errorf("answer lost the supported sentence:\n%s", ans)
	}
}

func TestGenerateNothingScores(t *testing.T) {
	b := testBrain()
	docs := []agent.Document{refundDoc, officeDoc}
	ans, err := b.Generate(context.Background(), agent.GenerateRequest{Question: "What is the parking situation?", Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	want := noDirectAnswer + " [1][2]."
	if ans != want {
		t.Errorf("answer = %q, want %q", ans, want)
	}
	v, _ := b.Check(context.Background(), "", ans, docs)
	if !v.Grounded {
		t.Errorf("the no-direct-answer sentence should pass Check: %+v", v)
	}
	if ans, _ := b.Generate(context.Background(), agent.GenerateRequest{Question: "anything"}); ans != noDocuments {
		t.Errorf("no documents: %q", ans)
	}
}

func TestCite(t *testing.T) {
	for in, want := range map[string]string{
		"Refunds take 30 days.": "Refunds take 30 days [3].",
		"Refunds take 30 days!": "Refunds take 30 days [3]!",
		"Refunds take 30 days":  "Refunds take 30 days [3].",
		"Refunds take 30 days:": "Refunds take 30 days [3].",
		"  spaced out.  ":       "spaced out [3].",
		"":                      "[3]",
	} {
		if got := cite(in, 3); got != want {
			t.Errorf("cite(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGenerateJoinsWrappedListItems(t *testing.T) {
	doc := agent.Document{
		Title: "Data retention",
		Content: "## Deletion\n" +
			"- **Right to erasure:** a verified erasure request is completed **within\n" +
			"  30 days** of receipt. Erased data leaves backups later.\n" +
			"- Backups are kept for 35 days.",
		Route: agent.RouteVector,
	}
	ans, err := testBrain().Generate(context.Background(), agent.GenerateRequest{
		Question: "How long do we have to complete an erasure request?", Docs: []agent.Document{doc},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ans, "completed **within 30 days** of receipt [1].") {
		t.Errorf("answer does not quote the wrapped sentence whole:\n%s", ans)
	}
}

func TestGenerateQuotesTableRows(t *testing.T) {
	doc := agent.Document{
		Title: "Travel",
		Content: "## Hotels\n" +
			"| City | Limit per night |\n" +
			"|---|---|\n" +
			"| Amsterdam, Rotterdam | 180 EUR |\n" +
			"| London, Paris | 220 EUR |\n",
		Route: agent.RouteVector,
	}
	docs := []agent.Document{doc}
	q := "What is the hotel limit per night in London?"
	ans, err := testBrain().Generate(context.Background(), agent.GenerateRequest{Question: q, Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ans, "City: London, Paris; Limit per night: 220 EUR [1].") {
		t.Errorf("answer does not quote the table row:\n%s", ans)
	}
	if strings.Contains(ans, "|") {
		t.Errorf("answer quotes raw table markup:\n%s", ans)
	}
	if v, err := testBrain().Check(context.Background(), q, ans, docs); err != nil || !v.Grounded {
		t.Errorf("Check(own answer) = %+v, %v; want grounded", v, err)
	}
}

func TestBalanceBold(t *testing.T) {
	for in, want := range map[string]string{
		"kept **30 days** here":  "kept **30 days** here",
		"is completed **within":  "is completed within",
		"**a** and **b** and **": "a and b and",
	} {
		if got := balanceBold(in); got != want {
			t.Errorf("balanceBold(%q) = %q, want %q", in, got, want)
		}
	}
	if got := clipWords("a **bold phrase that goes on and on", 12); strings.Contains(got, "**") {
		t.Errorf("clipWords left an unbalanced **: %q", got)
	}
}
