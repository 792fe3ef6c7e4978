package discord

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const retentionQ = "What is our data retention policy?"

func renderCases() map[string]bot.View {
	long := strings.Repeat("Retention rules differ by region and by kind of data, and this paragraph says so at length. ", 30)
	code := "```go\n" + strings.Repeat("deleteAfter(customer, 24*time.Month) // per policy\n", 40) + "```"
	return map[string]bot.View{
		"progress": {AnswerID: "a1", Question: retentionQ, Status: []string{
			"Thinking…", "→ vector: a question about internal documents",
			`searched vector for "data retention policy": 3 found`, "2 of 3 relevant",
		}},
		"final_high": {AnswerID: "a2", Question: retentionQ, Done: true, Result: &agent.Result{
			Question: retentionQ, Route: agent.RouteVector, RouteReason: "a question about internal documents",
			Answer:     "Customer data is kept for 24 months after the contract ends [1]. For EU customers it is 12 months [2], and backups are purged after 90 days [3].",
			Confidence: agent.ConfidenceHigh,
			Sources: []agent.Source{
				{N: 1, Title: "Data retention policy", Location: "https://wiki.example.com/policies/retention", Route: agent.RouteVector},
				{N: 2, Title: "EU retention [GDPR]", Location: "docs/policies/eu-retention.md", Route: agent.RouteVector},
				{N: 3, Title: "#ops: backups", Location: "https://discord.com/channels/1/2/3", Route: agent.RouteVector},
			},
		}},
		"graph_cypher": {AnswerID: "a3", Question: "Who supplies Acme Corp?", Done: true, Result: &agent.Result{
			Question: "Who supplies Acme Corp?", Route: agent.RouteGraph, RouteReason: "Acme Corp is a known entity",
			Answer:     "From the knowledge graph:\n• Globex -[SUPPLIES]-> Acme Corp [1]\n• Initech -[SUPPLIES]-> Acme Corp [1]",
			Confidence: agent.ConfidenceMedium,
			Sources: []agent.Source{
				{N: 1, Title: "Knowledge graph query", Location: "MATCH (s:Company)-[:SUPPLIES]->(c:Company {name: 'Acme Corp'}) RETURN s.name LIMIT 50", Route: agent.RouteGraph},
				{N: 2, Title: "Knowledge graph: neighbourhood of Acme Corp", Location: "graph: Company entities (1 of 1) and their relations (1 hop)", Route: agent.RouteGraph},
			},
		}},
		"no_answer": {AnswerID: "a4", Question: "What is the office wifi password?", Done: true, Result: &agent.Result{
			Question: "What is the office wifi password?", Route: agent.RouteVector, RouteReason: "a question about internal documents",
			Answer:     "I couldn't find an answer to that. Here is what I tried:\n• vector search for \"office wifi password\": 3 found, 0 relevant\n• web search is not configured",
			Confidence: agent.ConfidenceNone,
		}},
		"low_confidence": {AnswerID: "a5", Question: retentionQ, Done: true, Result: &agent.Result{
			Question: retentionQ, Standalone: "What is our data retention policy for EU customers?",
			Route: agent.RouteVector, RouteReason: "a question about internal documents", Regenerations: 2,
			Answer:      "EU customer data is deleted after 12 months [1] and archived to tape for 10 years.",
			Confidence:  agent.ConfidenceLow,
			Unsupported: []string{"archived to tape for 10 years", "the *tape* archive is in Frankfurt"},
			Sources:     []agent.Source{{N: 1, Title: "EU retention", Location: "docs/policies/eu-retention.md", Route: agent.RouteVector}},
		}},
		"failed": {AnswerID: "a6", Question: retentionQ, Done: true, Failed: "I ran out of time answering this one."},
		"offline": {AnswerID: "a7", Question: "What is 2 + 2?", Done: true, Result: &agent.Result{
			Question: "What is 2 + 2?", Route: agent.RouteDirect, RouteReason: "arithmetic",
			Answer: "2 + 2 = 4", Confidence: agent.ConfidenceGeneral, Offline: true, OfflineReason: "no language model is configured",
		}},
		"long_split": {AnswerID: "a8", Question: "How does retention work everywhere?", Done: true, Result: &agent.Result{
			Question: "How does retention work everywhere?", Route: agent.RouteVector, RouteReason: "a question about internal documents",
			Answer:     long + "\n\n" + code + "\n\n" + long + "\n\nIn short: 24 months [1].",
			Confidence: agent.ConfidenceMedium,
			Sources:    []agent.Source{{N: 1, Title: "Data retention policy", Location: "https://wiki.example.com/policies/retention", Route: agent.RouteVector}},
		}},
	}
}

func TestEmbedsGolden(t *testing.T) {
	for name, v := range renderCases() {
		t.Run(name, func(t *testing.T) {
			msgs := Embeds(v)
			checkLimits(t, msgs)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // keep "->" readable in the golden files
			enc.SetIndent("", "  ")
			if err := enc.Encode(msgs); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			path := filepath.Join("testdata", name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the rendering (run go test -update to accept):\n%s", path, got)
			}
		})
	}
}

func TestEmbedsShape(t *testing.T) {
	cases := renderCases()
	if n := len(Embeds(cases["long_split"])); n < 2 {
		t.Errorf("long answer in %d message(s), want several", n)
	}
	for _, name := range []string{"final_high", "graph_cypher", "no_answer", "low_confidence", "offline"} {
		msgs := Embeds(cases[name])
		if len(msgs) != 1 {
			t.Errorf("%s: %d messages, want 1", name, len(msgs))
		}
		if ids := customIDs(msgs[len(msgs)-1]); len(ids) != 2 || ids[0] != voteUp+cases[name].AnswerID {
			t.Errorf("%s: buttons %q", name, ids)
		}
	}
	if ids := customIDs(Embeds(cases["failed"])[0]); len(ids) != 0 {
		t.Errorf("failed view has buttons %q", ids)
	}
	high := Embeds(cases["final_high"])[0].Embeds[0]
	src := high.Fields[0].Value
	for _, want := range []string{"[Data retention policy](https://wiki.example.com/policies/retention)", "`docs/policies/eu-retention.md`", "EU retention \\[GDPR\\]", "(https://discord.com/channels/1/2/3)"} {
		if !strings.Contains(src, want) {
			t.Errorf("sources lack %q:\n%s", want, src)
		}
	}
	if !strings.Contains(high.Footer.Text, "High confidence") {
		t.Errorf("footer %q lacks the badge", high.Footer.Text)
	}
	if g := Embeds(cases["graph_cypher"])[0].Embeds[0].Fields[0].Value; !strings.Contains(g, "```cypher\nMATCH (s:Company)") {
		t.Errorf("Cypher not shown as code:\n%s", g)
	}
	if f := Embeds(cases["offline"])[0].Embeds[0].Footer.Text; !strings.Contains(f, "offline mode") {
		t.Errorf("offline badge missing: %q", f)
	}
}

// TestEmbedsLimits renders views far beyond Discord's limits.
func TestEmbedsLimits(t *testing.T) {
	var sources []agent.Source
	for i := 1; i <= 60; i++ {
		sources = append(sources, agent.Source{N: i, Title: strings.Repeat("Very long title ", 30), Location: "https://example.com/" + strings.Repeat("x", 500), Route: agent.RouteVector})
	}
	huge := strings.Repeat("😀 emoji take two units each. ", 700)
	views := []bot.View{
		{Question: strings.Repeat("why ", 200), Status: []string{strings.Repeat("status ", 200)}},
		{Question: "q", Done: true, Result: &agent.Result{Answer: huge, Sources: sources, Confidence: agent.ConfidenceLow, Unsupported: []string{strings.Repeat("claim ", 400)}, RouteReason: strings.Repeat("r", 3000)}},
		{Question: "q", Done: true, Result: &agent.Result{Answer: strings.Repeat("x", 4096), Sources: sources[:12], Confidence: agent.ConfidenceHigh}},
		{Question: "q", Done: true, Result: &agent.Result{Answer: "", Confidence: agent.ConfidenceNone}},
		{Question: "q", Done: true, Failed: strings.Repeat("f", 5000)},
	}
	for i, v := range views {
		msgs := Embeds(v)
		if len(msgs) == 0 {
			t.Fatalf("view %d: no messages", i)
		}
		checkLimits(t, msgs)
	}
}

func checkLimits(t *testing.T, msgs []Message) {
	t.Helper()
	for i, m := range msgs {
		if units(m.Content) > maxContent {
			t.Errorf("message %d: content of %d", i, units(m.Content))
		}
		if len(m.Embeds) == 0 || len(m.Embeds) > maxEmbeds {
			t.Errorf("message %d: %d embeds", i, len(m.Embeds))
		}
		total := 0
		for j, e := range m.Embeds {
			total += size(e)
			if units(e.Title) > maxTitle || units(e.Description) > maxDescription || len(e.Fields) > maxFields {
				t.Errorf("message %d embed %d: title %d, description %d, %d fields", i, j, units(e.Title), units(e.Description), len(e.Fields))
			}
			if strings.Count(e.Description, "```")%2 != 0 {
				t.Errorf("message %d embed %d cuts a code fence", i, j)
			}
			for _, f := range e.Fields {
				if f.Name == "" || f.Value == "" || units(f.Name) > maxFieldName || units(f.Value) > maxFieldValue {
					t.Errorf("message %d embed %d: field %q of %d", i, j, f.Name, units(f.Value))
				}
			}
		}
		if total > maxEmbedTotal {
			t.Errorf("message %d: embeds total %d", i, total)
		}
		for _, id := range customIDs(m) {
			if len(id) > 100 {
				t.Errorf("message %d: custom_id of %d", i, len(id))
			}
		}
	}
}

func customIDs(m Message) []string {
	var ids []string
	for _, c := range m.Components {
		if row, ok := c.(discordgo.ActionsRow); ok {
			for _, b := range row.Components {
				if b, ok := b.(discordgo.Button); ok {
					ids = append(ids, b.CustomID)
				}
			}
		}
	}
	return ids
}
