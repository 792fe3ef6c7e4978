package slack

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot/viewtest"
)

// TestPicture draws the answer of the shared "vector-high" view as Slack
// shows it, for the README (docs/img/slack-answer.svg).
func TestPicture(t *testing.T) {
	var v = viewtest.Views()
	for _, c := range v {
		if c.Name != "vector-high" {
			continue
		}
		p := viewtest.NewPicture(720)
		p.Rect(16, 36, 36, "#4a154b")
		p.Text(64, 0, []viewtest.Run{{Text: "Switchboard", Bold: true}, {Text: "  APP  10:42", Grey: true, Size: 12}})
		p.Space(4)
		for _, b := range FinalMessages(c.View)[0] {
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
				x := 64.0
				for _, e := range b.Elements.ElementSet {
					if btn, ok := e.(*slack.ButtonBlockElement); ok {
						x += p.Button(x, btn.Text.Text) + 8
					}
				}
				p.Space(30)
			}
		}
		svg := p.SVG("#ffffff")
		if !strings.Contains(string(svg), "Refund") {
			t.Fatalf("the picture lacks the sources:\n%s", svg)
		}
		viewtest.Golden(t, filepath.Join("..", "..", "docs", "img", "slack-answer.svg"), svg)
	}
}
