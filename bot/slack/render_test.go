package slack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/viewtest"
	"github.com/switchboard/switchboard/internal/cite"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	viewtest.Golden(t, filepath.Join("testdata", name), got)
}

// TestRenderGolden is the shape of every view of the shared set (the
// words are bot/console's golden): the blocks and the notification text.
func TestRenderGolden(t *testing.T) {
	for _, c := range viewtest.Views() {
		t.Run(c.Name, func(t *testing.T) {
			blocks, text := Blocks(c.View)
			out := map[string]any{"fallback": text}
			if c.View.Done {
				out["messages"] = FinalMessages(c.View)
			} else {
				out["blocks"] = blocks
			}
			golden(t, c.Name+".json", encode(t, out))
			checkLimits(t, c.View)
		})
	}
}

// TestNativeGolden is the shape of every view of the shared set on
// Slack's AI-app surface: the status line and streamed draft of a view in
// progress; the text and blocks that end the stream of a finished one,
// and its private answer (/ask) with the share button. The shared answer
// is FinalMessages under who asked (shared.json).
func TestNativeGolden(t *testing.T) {
	for _, c := range viewtest.Views() {
		t.Run(c.Name, func(t *testing.T) {
			out := map[string]any{}
			if c.View.Done {
				md, blocks := StreamFinal(c.View)
				out["stream"], out["stop_blocks"], out["private"] = md, blocks, PrivateAnswer(c.View)
				if c.View.Final != nil {
					out["shared_note"] = SharedNote(c.View)
				}
			} else {
				out["status"], out["stream"] = StatusLine(c.View), StreamDraft(c.View.Draft)
			}
			golden(t, filepath.Join("native", c.Name+".json"), encode(t, out))
		})
	}
	v := viewtest.Views()[0].View
	for _, c := range viewtest.Views() {
		if c.View.Done && c.View.Final != nil {
			v = c.View
			break
		}
	}
	golden(t, filepath.Join("native", "shared.json"), encode(t, SharedMessages(v, "U1")))
}

// encode is v as indented JSON, Slack's <url|title> kept readable.
func encode(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// longAnswer is far more than one message holds, with a code block longer
// than a section in the middle.
func longAnswer() string {
	var b strings.Builder
	for i := range 90 {
		fmt.Fprintf(&b, "Paragraph %d. %s\n\n", i, strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40))
		if i == 45 {
			b.WriteString("```go\n")
			for j := range 150 {
				fmt.Fprintf(&b, "fmt.Println(\"line %d of the example\") // keep <this> & that\n", j)
			}
			b.WriteString("```\n\n")
		}
	}
	return b.String()
}

// TestRenderLongAnswer checks a split answer against Slack's limits, and
// keeps a readable outline of the split as its golden file: the full
// blocks would be 180 KB of repeated text.
func TestRenderLongAnswer(t *testing.T) {
	v := bot.View{AnswerID: "long", Question: "Explain everything", Done: true, Final: viewtest.Final("Explain everything", agent.Result{
		Question: "Explain everything", Route: agent.RouteVector, RouteReason: "asks about internal documents",
		Answer: longAnswer(), Confidence: agent.ConfidenceMedium,
		Sources: []agent.Source{{N: 1, Title: "Handbook", Location: "docs/handbook.md", Route: agent.RouteVector}},
	})}
	msgs := FinalMessages(v)
	if len(msgs) < 2 {
		t.Fatalf("a %d-character answer fits in %d message(s); want a split", len(v.Final.Answer), len(msgs))
	}
	checkLimits(t, v)

	var outline strings.Builder
	var all strings.Builder
	for i, m := range msgs {
		fmt.Fprintf(&outline, "message %d: %d blocks\n", i+1, len(m))
		for _, b := range m {
			text := blockText(b)
			lines := strings.Split(text, "\n")
			first, last := lines[0], lines[len(lines)-1]
			fmt.Fprintf(&outline, "  %-8s %5d runes  %.40q … %.40q\n", b.BlockType(), utf8.RuneCountInString(text), first, last)
			if b.BlockType() == slack.MBTSection && !strings.HasPrefix(text, "*Sources*") {
				all.WriteString(text + "\n")
			}
		}
	}
	golden(t, "long_answer.txt", []byte(outline.String()))

	// Nothing is lost: the answer's words all arrive, in order.
	strip := func(s string) string {
		s = strings.NewReplacer("```go", "", "```", "", "&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
		return strings.Join(strings.Fields(s), " ")
	}
	if got, want := strip(all.String()), strip(v.Final.Answer); got != want {
		t.Errorf("the split lost or changed text: got %d runes, want %d", len(got), len(want))
	}
	// The buttons come last, once.
	last := msgs[len(msgs)-1]
	if last[len(last)-1].BlockType() != slack.MBTAction {
		t.Errorf("the last block is %s, want the feedback buttons", last[len(last)-1].BlockType())
	}
}

// checkLimits fails when a rendering breaks Slack's limits or cuts a code
// block.
func checkLimits(t *testing.T, v bot.View) {
	t.Helper()
	for i, m := range rendered(v) {
		if len(m) > maxBlocks {
			t.Errorf("message %d has %d blocks, over %d", i, len(m), maxBlocks)
		}
		for j, b := range m {
			text := blockText(b)
			if n := utf8.RuneCountInString(text); n > 3000 {
				t.Errorf("message %d block %d has %d characters, over 3000", i, j, n)
			}
			if strings.Count(text, "```")%2 != 0 {
				t.Errorf("message %d block %d cuts a code block:\n%s", i, j, text)
			}
		}
	}
}

// rendered renders v as the messages people see.
func rendered(v bot.View) [][]slack.Block {
	if v.Done {
		return FinalMessages(v)
	}
	b, _ := Blocks(v)
	return [][]slack.Block{b}
}

func blockText(b slack.Block) string {
	switch b := b.(type) {
	case *slack.SectionBlock:
		return b.Text.Text
	case *slack.ContextBlock:
		var parts []string
		for _, e := range b.ContextElements.Elements {
			if t, ok := e.(*slack.TextBlockObject); ok {
				parts = append(parts, t.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

func TestMrkdwn(t *testing.T) {
	cases := []struct{ in, want string }{
		{"**bold** and *italic* and ~~gone~~", "*bold* and _italic_ and ~gone~"},
		{"# Title", "*Title*"},
		{"- one\n* two", "• one\n• two"},
		// Links are the presenter's (bot.Present shows their hosts as
		// text): mrkdwn makes none.
		{"see [docs](https://x.test/a?b=1&c=2) now", "see [docs](https://x.test/a?b=1&amp;c=2) now"},
		{"a < b & c > d", "a &lt; b &amp; c &gt; d"},
		{"use `a**b**c` here", "use `a**b**c` here"},
		{"```python\nx = 1 < 2\n**not bold**\n```", "```\nx = 1 &lt; 2\n**not bold**\n```"},
		{"~~~ python\n**not bold**\n~~~", "```\n**not bold**\n```"},
		{"2 * 3 * 4", "2 * 3 * 4"},
		// The citations with a URL are the one link it makes, translated
		// with their line; in code they are text.
		{"## Refunds [1]", "*Refunds <https://x.test/a%7Cb|[1]>*"},
		{"**paid [1][2]** & `[1]`", "*paid <https://x.test/a%7Cb|[1]>[2]* &amp; `[1]`"},
		{"~~~\n[1]\n```\n[1]\n~~~\n- [1]", "```\n[1]\n```\n[1]\n```\n• <https://x.test/a%7Cb|[1]>"},
		{"a \x1a [1]", "a \x1a [1]"},
	}
	for _, c := range cases {
		if got := mrkdwn(cite.Read(c.in), map[int]string{1: "https://x.test/a|b"}); got != c.want {
			t.Errorf("mrkdwn(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestEscalationGolden is the shape of every escalation of the shared
// set: only the experts or owners that are Slack ids are mentioned;
// everything else, the asker's name and the question included, is text.
func TestEscalationGolden(t *testing.T) {
	for _, c := range viewtest.Escalations() {
		t.Run(c.Name, func(t *testing.T) {
			blocks, text := EscalationMessage(c.Escalation)
			golden(t, filepath.Join("escalation", c.Name+".json"), encode(t, map[string]any{"fallback": text, "blocks": blocks}))
			out := string(encode(t, blocks)) + text
			for _, ping := range []string{"<!channel>", "<!here>", "<!everyone>", "<@U999>", "<!subteam^S999>", "<#C1>"} {
				if strings.Contains(out, ping) {
					t.Errorf("%s can ping: %s", c.Name, ping)
				}
			}
			if c.Name == "experts" && (!strings.Contains(text, "<@U0EXPERT>") || !strings.Contains(text, "<!subteam^S0TEAM>")) {
				t.Errorf("the experts are not mentioned: %s", text)
			}
		})
	}
}
