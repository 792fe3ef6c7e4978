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
		if got := citeSentence(in, 3); got != want {
			t.Errorf("citeSentence(%q) = %q, want %q", in, got, want)
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

// A sentence that ends in a colon is completed by the list after it: the
// item that answers need not repeat the question's words, the lead does.
func TestGenerateCompletesAListsLead(t *testing.T) {
	doc := agent.Document{
		Title: "Badge office",
		Content: "## Readers\n\nThe office hands out a few kinds of card readers for laptops:\n\n" +
			"- A folding \"clamshell\" reader\n" +
			"- A small plug-in reader that stays in the port\n\n" +
			"Return a broken reader to the front desk.",
		Route: agent.RouteVector,
	}
	ans, err := testBrain().Generate(context.Background(), agent.GenerateRequest{
		Question: "which kinds of card readers does the office hand out?", Docs: []agent.Document{doc},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ans, "clamshell") || !strings.Contains(ans, "plug-in reader") {
		t.Errorf("answer does not quote the list the lead opens:\n%s", ans)
	}
}

func TestGenerateQuotesTableRows(t *testing.T) {
	doc := agent.Document{
		Title: "Travel",
		// Tables as ingest stores them: a row a line, with its columns.
		Content: "## Hotels\n" +
			"- City: Amsterdam, Rotterdam · Limit per night: 180 EUR. Breakfast included.\n" +
			"- City: London, Paris · Limit per night: 220 EUR. Breakfast included.\n",
		Route: agent.RouteVector,
	}
	docs := []agent.Document{doc}
	q := "What is the hotel limit per night in London?"
	ans, err := testBrain().Generate(context.Background(), agent.GenerateRequest{Question: q, Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ans, "City: London, Paris · Limit per night: 220 EUR. Breakfast included [1].") {
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
	if got := clipQuote("a **bold phrase that goes on and on", 12); strings.Contains(got, "**") {
		t.Errorf("clipQuote left an unbalanced **: %q", got)
	}
}

// scoreSentences ranks the sentence that answers above the one that only
// shares words with the question.
func TestScoreSentencesPrefersTheAnswer(t *testing.T) {
	for _, tt := range []struct {
		name, question, content string
		better, worse           string // prefixes of two sentences
	}{
		{"the kind asked for", "How long are backups kept?",
			"Backups are kept encrypted in the region of their data. Backups are kept for 35 days.",
			"Backups are kept for", "Backups are kept encrypted"},
		{"a synonym", "How many automobiles fit in the garage?",
			"Bikes: 20 fit in the garage. Cars: 12 fit in the garage.",
			"Cars: 12", "Bikes: 20"},
		{"the number asked about", "Is there anything special when I hit ten years at the company?",
			"The company was founded by two people. When you celebrate your 10th anniversary with the company, you get 10 bonus shares.",
			"When you celebrate", "The company was"},
		{"the name asked about", "How many weeks of paid leave do mothers get in New Jersey?",
			"## Oregon\nMothers get paid leave for up to 12 weeks.\n## New Jersey\nThe state pays mothers for up to 24 weeks.",
			"The state pays", "Mothers get paid leave"},
		{"a sentence that goes on", "How many weeks of maternity coverage can a new mother get?",
			"Maternity coverage has two programs for new mothers and newborn bonding. Together, these programs provide up to 24 weeks. New fathers can take paid family leave.",
			"Together, these programs", "New fathers can take"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := agent.Document{Title: "Policy", Content: tt.content, Route: agent.RouteVector}
			cands := scoreSentences(0, d, keywords(tt.question), focusOf(tt.question), nil)
			score := func(prefix string) float64 {
				for _, c := range cands {
					if strings.HasPrefix(c.text, prefix) {
						return c.score
					}
				}
				t.Fatalf("no candidate %q among %+v", prefix, cands)
				return 0
			}
			if b, w := score(tt.better), score(tt.worse); b <= w {
				t.Errorf("%q scores %.3f, not above %q at %.3f", tt.better, b, tt.worse, w)
			}
		})
	}
}
