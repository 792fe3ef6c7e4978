package slack

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/viewtest"
)

// view returns the shared view named name.
func view(t *testing.T, name string) bot.View {
	t.Helper()
	for _, c := range viewtest.Views() {
		if c.Name == name {
			return c.View
		}
	}
	t.Fatalf("no view %q", name)
	return bot.View{}
}

// TestPicture draws the answer of the shared "vector-high" view as Slack
// shows it, for the README (docs/img/slack-answer.svg).
func TestPicture(t *testing.T) {
	p := viewtest.NewPicture(720)
	author(p, "Switchboard", "  APP  10:42")
	drawBlocks(p, FinalMessages(view(t, "vector-high"))[0])
	svg := p.SVG("#ffffff")
	if !strings.Contains(string(svg), "Refund") {
		t.Fatalf("the picture lacks the sources:\n%s", svg)
	}
	viewtest.Golden(t, filepath.Join("..", "..", "docs", "img", "slack-answer.svg"), svg)
}

// TestAssistantPicture draws a thread of Slack's AI-app view, for the
// README (docs/img/slack-assistant.svg): the suggested prompts of a new
// thread, a question answered by the stream (the answer, then the blocks
// chat.stopStream adds: sources, badge, feedback buttons), and a
// follow-up whose status line shows the progress.
func TestAssistantPicture(t *testing.T) {
	p := viewtest.NewPicture(720)
	p.Text(16, 0, []viewtest.Run{{Text: "Switchboard", Bold: true, Size: 16}, {Text: "   beside #support", Grey: true}})
	p.Space(10)
	p.Text(16, 0, []viewtest.Run{{Text: bot.SuggestionsLabel, Grey: true, Size: 12}})
	p.Space(4)
	x := 16.0
	for _, s := range bot.Suggest([]string{"How long do refunds take?"}, []string{"Data retention policy", "Refund policy"}, maxPrompts) {
		x += p.Button(x, s.Title) + 8
	}
	p.Space(44)

	answered := view(t, "vector-high")
	author(p, "Ana", "  10:41")
	p.Text(64, 0, []viewtest.Run{{Text: answered.Question}})
	p.Space(14)
	author(p, "Switchboard", "  APP  10:42")
	answer, blocks := StreamFinal(answered)
	p.Text(64, 0, viewtest.Runs(answer, true))
	p.Space(6)
	drawBlocks(p, blocks)

	progress := view(t, "progress")
	author(p, "Ana", "  10:43")
	p.Text(64, 0, []viewtest.Run{{Text: "And for annual plans?"}})
	p.Space(10)
	// Slack shows the status after the app's name.
	p.Text(64, 0, []viewtest.Run{{Text: "Switchboard ", Grey: true, Bold: true, Size: 13}, {Text: StatusLine(progress), Grey: true, Italic: true, Size: 13}})
	svg := p.SVG("#ffffff")
	for _, w := range []string{"asking", "Refund", "Helpful", "confidence", "trying"} {
		if !strings.Contains(string(svg), w) {
			t.Errorf("the picture lacks %q", w)
		}
	}
	viewtest.Golden(t, filepath.Join("..", "..", "docs", "img", "slack-assistant.svg"), svg)
}

// author draws a message's avatar, author and time.
func author(p *viewtest.Picture, name, when string) {
	colour := "#4a154b"
	if name != "Switchboard" {
		colour = "#2eb67d"
	}
	p.Rect(16, 36, 36, colour)
	p.Text(64, 0, []viewtest.Run{{Text: name, Bold: true}, {Text: when, Grey: true, Size: 12}})
	p.Space(4)
}

// drawBlocks draws Block Kit blocks roughly as Slack shows them.
func drawBlocks(p *viewtest.Picture, blocks []slack.Block) {
	buttons := func(labels []string) {
		x := 64.0
		for _, l := range labels {
			x += p.Button(x, l) + 8
		}
		p.Space(30)
	}
	for _, b := range blocks {
		switch b := b.(type) {
		case *slack.SectionBlock:
			p.Text(64, 0, viewtest.Runs(b.Text.Text, false))
			p.Space(6)
		case *slack.ContextBlock:
			for _, e := range b.ContextElements.Elements {
				if tx, ok := e.(*slack.TextBlockObject); ok {
					runs := viewtest.Runs(tx.Text, false)
					for i := range runs {
						runs[i].Grey, runs[i].Size = !runs[i].Link, 12
					}
					p.Text(64, 0, runs)
				}
			}
			p.Space(6)
		case *slack.ActionBlock:
			var labels []string
			for _, e := range b.Elements.ElementSet {
				if btn, ok := e.(*slack.ButtonBlockElement); ok {
					labels = append(labels, btn.Text.Text)
				}
			}
			buttons(labels)
		case *slack.ContextActionsBlock:
			var labels []string
			for _, e := range b.Elements.ElementSet {
				if fb, ok := e.(*slack.FeedbackButtonsBlockElement); ok {
					labels = append(labels, fb.PositiveButton.Text.Text, fb.NegativeButton.Text.Text)
				}
			}
			buttons(labels)
		}
	}
}
