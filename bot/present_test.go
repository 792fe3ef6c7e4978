package bot

import (
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/links"
)

func TestProgressLines(t *testing.T) {
	cases := []struct {
		e    agent.Event
		want string // "" means no line
	}{
		{agent.Event{Kind: agent.EventRouted, Route: agent.RouteVector, Reason: "asks about docs"}, "Searching company documents…"},
		{agent.Event{Kind: agent.EventRouted, Route: agent.RouteGraph}, "Searching the knowledge graph…"},
		{agent.Event{Kind: agent.EventRouted, Route: agent.RouteDirect}, "Thinking…"},
		{agent.Event{Kind: agent.EventRetrieved, Route: agent.RouteVector, Total: 6}, ""},
		{agent.Event{Kind: agent.EventGraded, Count: 0, Total: 6}, ""},
		{agent.Event{Kind: agent.EventGraded, Count: 2, Total: 6}, "Found 2 relevant passages…"},
		{agent.Event{Kind: agent.EventRewriting, Attempt: 2, Max: 3, Route: agent.RouteVector, Query: "carry over vacation"},
			"Nothing relevant yet — trying other words (2 of 3)…"},
		{agent.Event{Kind: agent.EventRewriting, Attempt: 1, Max: 3, Route: agent.RouteGraph, Query: "Who makes Chai?", Reason: "Chai (a product) is in the knowledge graph"},
			"Nothing relevant yet — trying the knowledge graph instead (1 of 3)…"},
		{agent.Event{Kind: agent.EventGenerating, Total: 3}, "Writing the answer…"},
		{agent.Event{Kind: agent.EventChecking}, "Checking it against the sources…"},
		{agent.Event{Kind: agent.EventRegenerating, Attempt: 1, Max: 2, Reason: "the answer does not say whether jury duty is paid"},
			"Rewriting the answer to keep to the sources (1 of 2)…"},
		{agent.Event{Kind: agent.EventRegenerating, Attempt: 1, Max: 2, Reason: "the reply was cut off", Err: &agent.CutOffError{AtLimit: true}},
			"The answer was cut off — writing it again (1 of 2)…"},
		{agent.Event{Kind: agent.EventDegraded, Reason: "the language model isn't answering", Detail: "dial tcp: connection refused"},
			"The language model isn't answering — carrying on offline…"},
		{agent.Event{Kind: agent.EventDegraded, Reason: "this workspace has used today's model budget, which renews in 3 h",
			Detail: "This workspace has used today's model budget, so I'm answering in offline mode until it renews in 3 h."},
			"This workspace has used today's model budget, which renews in 3 h — carrying on offline…"},
		{agent.Event{Kind: agent.EventNotice, Reason: "web search isn't set up here", Detail: "set TAVILY_API_KEY"}, "Web search isn't set up here."},
	}
	for _, c := range cases {
		got, ok := Progress(c.e)
		if ok != (c.want != "") || got != c.want {
			t.Errorf("Progress(%s) = %q, %v; want %q", c.e.Kind, got, ok, c.want)
		}
		if strings.Contains(got, c.e.Detail) && c.e.Detail != "" {
			t.Errorf("Progress(%s) shows the private detail: %q", c.e.Kind, got)
		}
	}
}

func TestPresent(t *testing.T) {
	file := agent.Source{N: 1, Title: "Refund Policy", Location: "docs/refund-policy.md", Route: agent.RouteVector}
	t.Run("understood only when changed", func(t *testing.T) {
		for q, want := range map[string]string{
			"What is our refund policy?": "",
			"what is our refund policy":  "",
			"and for annual plans?":      "What is our refund policy?",
		} {
			f := Present(q, agent.Result{Question: q, Standalone: "What is our refund policy?", Route: agent.RouteVector})
			if f.Understood != want {
				t.Errorf("%q: understood %q, want %q", q, f.Understood, want)
			}
		}
	})
	t.Run("badge counts documents", func(t *testing.T) {
		dup := file
		dup.N = 2 // an older stored answer listing one file twice
		f := Present("q", agent.Result{Route: agent.RouteVector, Confidence: agent.ConfidenceMedium, Sources: []agent.Source{file, dup}})
		if len(f.Sources) != 1 || !strings.Contains(f.Badge.Text, "a single document") {
			t.Errorf("sources %+v, badge %q", f.Sources, f.Badge.Text)
		}
	})
	t.Run("partial and offline", func(t *testing.T) {
		b := Present("q", agent.Result{Confidence: agent.ConfidenceLow, Partial: true, Offline: true, OfflineReason: "no language model is configured."}).Badge
		if b.String() != "🔴 Low confidence — the sources are related but don't answer the question · answered offline: no language model is configured" {
			t.Errorf("badge = %q", b.String())
		}
	})
	t.Run("a cut-off written again is no caveat", func(t *testing.T) {
		for _, c := range []struct {
			regens, cutOffs int
			want            string
		}{
			{1, 1, "🟡 Medium confidence — checked against a single document"},
			{2, 1, "🟡 Medium confidence — checked against a single document, rewritten once to keep to them"},
		} {
			r := agent.Result{Route: agent.RouteVector, Confidence: agent.ConfidenceMedium, Sources: []agent.Source{file},
				Regenerations: c.regens, CutOffs: c.cutOffs}
			if b := Present("q", r).Badge.String(); b != c.want {
				t.Errorf("%d regenerations, %d after a cut-off: badge %q, want %q", c.regens, c.cutOffs, b, c.want)
			}
		}
	})
	t.Run("cut off", func(t *testing.T) {
		f := Present("q", agent.Result{Route: agent.RouteVector, Confidence: agent.ConfidenceLow, CutOff: true, Answer: agent.CutOffNote(false) + "\n\nCustomers can get a full …"})
		if !f.CutOff || f.Badge.String() != "🔴 Low confidence — the answer was cut off and wasn't checked against the sources" ||
			!strings.HasPrefix(f.Answer, "This answer was cut off: the language model's reply stopped") {
			t.Errorf("final %+v", f)
		}
	})
	t.Run("links", func(t *testing.T) {
		srcs := []agent.Source{
			{N: 1, Title: "Web", Location: "https://example.com/a", Route: agent.RouteWeb},
			{N: 2, Title: "Evil", Location: "javascript:alert(1)", URL: "javascript:alert(1)", Route: agent.RouteVector},
			{N: 3, Title: "Doc", Location: "docs/x.md", URL: "https://git.example/x.md", Route: agent.RouteVector},
		}
		f := Present("q", agent.Result{Sources: srcs, Route: agent.RouteVector})
		if f.Sources[0].URL != "https://example.com/a" || f.Sources[1].URL != "" || f.Sources[2].URL != "https://git.example/x.md" || f.Sources[2].Where != "" {
			t.Errorf("sources = %+v", f.Sources)
		}
	})
}

func TestLinkCitations(t *testing.T) {
	srcs := []SourceLine{{N: 1, URL: "https://a.example"}, {N: 2}}
	link := func(label, url string) string { return "<" + url + "|" + label + ">" }
	in := "One [1], two [2], none [3].\n`code [1]`\n```\n[1] in a block\n```\nAfter [1]"
	want := "One <https://a.example|[1]>, two [2], none [3].\n`code [1]`\n```\n[1] in a block\n```\nAfter <https://a.example|[1]>"
	if got := LinkCitations(in, srcs, link); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		"## Refunds\n\n**Full refund** within *30* days [1]. See [the page](https://x.example).": "Refunds Full refund within *30* days [1]. See the page.",
		"- one\n- two":                      "• one • two",
		"```go\nfmt.Println(1)\n```\nDone.": "fmt.Println(1) Done.",
		"":                                  "",
	} {
		if got := Plain(in); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzPresent feeds model-written answers and sources to the presenter:
// it must not panic, a notification is one line, and a citation link is
// only ever made with an http(s) URL.
func FuzzPresent(f *testing.F) {
	f.Add("Refunds within 30 days [1].\n```\n[1]\n```", "Refund Policy", "https://x.example/a", "docs/a.md")
	f.Add("[999] [0] [1][1] `[1]", "", "javascript:alert(1)", "graph: walk")
	f.Add("~~~~\n[1]\n~~~", "t", "http://", "MATCH (n) RETURN n")
	f.Fuzz(func(t *testing.T, answer, title, url, loc string) {
		r := agent.Result{Answer: answer, Route: agent.RouteVector, Confidence: agent.ConfidenceMedium,
			Sources: []agent.Source{{N: 1, Title: title, URL: url, Location: loc, Route: agent.RouteGraph}, {N: 2, Title: title, Location: loc}}}
		fin := Present("q", r)
		if strings.ContainsAny(Plain(answer), "\n\r") {
			t.Errorf("Plain has a line break")
		}
		LinkCitations(fin.Answer, fin.Sources, func(label, u string) string {
			if links.HTTP(u) == "" {
				t.Errorf("linked %q", u)
			}
			return label
		})
		_ = fin.Badge.String()
	})
}
