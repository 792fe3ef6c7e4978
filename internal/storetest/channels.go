package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/switchboard/switchboard/channels"
)

// testChannels holds a channels.Store to its contract: a channel never set
// has the defaults, a change replaces the settings and is logged with who
// made it and when, and every channel with settings is listed by id.
func testChannels(t *testing.T, s Store) {
	ctx := context.Background()
	c := s.Channels
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	*s.Now = func() time.Time { return at }

	got, err := c.Settings(ctx, "C1")
	if err != nil || !reflect.DeepEqual(got, channels.Settings{Channel: "C1"}) {
		t.Fatalf("a channel never set has %+v, %v; want the defaults", got, err)
	}
	if all, err := c.AllSettings(ctx); err != nil || len(all) != 0 {
		t.Fatalf("an empty store lists %+v, %v", all, err)
	}

	hr := channels.Settings{Channel: "C2", Sources: []string{"handbook/docs/hr/", channels.SourceGraph},
		Replies: channels.RepliesAll, Private: true, Experts: []string{"U1", "S2"},
		ChangedBy: "cli:ana", ChangedAt: at.Add(-time.Hour)}
	eng := channels.Settings{Channel: "C1", Replies: channels.RepliesMention, ChangedBy: "U9"} // stamped by the store's clock
	hrLater := channels.Settings{Channel: "C2", Sources: []string{"handbook/docs/hr/"}, ChangedBy: "U7", ChangedAt: at.Add(time.Minute)}
	for _, set := range []channels.Settings{hr, eng, hrLater} {
		if err := c.SetSettings(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	eng.ChangedAt = at

	if got, err := c.Settings(ctx, "C2"); err != nil || !reflect.DeepEqual(got, hrLater) {
		t.Errorf("C2 has %+v, %v; want the last change %+v", got, err, hrLater)
	}
	if got, err := c.Settings(ctx, "C1"); err != nil || !reflect.DeepEqual(got, eng) {
		t.Errorf("C1 has %+v, %v; want %+v, stamped by the store's clock", got, err, eng)
	}
	if all, err := c.AllSettings(ctx); err != nil || !reflect.DeepEqual(all, []channels.Settings{eng, hrLater}) {
		t.Errorf("every channel: %+v, %v; want C1 then C2 as last changed", all, err)
	}
	if log, err := c.SettingsLog(ctx, "C2"); err != nil || !reflect.DeepEqual(log, []channels.Settings{hr, hrLater}) {
		t.Errorf("C2's log: %+v, %v; want both changes, oldest first", log, err)
	}
	if log, err := c.SettingsLog(ctx, "C3"); err != nil || len(log) != 0 {
		t.Errorf("a channel never set has the log %+v, %v", log, err)
	}

	if err := c.SetSettings(ctx, channels.Settings{Channel: "C1", Replies: "sometimes"}); err == nil {
		t.Error("settings that fail their check were stored")
	}
	if log, _ := c.SettingsLog(ctx, "C1"); len(log) != 1 {
		t.Errorf("a refused change was logged: %+v", log)
	}
}
