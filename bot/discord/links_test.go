package discord_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/bot/viewtest"
)

// A document that plants links hiding their hosts, quoted by the offline
// engine or repeated by a model (streamed, so that its drafts are shown
// too), reaches Discord with every host in view: no message the bot sent
// or edited links anything but the bot's own citation and source, and no
// line of the answer reads as the badge.
func TestPlantedLinksShowTheirHosts(t *testing.T) {
	for name, model := range map[string]bool{"offline": false, "model": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var h *harness
			asker := viewtest.ShowingDraft(viewtest.PlantedAgent(t, model), func() bool {
				msgs := h.fake.BotMessages("C1")
				return len(msgs) == 1 && strings.Contains(msgs[0].Text(), bot.DraftNote)
			})
			h = start(t, "http", options{guild: guild, asker: func(bot.Asker) bot.Asker { return asker }})
			h.ask("C1", "U1", "How do I reset my password?")
			final := h.answers("C1", 1)[0]

			drafts := 0
			for _, c := range h.fake.Calls() {
				var m discordtest.Message
				if c.Method == "GET" || json.Unmarshal(c.Body, &m) != nil {
					continue
				}
				if strings.Contains(m.Text(), bot.DraftNote) {
					drafts++
				}
				for _, l := range links(m) {
					if !ownLink(l) && l.Text != l.URL {
						t.Errorf("%s %s links %q to %s", c.Method, c.Path, l.Text, l.URL)
					}
				}
			}
			if model && drafts == 0 {
				t.Error("no draft was sent")
			}
			text := final.Text()
			for _, want := range []string{"Reset password (evil.example)", "the help desk (evil.example)", "🟡 Medium confidence"} {
				if !strings.Contains(text, want) {
					t.Errorf("the answer lacks %q:\n%s", want, text)
				}
			}
			// The bot's own links still work: the citation and the source.
			got := links(final)
			for _, want := range []discordtest.Link{{Text: "1", URL: viewtest.PlantedURL}, {Text: "Password reset", URL: viewtest.PlantedURL}} {
				if !slices.Contains(got, want) {
					t.Errorf("no link %q to %s among %+v", want.Text, want.URL, got)
				}
			}
			if strings.Contains(text, "🟢") {
				t.Errorf("a line of the answer reads as a high confidence badge:\n%s", text)
			}
		})
	}
}

// links are the masked links of a message's Markdown: its content, its
// embeds' descriptions and fields.
func links(m discordtest.Message) []discordtest.Link {
	out := discordtest.Links(m.Content)
	for _, e := range m.Embeds {
		out = append(out, discordtest.Links(e.Description)...)
		for _, f := range e.Fields {
			out = append(out, discordtest.Links(f.Value)...)
		}
	}
	return out
}

// ownLink reports whether l is one the bot makes: the planted document's
// citation or its title, to the document.
func ownLink(l discordtest.Link) bool {
	return l.URL == viewtest.PlantedURL && (l.Text == "1" || l.Text == viewtest.PlantedDoc.Title)
}
