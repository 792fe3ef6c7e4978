package slack

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/channels"
	"github.com/switchboard/switchboard/sqlite"
)

// channelStore is a real SQLite channel settings store, with set already
// saved.
func channelStore(t *testing.T, set ...channels.Settings) *sqlite.Channels {
	t.Helper()
	store := sqlite.NewChannels(testDB(t))
	for _, s := range set {
		if err := store.SetSettings(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

// An admin opens /switchboard settings in a channel and saves it; a
// member who is not an admin is refused both when opening the modal and
// when submitting one.
func TestSettingsModal(t *testing.T) {
	store := channelStore(t)
	e := newEnv(t, options{channels: store})
	e.fake.AddPerson("UADMIN", "Ada", slacktest.RoleAdmin)
	e.fake.AddPerson("UMEMBER", "Max", slacktest.RoleMember)
	ctx := context.Background()

	refused := e.fake.SlashCommand("C1", "UMEMBER", "/switchboard", "settings")
	e.fake.PostCommand(e.h, refused)
	e.quiet()
	if r := e.fake.Response(refused.Get("response_url")); r == nil || len(r.Versions) != 1 || !strings.Contains(r.Versions[0].Text, "Only workspace admins") {
		t.Fatalf("a member was not told they may not change settings: %+v", r)
	}
	if len(e.fake.Views()) != 0 {
		t.Fatal("a member was shown the settings modal")
	}

	e.fake.PostCommand(e.h, e.fake.SlashCommand("C1", "UADMIN", "/switchboard", "settings"))
	e.quiet()
	views := e.fake.Views()
	if len(views) != 1 || views[0].View.CallbackID != settingsCallback || views[0].View.PrivateMetadata != "C1" {
		t.Fatalf("the admin's modal: %+v", views)
	}
	inputs := map[string]slacktest.Input{
		blockSources: slacktest.Typed("handbook/docs/hr/, slack:C42"),
		blockReplies: slacktest.Chosen("all"),
		blockPrivate: slacktest.Ticked("true"),
		blockExperts: slacktest.Typed("U042 S7"),
	}

	// The member submits the admin's modal (a forged or stale one).
	if resp := submit(t, e, e.fake.ViewSubmission("UMEMBER", views[0], inputs)); resp == nil || resp.Action != "errors" {
		t.Errorf("a member's submission was answered %+v, want errors", resp)
	}
	if got, _ := store.Settings(ctx, "C1"); got.ChangedBy != "" {
		t.Fatalf("a member changed the settings: %+v", got)
	}

	if resp := submit(t, e, e.fake.ViewSubmission("UADMIN", views[0], inputs)); resp != nil {
		t.Fatalf("the admin's submission was answered %+v, want the modal closed", resp)
	}
	got, err := store.Settings(ctx, "C1")
	if err != nil || got.ChangedBy != "UADMIN" || got.Replies != channels.RepliesAll || !got.Private ||
		strings.Join(got.Sources, " ") != "handbook/docs/hr/ slack:C42" || strings.Join(got.Experts, " ") != "U042 S7" {
		t.Errorf("saved %+v, %v", got, err)
	}
	e.quiet()
	if eph := e.fake.Ephemerals("UADMIN"); len(eph) != 1 || !strings.Contains(eph[0].Content(), "Saved.") {
		t.Errorf("the admin was not told what was saved: %+v", eph)
	}

	// A bad mode keeps the modal open with the reason.
	inputs[blockReplies] = slacktest.Chosen("sometimes")
	if resp := submit(t, e, e.fake.ViewSubmission("UADMIN", views[0], inputs)); resp == nil || resp.Errors[blockReplies] == "" {
		t.Errorf("a bad mode was answered %+v", resp)
	}
}

// submit posts a view_submission and returns what closes (nil) or keeps
// the modal open.
func submit(t *testing.T, e *env, payload map[string]any) *submissionResponse {
	t.Helper()
	res := e.fake.PostInteraction(e.h, payload)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	var resp submissionResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return &resp
}

// A help channel answers an unaddressed question in its thread and leaves
// chatter alone; a channel that is not one answers neither.
func TestHelpChannel(t *testing.T) {
	e := newEnv(t, options{channels: channelStore(t, channels.Settings{Channel: "CHELP", Replies: channels.RepliesAll})})
	q := e.fake.ChannelMessage("CHELP", "U1", "How long do we keep customer data?")
	e.fake.PostEvent(e.h, "", q, nil)
	e.final("CHELP", q.TS, 1)
	for _, chatter := range []string{"Good morning everyone!", "The deploy is done.", "<@U2> can you review my PR?", "hi all?"} {
		e.fake.PostEvent(e.h, "", e.fake.ChannelMessage("CHELP", "U1", chatter), nil)
	}
	other := e.fake.ChannelMessage("COTHER", "U1", "How long do we keep customer data?")
	e.fake.PostEvent(e.h, "", other, nil)
	if err := e.settle(); err != nil {
		t.Fatal(err)
	}
	if taken, _, _ := e.d.results(); taken != 1 {
		t.Errorf("%d questions taken, want the help channel's one", taken)
	}
	if msgs := e.fake.AllMessages(); len(msgs) != 1 || msgs[0].ThreadTS != q.TS {
		t.Errorf("the bot posted %+v; want one answer in the question's thread", msgs)
	}
}

// In a channel whose answers are private, a mention is answered to the
// asker alone, in its thread, with the share button; sharing posts it in
// the thread. The channel's sources reach the search.
func TestPrivateChannel(t *testing.T) {
	e := newEnv(t, options{answers: sqlite.NewFeedback(testDB(t)),
		channels: channelStore(t, channels.Settings{Channel: "CPRIV", Private: true, Sources: []string{"handbook/docs/hr/"}})})
	q := e.fake.Mention("CPRIV", "U1", "What is our data retention policy?")
	e.fake.PostEvent(e.h, "", q, nil)
	if err := e.d.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.quiet()
	if msgs := e.fake.AllMessages(); len(msgs) != 0 {
		t.Fatalf("a private channel's answer was posted for all: %+v", msgs)
	}
	eph := e.fake.Ephemerals("U1")
	if len(eph) != 2 || eph[1].ThreadTS != q.TS {
		t.Fatalf("ephemerals %+v; want the placeholder and the answer, in the thread", eph)
	}
	var answerID string
	for action, value := range actionValuesOf(eph[1].Blocks) {
		if action == ActionShare {
			answerID = value
		}
	}
	if answerID == "" {
		t.Fatalf("the private answer has no share button: %s", eph[1].Blocks)
	}
	e.kb.mu.Lock()
	scopes := e.kb.scopes
	e.kb.mu.Unlock()
	if len(scopes) == 0 || strings.Join(scopes[0].Sources, ",") != "handbook/docs/hr/" {
		t.Errorf("the search's scopes %+v lack the channel's sources", scopes)
	}
	e.fake.PostInteraction(e.h, e.fake.EphemeralAction("U1", "CPRIV", ActionShare, answerID))
	e.quiet()
	if msgs := e.fake.Messages("CPRIV", q.TS); len(msgs) == 0 {
		t.Error("the shared answer is not in the thread")
	}
}

// testDB is a new SQLite store, closed when the test ends.
func testDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "switchboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// actionValuesOf reads the buttons of blocks (see slacktest.Message.ActionValues).
func actionValuesOf(blocks json.RawMessage) map[string]string {
	return slacktest.Message{Blocks: blocks}.ActionValues()
}

// FuzzParseSettingsSubmission: whatever Slack sends, the parser does not
// panic, and settings it accepts pass their check.
func FuzzParseSettingsSubmission(f *testing.F) {
	fake := slacktest.NewServer()
	defer fake.Close()
	var v slacktest.OpenedView
	b, _ := json.Marshal(settingsModal(channels.Settings{Channel: "C1"}))
	_ = json.Unmarshal(b, &v.View)
	seed, _ := json.Marshal(fake.ViewSubmission("U1", v, map[string]slacktest.Input{blockSources: slacktest.Typed("a/, b"), blockReplies: slacktest.Chosen("all"), blockPrivate: slacktest.Ticked("true")}))
	f.Add(seed)
	f.Add([]byte(`{"type":"view_submission","user":{"id":"U1"},"view":{"callback_id":"channel_settings","private_metadata":"C1","state":{"values":{"replies":{"replies":{"selected_option":null}}}}}}`))
	f.Add([]byte(`{"type":"block_actions"}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		_, s, ok, invalid, err := parseSettingsSubmission(payload)
		if err == nil && ok && invalid == nil {
			if cerr := s.Check(); cerr != nil {
				t.Fatalf("accepted settings that fail their check: %+v: %v", s, cerr)
			}
		}
	})
}

var _ bot.ChannelSettings = (*sqlite.Channels)(nil)
