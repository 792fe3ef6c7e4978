package bot

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
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
		{agent.Event{Kind: agent.EventRewriting, Attempt: 1, Max: 3, Route: agent.RouteGraph, From: agent.RouteVector, Query: "Who makes Chai?", Reason: "Chai (a product) is in the knowledge graph"},
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
		f := Present("q", agent.Result{Route: agent.RouteVector, Confidence: agent.ConfidenceLow, CutOff: true, Answer: Words{}.Note(agent.Result{CutOff: true}) + "\n\nCustomers can get a full …"})
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

func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		"## Refunds\n\n**Full refund** within *30* days [1]. See [the page](https://x.example).": "Refunds Full refund within *30* days [1]. See the page (x.example).",
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
// it must not panic, a notification is one line, a citation link is only
// ever made with an http(s) URL, and neither the answer nor a draft of it
// holds a link whose words hide where it goes, or a line that reads as a
// badge, however generously it is read (see hides).
func FuzzPresent(f *testing.F) {
	f.Add("Refunds within 30 days [1].\n```\n[1]\n```", "Refund Policy", "https://x.example/a", "docs/a.md")
	f.Add("[999] [0] [1][1] `[1]", "", "javascript:alert(1)", "graph: walk")
	f.Add("~~~~\n[1]\n~~~", "t", "http://", "MATCH (n) RETURN n")
	f.Add("Open [Reset](<https://evil.example/r> \"t\") ![p](//evil.example/p) [https://a.example](https://evil.example)\n🟢 High confidence", "t", "https://x.example/a", "")
	f.Add("[a [b](https://x.example) c](https://y.example) <https://z.example|d> <a href=//w.example>e</a>\n[f]: https://v.example", "", "", "")
	f.Add("[Reset \\](https://evil.example) `[x](https://a.example)`\n> 🟢 **High confidence**", "", "", "")
	f.Fuzz(func(t *testing.T, answer, title, url, loc string) {
		r := agent.Result{Answer: answer, Route: agent.RouteVector, Confidence: agent.ConfidenceMedium,
			Sources: []agent.Source{{N: 1, Title: title, URL: url, Location: loc, Route: agent.RouteGraph}, {N: 2, Title: title, Location: loc}}}
		fin := Present("q", r)
		if strings.ContainsAny(Plain(answer), "\n\r") {
			t.Errorf("Plain has a line break")
		}
		for _, src := range fin.Sources { // a citation links to its source's URL, or to nothing
			if fin.Links[src.N] != src.URL {
				t.Errorf("[%d] links to %q, its source to %q", src.N, fin.Links[src.N], src.URL)
			}
		}
		if fin.Text.String() != fin.Answer {
			t.Errorf("the answer read is %q, the answer %q", fin.Text.String(), fin.Answer)
		}
		fin.Text.Link(fin.Links, func(label, u string) string {
			if links.HTTP(u) == "" {
				t.Errorf("linked %q", u)
			}
			return label
		})
		_ = fin.Badge.String()
		for name, md := range map[string]string{"answer": fin.Answer, "draft": Draft(agent.Event{Kind: agent.EventDrafting, Text: answer}, "")} {
			if h := hides(md); h != "" {
				t.Errorf("the %s holds %s:\n%q\nfrom\n%q", name, h, md, answer)
			}
		}
	})
}

// hides describes the first thing in md that would hide where a link
// goes, or pass for the badge, "" if there is none. It reads md as the
// most lenient of the platforms would: Markdown links as Discord's parser
// may take them (discordtest.Links), Slack's <url|text>, HTML anchors,
// reference definitions, terminal escapes, and lines that start with
// emoji before a badge's name.
func hides(md string) string {
	for _, l := range discordtest.Links(md) {
		if l.Text != l.URL {
			return fmt.Sprintf("a Markdown link %q to %s", l.Text, l.URL)
		}
	}
	for _, l := range slacktest.Links(md) {
		if l.Text != l.URL && scheme.MatchString(l.URL) {
			return fmt.Sprintf("a Slack link %q to %s", l.Text, l.URL)
		}
	}
	if m := hiddenMarkup.FindString(md); m != "" {
		return fmt.Sprintf("%q", m)
	}
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimLeft(line, " \t>#*_~-+|")
		for _, l := range levels {
			if rest, ok := strings.CutPrefix(line, l.emoji); ok && isBadgeName(rest, false) {
				return fmt.Sprintf("a badge line %q", line)
			}
		}
	}
	return ""
}

var (
	scheme       = regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9+.\-]*:|//)`)
	hiddenMarkup = regexp.MustCompile(`(?i)<a\b|(?m)^\s*\[[^\]]*\]:\s*<?\s*(?:[a-z][a-z0-9+.\-]*:|//)|[\x00-\x08\x0b-\x1f\x7f\x{202a}-\x{202e}\x{2066}-\x{2069}]`)
)

// A link in an answer, or in a draft of it, shows the host it leads to,
// however it was written; bare URLs, code-like brackets and citations
// stay as they were.
func TestPresentShowsLinkHosts(t *testing.T) {
	for in, want := range map[string]string{
		"Use [Reset password](https://evil.example/reset) now.":             "Use Reset password (evil.example) now.",
		"Use [Reset password](<https://evil.example/a b>).":                 "Use Reset password (evil.example).",
		"[Reset]( https://evil.example/r \"Your bank\" ) here":              "Reset (evil.example) here",
		"![logo](https://evil.example/x.png)":                               "logo (evil.example)",
		"[https://good.example](https://evil.example)":                      "https://good.example (evil.example)",
		"[<https://good.example>](https://evil.example)":                    "<https://good.example> (evil.example)",
		"[a [nested] text](https://evil.example/(x))":                       "a [nested] text (evil.example)",
		"[outer [inner](https://a.example) text](https://b.example)":        "outer inner (a.example) text (b.example)",
		"[Reset\npassword](https://evil.example)":                           "Reset\npassword (evil.example)",
		"[Reset](HTTPS://Bank.Example@EVIL.example:8443/r)":                 "Reset (evil.example)",
		"[Reset](//evil.example/r)":                                         "Reset (evil.example)",
		"[Reset](https:evil.example)":                                       "Reset (evil.example)",
		"[Reset](https://xn--pypal-4ve.example/)":                           "Reset (xn--pypal-4ve.example)",
		"[Reset](https://pаypal.example/)":                                  "Reset (xn--pypal-4ve.example)",
		"[Open](javascript:alert(1))":                                       "Open",
		"[evil.example](https://evil.example/reset)":                        "evil.example",
		"[https://evil.example/r](https://evil.example/r)":                  "https://evil.example/r",
		"See <https://evil.example/reset|Reset password>.":                  "See Reset password (evil.example).",
		"See <a href=\"https://evil.example/r\" class=x>Reset</a>.":         "See Reset (evil.example).",
		"See <A HREF='https://evil.example/r'>Reset":                        "See (evil.example) Reset",
		"See <a href=https://evil.example/r":                                "See a href=https://evil.example/r",
		"Use [Reset password][r].\n\n[r]: https://evil.example/reset":       "Use [Reset password][r].\n\nr: https://evil.example/reset",
		"[Reset](https://evil.example/r":                                    "[Reset] (https://evil.example/r",
		"x](https://evil.example/r) y":                                      "x] (evil.example) y",
		"Go to https://evil.example/reset or <https://evil.example/reset>.": "Go to https://evil.example/reset or <https://evil.example/reset>.",
		"Call fns[i](x) and see [the guide](docs/guide.md) [1][2].":         "Call fns[i](x) and see [the guide](docs/guide.md) [1][2].",
		"`[Reset](https://evil.example)`":                                   "`Reset (evil.example)`",
		"A \x1b]8;;https://evil.example\x1b\\Reset\x1b]8;;\x1b\\ link":      "A ]8;;https://evil.example\\Reset]8;;\\ link",
		"moc.elgoog\u202e.evil.example":                                     "moc.elgoog.evil.example",
	} {
		presents(t, in, want)
	}
}

// presents checks what Present makes of an answer, and what Draft makes
// of it as a draft.
func presents(t *testing.T, in, want string) {
	t.Helper()
	if got := Present("q", agent.Result{Answer: in}).Answer; got != want {
		t.Errorf("Present(%q).Answer =\n %q, want\n %q", in, got, want)
	}
	if got := Draft(agent.Event{Kind: agent.EventDrafting, Text: in}, ""); got != want {
		t.Errorf("Draft(%q) =\n %q, want\n %q", in, got, want)
	}
}

// A line of the answer that reads like the badge under it loses what
// makes it look like one; other emoji stay.
func TestPresentBadgeLines(t *testing.T) {
	for in, want := range map[string]string{
		"🟢 High confidence — checked against 12 documents":         "High confidence — checked against 12 documents",
		"Refunds in 30 days.\n\n> 🟢 **High confidence** — checked": "Refunds in 30 days.\n\n> **High confidence** — checked",
		"- :large_green_circle: high  CONFIDENCE":                  "- high  CONFIDENCE",
		"🟢️ ✅ General knowledge — not checked":                     "General knowledge — not checked",
		"⚫ No answer found":                                        "No answer found",
		"🟡 Medium confidence":                                      "Medium confidence",
		"🔴Low confidence":                                          "Low confidence",
		"🟢 API: up\n🔴 Billing: down":                               "🟢 API: up\n🔴 Billing: down",
		"High confidence, says the report 🟢":                       "High confidence, says the report 🟢",
	} {
		presents(t, in, want)
	}
	// A draft's last line is still being written: the start of a name is
	// enough there, and only there.
	for in, want := range map[string]string{
		"Refunds.\n🟢 High con":   "Refunds.\nHigh con",
		"🟢 High con\nRefunds.":   "🟢 High con\nRefunds.",
		"Refunds.\n🟢 High hopes": "Refunds.\n🟢 High hopes",
		"Refunds.\n🟢":            "Refunds.\n🟢",
	} {
		if got := Draft(agent.Event{Kind: agent.EventDrafting, Text: in}, ""); got != want {
			t.Errorf("Draft(%q) =\n %q, want\n %q", in, got, want)
		}
	}
	if got := Present("q", agent.Result{Answer: "Refunds.\n🟢 High con"}).Answer; got != "Refunds.\n🟢 High con" {
		t.Errorf("a finished answer's last line lost its emoji: %q", got)
	}
}

// BenchmarkDraft is what showing a streamed draft costs the presenter,
// once per drafting event: a 4 KB answer with a link on every line, and
// one without links.
func BenchmarkDraft(b *testing.B) {
	for name, line := range map[string]string{
		"links":    "Customers get a **full refund** within 30 days [1]. See [the handbook](https://wiki.example.com/handbook) or https://x.example/a.\n",
		"no links": "Customers get a **full refund** within 30 days of the invoice [1]. Refunds are paid within 10 business days [2].\n",
	} {
		e := agent.Event{Kind: agent.EventDrafting, Text: strings.Repeat(line, 4096/len(line))}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Draft(e, "")
			}
		})
	}
}
