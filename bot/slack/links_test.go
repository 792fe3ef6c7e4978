package slack

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/bot/viewtest"
)

// A document that plants links hiding their hosts, quoted by the offline
// engine or repeated by a model (streamed, so that its drafts are shown
// too), reaches Slack with every host in view: no version of the message
// links anything but the bot's own citation and source, and no line of
// the answer reads as the badge.
func TestPlantedLinksShowTheirHosts(t *testing.T) {
	for name, model := range map[string]bool{"offline": false, "model": true} {
		t.Run(name, func(t *testing.T) {
			var e *env
			var thread string
			asker := viewtest.ShowingDraft(viewtest.PlantedAgent(t, model), func() bool {
				msgs := e.fake.Messages("C1", thread)
				return len(msgs) == 1 && strings.Contains(msgs[0].Content(), bot.DraftNote)
			})
			e = newEnv(t, options{asker: asker})
			ev := e.fake.Mention("C1", "U1", "How do I reset my password?")
			thread = ev.TS
			e.fake.PostEvent(e.h, "", ev, nil)
			m := e.final("C1", ev.TS, 1)[0]

			drafts := 0
			for i, v := range m.Versions {
				if strings.Contains(v.Content(), bot.DraftNote) {
					drafts++
				}
				for _, l := range append(slacktest.Links(v.Content()), slacktest.Links(v.Text)...) {
					if l.Text != l.URL && !own(l, planted) {
						t.Errorf("version %d links %q to %s", i, l.Text, l.URL)
					}
				}
			}
			if model && drafts == 0 {
				t.Errorf("no draft among %d versions", len(m.Versions))
			}
			final := m.Content()
			for _, want := range []string{"Reset password (evil.example)", "the help desk (evil.example)", "🟡 Medium confidence"} {
				if !strings.Contains(final, want) {
					t.Errorf("the answer lacks %q:\n%s", want, final)
				}
			}
			// The bot's own links still work: the citation and the source.
			links := slacktest.Links(final)
			for _, want := range []slacktest.Link{{Text: "[1]", URL: viewtest.PlantedURL}, {Text: "Password reset", URL: viewtest.PlantedURL}} {
				if !slices.Contains(links, want) {
					t.Errorf("no link %q to %s among %+v", want.Text, want.URL, links)
				}
			}
			if strings.Contains(final, "🟢") {
				t.Errorf("a line of the answer reads as a high confidence badge:\n%s", final)
			}
		})
	}
}

// planted is the planted document as a source: the bot's links to it
// are its own.
var planted = []bot.SourceLine{{N: 1, Title: viewtest.PlantedDoc.Title, URL: viewtest.PlantedURL}}
