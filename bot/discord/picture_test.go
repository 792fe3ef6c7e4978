package discord

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot/viewtest"
)

// TestPicture draws the answer of the shared "vector-high" view as
// Discord shows it, for docs/usage.md (docs/img/discord-answer.svg).
func TestPicture(t *testing.T) {
	for _, c := range viewtest.Views() {
		if c.Name != "vector-high" {
			continue
		}
		msg := Embeds(c.View)[0]
		p := viewtest.NewPicture(720)
		p.Rect(16, 36, 36, "#5865f2")
		p.Text(64, 0, []viewtest.Run{{Text: "Switchboard", Bold: true}, {Text: "  APP  Today at 10:42", Grey: true, Size: 12}})
		p.Space(6)
		for _, e := range msg.Embeds {
			top, mark := p.Y(), p.Mark()
			p.Space(8)
			if e.Title != "" {
				p.Text(80, 16, []viewtest.Run{{Text: e.Title, Bold: true}})
				p.Space(4)
			}
			p.Text(80, 16, viewtest.Runs(e.Description, true))
			for _, f := range e.Fields {
				p.Space(8)
				p.Text(80, 16, []viewtest.Run{{Text: f.Name, Bold: true, Size: 13}})
				p.Text(80, 16, viewtest.Runs(f.Value, true))
			}
			if e.Footer != nil {
				p.Space(8)
				p.Text(80, 16, []viewtest.Run{{Text: e.Footer.Text, Grey: true, Size: 12}})
			}
			p.Space(10)
			p.Under(mark, embedBar(top, p.Y()-top, e))
		}
		p.Space(8)
		x := 64.0
		for _, row := range msg.Components {
			if r, ok := row.(discordgo.ActionsRow); ok {
				for _, b := range r.Components {
					if btn, ok := b.(discordgo.Button); ok {
						x += p.Button(x, btn.Emoji.Name+" "+btn.Label) + 8
					}
				}
			}
		}
		p.Space(30)
		svg := p.SVG("#ffffff")
		if !strings.Contains(string(svg), "Refund") {
			t.Fatalf("the picture lacks the sources:\n%s", svg)
		}
		viewtest.Golden(t, filepath.Join("..", "..", "docs", "img", "discord-answer.svg"), svg)
	}
}

// embedBar is an embed's background and coloured left edge.
func embedBar(y, h float64, e *discordgo.MessageEmbed) string {
	return fmt.Sprintf(`<rect x="64" y="%.0f" width="640" height="%.0f" rx="4" fill="#f2f3f5"/><rect x="64" y="%.0f" width="4" height="%.0f" fill="#%06x"/>`+"\n", y, h, y, h, e.Color)
}
