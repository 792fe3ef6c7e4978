package discord_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/bot/discord"
	"github.com/switchboard/switchboard/channels"
	"github.com/switchboard/switchboard/sqlite"
)

// Two channels with different sources: each question is searched within
// its own channel's sources only.
func TestChannelSourcesReachTheSearch(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "settings.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := sqlite.NewChannels(db)
	for _, s := range []channels.Settings{
		{Channel: "100", Sources: []string{"handbook/docs/hr/"}},
		{Channel: "200", Sources: []string{"handbook/docs/eng/", channels.SourceWeb}},
	} {
		if err := store.SetSettings(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	h := start(t, discord.ModeHTTP, options{channels: store})
	h.ask("100", "7", "how many days of leave do I get?")
	h.answers("100", 1)
	h.ask("200", "7", "who is on call this week?")
	h.answers("200", 1)

	h.ret.mu.Lock()
	defer h.ret.mu.Unlock()
	seen := map[string]string{}
	for _, req := range h.ret.reqs {
		seen[req.Scope.Channel] = strings.Join(req.Scope.Sources, ",")
	}
	if seen["100"] != "handbook/docs/hr/" || seen["200"] != "handbook/docs/eng/,web" {
		t.Errorf("the searches' sources by channel: %v", seen)
	}
}
