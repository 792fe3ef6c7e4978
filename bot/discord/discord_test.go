package discord

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"github.com/switchboard/switchboard/feedback"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
)

// nopDispatcher accepts everything and does nothing.
type nopDispatcher struct{}

func (nopDispatcher) Submit(context.Context, bot.Incoming, bot.Replier) error { return nil }
func (nopDispatcher) Vote(context.Context, string, string, int) error         { return nil }

func TestNewValidates(t *testing.T) {
	key := strings.Repeat("ab", 32)
	cases := []struct {
		name string
		cfg  Config
		want string // in the error; "" for none
	}{
		{"no mode", Config{BotToken: "t", AppID: "1"}, "DISCORD_MODE"},
		{"bad mode", Config{Mode: "webhook", BotToken: "t", AppID: "1"}, "DISCORD_MODE"},
		{"gateway without token", Config{Mode: ModeGateway, AppID: "1"}, "DISCORD_BOT_TOKEN"},
		{"gateway without app", Config{Mode: ModeGateway, BotToken: "t"}, "DISCORD_APP_ID"},
		{"http without app", Config{Mode: ModeHTTP, PublicKey: key}, "DISCORD_APP_ID"},
		{"http without key", Config{Mode: ModeHTTP, AppID: "1"}, "DISCORD_PUBLIC_KEY"},
		{"http with a short key", Config{Mode: ModeHTTP, AppID: "1", PublicKey: "abcd"}, "DISCORD_PUBLIC_KEY"},
		{"bad API URL", Config{Mode: ModeGateway, BotToken: "t", AppID: "1", APIURL: "discord.local"}, "API URL"},
		{"gateway", Config{Mode: ModeGateway, BotToken: "Bot t", AppID: "1"}, ""},
		{"http without token", Config{Mode: ModeHTTP, AppID: "1", PublicKey: key}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(c.cfg, nopDispatcher{})
			switch {
			case c.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one naming %s", err, c.want)
			}
		})
	}
	a, err := New(Config{Mode: ModeHTTP, AppID: "1", PublicKey: key}, nopDispatcher{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RegisterCommands(context.Background()); err == nil || !strings.Contains(err.Error(), "DISCORD_BOT_TOKEN") {
		t.Errorf("RegisterCommands without a token: %v", err)
	}
	if err := a.RunGateway(context.Background()); err == nil {
		t.Error("RunGateway in http mode did not fail")
	}
}

func TestRewrite(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Host+" "+r.URL.EscapedPath()+"?"+r.URL.RawQuery)
	}))
	defer srv.Close()
	a, err := New(Config{Mode: ModeGateway, BotToken: "t", AppID: "1", APIURL: srv.URL + "/fake/api/v10"}, nopDispatcher{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{
		"https://discord.com/api/v9/channels/1/messages",
		"https://discord.com/api/v10/webhooks/1/tok%2Fen/messages/@original?wait=true",
	} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		resp, err := a.s.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if req.URL.Host != "discord.com" {
			t.Error("the request was modified")
		}
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	want := []string{
		host + " /fake/api/v10/channels/1/messages?",
		host + " /fake/api/v10/webhooks/1/tok%2Fen/messages/@original?wait=true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rewritten to\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseVote(t *testing.T) {
	for id, want := range map[string]int{"vote:up:abc": 1, "vote:down:abc": -1, "vote:up:": 0, "vote:sideways:abc": 0, "": 0} {
		answer, v, ok := parseVote(id)
		if v != want || ok != (want != 0) || (ok && answer != "abc") {
			t.Errorf("parseVote(%q) = %q, %d, %v", id, answer, v, ok)
		}
	}
}

func TestMentions(t *testing.T) {
	m := &discordgo.Message{Content: "<@!42> what is  <b>this</b>?\nline two <@42>"}
	if !mentions(m, "42") || mentions(m, "4") {
		t.Error("mention detection")
	}
	if got := stripMention(m.Content, "42"); got != "what is  <b>this</b>?\nline two" {
		t.Errorf("stripMention = %q", got)
	}
	reply := &discordgo.Message{Content: "and for EU?", Mentions: []*discordgo.User{nil, {ID: "42"}}}
	if !mentions(reply, "42") {
		t.Error("a reply to the bot is addressed to it")
	}
}

func TestVerify(t *testing.T) {
	pub, key, _ := ed25519.GenerateKey(nil)
	body := []byte(`{"type":1}`)
	h := http.Header{}
	sign := func(ts string) {
		h.Set("X-Signature-Timestamp", ts)
		h.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(key, append([]byte(ts), body...))))
	}
	sign(strconv.FormatInt(time.Now().Unix(), 10))
	if !verify(pub, h, body) {
		t.Error("a good signature was refused")
	}
	if verify(pub, h, []byte(`{"type":2}`)) {
		t.Error("a signature of another body was accepted")
	}
	sign(strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10))
	if verify(pub, h, body) {
		t.Error("a replayed request an hour old was accepted")
	}
}

// FuzzParseInteraction feeds arbitrary payloads through parsing and the
// whole translation: nothing may panic, and a refused payload is not
// submitted.
func FuzzParseInteraction(f *testing.F) {
	f.Add([]byte(`{"id":"1","application_id":"2","type":2,"token":"t","channel_id":"3","guild_id":"4","member":{"user":{"id":"5"}},"data":{"name":"ask","options":[{"name":"question","type":3,"value":"hi"}]}}`))
	f.Add([]byte(`{"type":2,"data":{"name":"ask","options":[{"name":"question","type":3,"value":7}]}}`))
	f.Add([]byte(`{"type":2,"data":{"name":"ask","options":[null,{"name":"question","type":3}]}}`))
	f.Add([]byte(`{"type":3,"token":"t","user":{"id":"5"},"data":{"custom_id":"vote:up:abc","component_type":2}}`))
	f.Add([]byte(`{"type":3,"data":null}`))
	f.Add([]byte(`{"type":1}`))
	f.Add([]byte(`{"type":4,"data":{}}`))
	f.Add([]byte(`{"type":2,"member":{},"data":{"options":[{"options":[]}]}}`))
	// A private /ask in a DM (user, not member), its autocomplete, and
	// the Share button of its answer.
	f.Add([]byte(`{"id":"1","type":2,"token":"t","channel_id":"3","context":1,"user":{"id":"5"},"authorizing_integration_owners":{"0":"0"},"data":{"name":"ask","options":[{"name":"question","type":3,"value":"hi"},{"name":"private","type":5,"value":true}]}}`))
	f.Add([]byte(`{"type":2,"token":"t","channel_id":"3","member":{"user":{"id":"5"}},"data":{"name":"ask","options":[{"name":"question","type":3,"value":"hi"},{"name":"private","type":5,"value":"yes"}]}}`))
	f.Add([]byte(`{"type":4,"guild_id":"4","token":"t","data":{"name":"ask","options":[{"name":"question","type":3,"value":"da","focused":true}]}}`))
	f.Add([]byte(`{"type":4,"guild_id":"4","data":{"name":"ask","options":[{"name":"question","type":3,"value":7,"focused":true}]}}`))
	f.Add([]byte(`{"type":3,"token":"t","channel_id":"3","member":{"user":{"id":"5"}},"data":{"custom_id":"share:abc","component_type":2},"message":{"id":"9","flags":64,"embeds":[{"title":"q","description":"a"}]}}`))
	f.Add([]byte(`{"type":3,"token":"t","user":{"id":"5"},"data":{"custom_id":"share:","component_type":2},"message":null}`))
	// Sharing posts: to a Discord that refuses everything at once, so
	// that no input reaches the network or waits.
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"message":"fuzz","code":0}`, http.StatusBadRequest)
	}))
	f.Cleanup(refuse.Close)
	a, err := New(Config{Mode: ModeHTTP, AppID: "1", PublicKey: strings.Repeat("ab", 32), APIURL: refuse.URL + "/api/v10/",
		Liked: fuzzLiked{}}, nopDispatcher{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ia, err := parseInteraction(body)
		if err != nil {
			return
		}
		q, ok := question(ia)
		if ok && strings.TrimSpace(q) == "" {
			t.Errorf("empty question accepted from %s", body)
		}
		_ = userID(ia)
		a.interact(context.Background(), ia, func(resp *discordgo.InteractionResponse) error {
			if _, err := json.Marshal(resp); err != nil {
				t.Errorf("response does not encode: %v", err)
			}
			if resp.Data != nil && len(resp.Data.Choices) > maxChoices {
				t.Errorf("%d choices", len(resp.Data.Choices))
			}
			return nil
		})
	})
}

// fuzzLiked offers two questions, one too long to be a choice.
type fuzzLiked struct{}

func (fuzzLiked) Liked(_ context.Context, prefix string, _ int) ([]feedback.Liked, error) {
	return []feedback.Liked{{Question: "data?", Thread: prefix + "5"}, {Question: strings.Repeat("d", 200), Thread: prefix + "5"}}, nil
}

// A handler that panics on an odd gateway event must not end the process:
// discordgo runs it on a goroutine of its own, with no recover.
func TestGuardedHandlerRecovers(t *testing.T) {
	a := &Adapter{log: slog.New(slog.DiscardHandler)}
	ran := false
	h := guarded(a, "message", func(_ *discordgo.Session, mc *discordgo.MessageCreate) {
		ran = true
		_ = mc.Message.Content // nil Message: a nil dereference
	})
	h(nil, &discordgo.MessageCreate{})
	if !ran {
		t.Fatal("the handler did not run")
	}
}
