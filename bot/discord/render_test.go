package discord

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/bot/viewtest"
)

// views is the shared set by name.
func views() map[string]bot.View {
	m := map[string]bot.View{}
	for _, c := range viewtest.Views() {
		m[c.Name] = c.View
	}
	return m
}

// TestEmbedsGolden is the shape of every view of the shared set (the
// words are bot/console's golden).
func TestEmbedsGolden(t *testing.T) {
	for _, c := range viewtest.Views() {
		t.Run(c.Name, func(t *testing.T) {
			golden(t, filepath.Join("testdata", c.Name+".json"), Embeds(c.View))
		})
	}
}

// TestPrivateAndSharedGolden is the shape of a private answer, with its
// Share button, and of the answer shared in the channel: one message and
// several, and a failed private view, which has nothing to share.
func TestPrivateAndSharedGolden(t *testing.T) {
	cases := views()
	for _, name := range []string{"vector-high", "long", "failed"} {
		t.Run(name, func(t *testing.T) {
			v := cases[name]
			golden(t, filepath.Join("testdata", "private", name+".json"), Private(v, true))
			if v.Final != nil {
				golden(t, filepath.Join("testdata", "shared", name+".json"), Shared(v, "<@U1>"))
			}
		})
	}
}

// golden checks msgs against Discord's limits and the golden file.
func golden(t *testing.T, path string, msgs []Message) {
	t.Helper()
	checkLimits(t, msgs)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(msgs); err != nil {
		t.Fatal(err)
	}
	viewtest.Golden(t, path, buf.Bytes())
}

func TestEmbedsShape(t *testing.T) {
	cases := views()
	embeds := 0
	for _, m := range Embeds(cases["long"]) {
		embeds += len(m.Embeds)
	}
	if embeds < 2 {
		t.Errorf("long answer in %d embed(s), want several", embeds)
	}
	for _, name := range []string{"vector-high", "graph", "no-answer", "low-unverified", "direct"} {
		msgs := Embeds(cases[name])
		if len(msgs) != 1 {
			t.Errorf("%s: %d messages, want 1", name, len(msgs))
		}
		// A low answer or none offers Ask an expert by the votes.
		want := 2
		if f := cases[name].Final; f.Badge.Level == bot.LevelLow || f.Badge.Level == bot.LevelNone {
			want = 3
		}
		if ids := customIDs(msgs[len(msgs)-1]); len(ids) != want || ids[0] != voteUp+cases[name].AnswerID ||
			(want == 3 && ids[2] != expertPrefix+cases[name].AnswerID) {
			t.Errorf("%s: buttons %q", name, ids)
		}
	}
	if ids := customIDs(Embeds(cases["failed"])[0]); len(ids) != 0 {
		t.Errorf("failed view has buttons %q", ids)
	}
	high := Embeds(cases["vector-high"])[0].Embeds[0]
	src := high.Fields[0].Value
	for _, want := range []string{"[Refund Policy](https://github.com/acme/handbook/blob/main/refund-policy.md) · _Eligibility_", "`docs/billing-faq.md`"} {
		if !strings.Contains(src, want) {
			t.Errorf("sources lack %q:\n%s", want, src)
		}
	}
	// A citation whose source has a link is one; the others stay text.
	if d := high.Description; !strings.Contains(d, "\\[[1](https://github.com/acme/handbook/blob/main/refund-policy.md)\\]") || !strings.Contains(d, "days [2].") {
		t.Errorf("citations not linked as they should be:\n%s", d)
	}
	if !strings.Contains(high.Footer.Text, "High confidence — checked against 2 documents") {
		t.Errorf("footer %q lacks the badge", high.Footer.Text)
	}
	if g := Embeds(cases["graph"])[0].Embeds[0].Fields[0].Value; !strings.Contains(g, "```cypher\nMATCH (c:Customer)") {
		t.Errorf("Cypher not shown as code:\n%s", g)
	}
	if f := Embeds(cases["vector-follow-up"])[0].Embeds[0].Footer.Text; !strings.Contains(f, "answered offline: no language model is configured") {
		t.Errorf("offline badge missing: %q", f)
	}
	// A link that is not http(s) never becomes one.
	for _, m := range Embeds(cases["hostile"]) {
		for _, e := range m.Embeds {
			for _, f := range e.Fields {
				if strings.Contains(f.Value, "](javascript:") {
					t.Errorf("javascript: link in %q", f.Value)
				}
			}
		}
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
		{Question: strings.Repeat("why ", 200), Progress: strings.Repeat("status ", 200)},
		{Question: "q", Done: true, Final: viewtest.Final("q", agent.Result{Answer: huge, Sources: sources, Confidence: agent.ConfidenceLow, Unsupported: []string{strings.Repeat("claim ", 400)}, RouteReason: strings.Repeat("r", 3000)})},
		{Question: "q", Done: true, Final: viewtest.Final("q", agent.Result{Answer: strings.Repeat("x", 4096), Sources: sources[:12], Confidence: agent.ConfidenceHigh})},
		{Question: "q", Done: true, Final: viewtest.Final("q", agent.Result{Answer: "", Confidence: agent.ConfidenceNone})},
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

// FuzzEmbeds renders what a model or a document may write, as an answer
// and as its draft, with a source of any title and link: nothing may
// panic, and Discord's Markdown, read as generously as discordtest.Links reads it, shows no
// link but the bot's own (a citation's number or a source's title, to
// the source) whose words are not where it goes.
func FuzzEmbeds(f *testing.F) {
	f.Add("Refunds in 30 days [1][2].", "Refund Policy", "https://a.example/r")
	f.Add("Open [Reset [1](https://evil.example/r) or [see [1]\n🟢 High confidence", "x](https://evil.example) [y", "https://a.example/(x)")
	f.Add("[a [1] b](https://evil.example) `[1]` \\`[x [1]", "[Draft] Policy", "https://a.example/t")
	f.Fuzz(func(t *testing.T, md, title, url string) {
		done := bot.View{Done: true, AnswerID: "a1", Question: "q", Final: viewtest.Final("q", agent.Result{Answer: md, Route: agent.RouteVector,
			Confidence: agent.ConfidenceMedium, Sources: []agent.Source{{N: 1, Title: title, URL: url, Location: "docs/a.md"},
				{N: 2, Title: "Web", Location: url, Route: agent.RouteWeb}}})}
		draft := bot.View{Question: "q", Progress: "Writing the answer…", Draft: bot.Draft(agent.Event{Kind: agent.EventDrafting, Text: md}, "")}
		sources := done.Final.Sources
		for _, m := range append(Embeds(done), Embeds(draft)...) {
			for _, e := range m.Embeds {
				texts := []string{e.Description}
				for _, fl := range e.Fields {
					texts = append(texts, fl.Value)
				}
				for _, s := range texts {
					for _, l := range discordtest.Links(s) {
						if l.Text != l.URL && !own(l, sources) {
							t.Errorf("links %q to %s:\n%s", l.Text, l.URL, s)
						}
					}
				}
			}
		}
	})
}

// own reports whether l is a link the bot makes: to a source, reading its
// citation's number or its title (shortened, escaped).
func own(l discordtest.Link, sources []bot.SourceLine) bool {
	for _, s := range sources {
		if s.URL == "" || l.URL != linkURL(s.URL) {
			continue
		}
		title := strings.TrimSuffix(unescape.ReplaceAllString(l.Text, "$1"), "…")
		// A citation keeps its digits as written: "[01]" cites source 1.
		if n, err := strconv.Atoi(l.Text); (err == nil && n == s.N && strings.Trim(l.Text, "0123456789") == "") || (title != "" && strings.HasPrefix(linkText(s.Title), title)) {
			return true
		}
	}
	return false
}

// unescape undoes Markdown's backslash escapes.
var unescape = regexp.MustCompile(`\\([[:punct:]])`)

// TestEscalationGolden is the shape of every escalation of the shared
// set, with its allowed_mentions: only the experts or owners that are
// Discord ids are notified, read as Discord reads the message.
func TestEscalationGolden(t *testing.T) {
	for _, c := range viewtest.Escalations() {
		t.Run(c.Name, func(t *testing.T) {
			m, allowed := Escalation(c.Escalation)
			golden(t, filepath.Join("testdata", "escalation", c.Name+".json"), []Message{m})
			am, _ := json.Marshal(allowed)
			viewtest.Golden(t, filepath.Join("testdata", "escalation", c.Name+".allowed.json"), append(am, '\n'))
			wire := discordtest.Message{Content: m.Content, AllowedMentions: am}
			users, roles, everyone := wire.Pings()
			want := map[string][2][]string{
				"experts": {{"123456789012345678"}, {"223456789012345678"}},
				"owners":  {{"423456789012345678"}, nil},
			}[c.Name]
			if !equal(users, want[0]) || !equal(roles, want[1]) || everyone {
				t.Errorf("notifies users %v, roles %v, everyone %v; want %v", users, roles, everyone, want)
			}
			if strings.Contains(m.Content, "@everyone") || strings.Contains(m.Content, "@here") {
				t.Errorf("the content reads as a mass mention: %s", m.Content)
			}
		})
	}
}

func equal(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// FuzzParseExpert reads Ask an expert's custom_id, which a client sends
// back as it likes: a press read names an answer.
func FuzzParseExpert(f *testing.F) {
	for _, s := range []string{"expert:a1", "expert:voted:a1", "expert:", "expert:voted:", "vote:up:a", "save:a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		answer, voted, ok := parseExpert(id)
		if ok && (answer == "" || !strings.HasPrefix(id, expertPrefix) || !strings.HasSuffix(id, answer)) {
			t.Errorf("parseExpert(%q) = %q, %v", id, answer, voted)
		}
	})
}
