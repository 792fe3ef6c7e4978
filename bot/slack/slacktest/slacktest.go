// Package slacktest is a fake Slack for tests: an httptest server that
// speaks Slack's wire protocol. It serves the Web API methods Switchboard
// calls (form posts, JSON answers, Slack's error codes and limits), fails
// them on demand the ways Slack and networks do (Fail: 429 with
// Retry-After, 5xx, ok:false internal_error and kin, dropped and hung
// connections, before or after doing the call), records every message and
// edit per channel and thread, runs a Socket Mode websocket, and builds
// signed Events API and interactivity requests for an adapter's HTTP
// handler.
package slacktest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// Slack's limits, as the fake enforces them.
const (
	MaxTextChars    = 40000 // chat.postMessage text: msg_too_long beyond
	MaxBlocks       = 50    // blocks per message: invalid_blocks beyond
	MaxSectionChars = 3000  // section text: invalid_blocks beyond
)

// Server is a fake Slack workspace with one app installed. Its exported
// fields are fixed by NewServer and only read afterwards.
type Server struct {
	BotToken      string // xoxb-: Web API calls
	AppToken      string // xapp-: apps.connections.open
	SigningSecret string // signs requests to the adapter
	TeamID        string
	BotUserID     string // the bot's user, as auth.test reports it
	BotID         string
	AppID         string

	srv *httptest.Server

	mu         sync.Mutex
	seq        int                 // the last timestamp handed out
	ids        int                 // the last event or envelope id handed out
	messages   []*Message          // the bot's messages in the order posted
	byTS       map[string]*Message // channel + "/" + ts
	ephemerals []Ephemeral
	calls      map[string]int
	faults     map[string][]*faultRun // per method, or AnyMethod; served in order
	quit       chan struct{}          // closed by Close: hung calls give up
	socket     *socketConn            // the open Socket Mode connection, if any
	acks       map[string]bool
	connects   int
	hist       history        // channels, people and their messages (history.go)
	admins     adminsAndViews // workspace admins and opened modals (settings.go)
	assist     assistant      // the AI-app surface (assistant.go)
}

// Message is a message the bot posted, with every version it had.
type Message struct {
	Channel  string
	TS       string
	ThreadTS string // "" for a top-level message
	Text     string // the latest fallback text
	Blocks   json.RawMessage
	Versions []Version // first post first; one more per chat.update
	Deleted  bool      // by chat.delete; Messages leaves it out
	// Unfurl holds the unfurl_links and unfurl_media the post asked for
	// ("" when left out, and Slack decides).
	Unfurl [2]string
	// Markdown is the text of a streamed message (chat.startStream), and
	// Streaming says that it was not stopped yet; Recipient is whom it
	// was streamed to.
	Markdown  string
	Streaming bool
	Recipient string
}

// Version is one content of a message: a post, an edit, or a streamed
// message's text so far (Markdown) with, once stopped, its blocks.
type Version struct {
	Text     string
	Markdown string
	Blocks   json.RawMessage
}

// Ephemeral is a message only one user sees.
type Ephemeral struct {
	Channel  string
	User     string
	ThreadTS string
	Text     string
	Blocks   json.RawMessage
}

// Content is the text the user sees in the message (see Message.Content).
func (e Ephemeral) Content() string { return content(e.Text, e.Blocks) }

// ActionValues returns the value of each button of the message by action_id.
func (e Ephemeral) ActionValues() map[string]string { return actionValues(e.Blocks) }

// NewServer starts a fake Slack; Close stops it.
func NewServer() *Server {
	s := &Server{
		BotToken:      "xoxb-fake-bot-token",
		AppToken:      "xapp-fake-app-token",
		SigningSecret: "fake-signing-secret",
		TeamID:        "TFAKE",
		BotUserID:     "UBOT",
		BotID:         "BBOT",
		AppID:         "AFAKE",
		byTS:          map[string]*Message{},
		calls:         map[string]int{},
		faults:        map[string][]*faultRun{},
		quit:          make(chan struct{}),
		acks:          map[string]bool{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/{method}", s.serveAPI)
	mux.HandleFunc("GET /link/", s.serveSocket)
	mux.HandleFunc("GET /files/{id}/{name}", s.serveFile)
	mux.HandleFunc("POST /response/{id}", s.serveResponse)
	s.srv = httptest.NewServer(mux)
	return s
}

// APIURL is the Web API base URL, for slack.OptionAPIURL.
func (s *Server) APIURL() string { return s.srv.URL + "/api/" }

// Close closes the Socket Mode connection and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	c := s.socket
	s.socket = nil
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
	s.srv.Close()
}

// NewTS returns a message timestamp not used before, later than all
// earlier ones, as Slack's "1700000000.000100" strings are.
func (s *Server) NewTS() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nextTS()
}

func (s *Server) nextTS() string {
	s.seq++
	return fmt.Sprintf("%d.%06d", 1700000000+s.seq/1000000, s.seq%1000000)
}

// RateLimit makes the next n calls of method fail with 429 and a
// Retry-After of retryAfter seconds, in place of the faults queued for it:
// Heal(method), then Fail(method, n, RateLimited(retryAfter)).
func (s *Server) RateLimit(method string, n, retryAfter int) {
	s.Heal(method)
	s.Fail(method, n, RateLimited(retryAfter))
}

// Calls reports how many times method was called, failed calls included.
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// Messages returns copies of the bot's messages in a thread (thread "" for
// top-level messages), oldest first, leaving out those deleted.
func (s *Server) Messages(channel, thread string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.messages {
		if m.Channel == channel && m.ThreadTS == thread && !m.Deleted {
			out = append(out, m.copy())
		}
	}
	return out
}

// AllMessages returns copies of all the bot's messages, oldest first,
// those deleted with chat.delete included (Deleted set).
func (s *Server) AllMessages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.messages))
	for i, m := range s.messages {
		out[i] = m.copy()
	}
	return out
}

// Ephemerals returns the ephemeral messages posted to user, oldest first.
func (s *Server) Ephemerals(user string) []Ephemeral {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Ephemeral
	for _, e := range s.ephemerals {
		if e.User == user {
			out = append(out, e)
		}
	}
	return out
}

func (m *Message) copy() Message {
	c := *m
	c.Versions = append([]Version(nil), m.Versions...)
	return c
}

// Content is the text a person sees in the message: a streamed message's
// text, then every text of its blocks, in order, or the fallback text when
// it has no blocks.
func (m Message) Content() string {
	return Version{Text: m.Text, Markdown: m.Markdown, Blocks: m.Blocks}.Content()
}

// Content is the text a person sees in this version.
func (v Version) Content() string {
	if v.Markdown == "" {
		return content(v.Text, v.Blocks)
	}
	if len(v.Blocks) == 0 {
		return v.Markdown
	}
	return v.Markdown + "\n" + content("", v.Blocks)
}

func content(text string, blocks json.RawMessage) string {
	var v any
	if len(blocks) == 0 || json.Unmarshal(blocks, &v) != nil {
		return text
	}
	var parts []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if t, ok := v["text"].(string); ok {
				parts = append(parts, t)
			}
			for _, k := range []string{"text", "fields", "elements", "accessory"} {
				if c, ok := v[k]; ok {
					walk(c)
				}
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(v)
	if len(parts) == 0 {
		return text
	}
	return strings.Join(parts, "\n")
}

// ActionValues returns the action ids and values of the message's
// buttons; the two buttons of a feedback_buttons element as its action id
// followed by "/positive" and "/negative".
func (m Message) ActionValues() map[string]string { return actionValues(m.Blocks) }

// ActionValues returns the action ids and values of the version's buttons
// (see Message.ActionValues).
func (v Version) ActionValues() map[string]string { return actionValues(v.Blocks) }

type feedbackButton struct {
	Text struct {
		Text string `json:"text"`
	} `json:"text"`
	Value string `json:"value"`
}

type element struct {
	Type     string          `json:"type"`
	ActionID string          `json:"action_id"`
	Value    string          `json:"value"`
	Positive *feedbackButton `json:"positive_button"`
	Negative *feedbackButton `json:"negative_button"`
}

func actionValues(raw json.RawMessage) map[string]string {
	var blocks []struct {
		Type     string    `json:"type"`
		Elements []element `json:"elements"`
	}
	out := map[string]string{}
	if json.Unmarshal(raw, &blocks) != nil {
		return out
	}
	for _, b := range blocks {
		if b.Type != "actions" && b.Type != "context_actions" {
			continue
		}
		for _, e := range b.Elements {
			if e.Type == "feedback_buttons" && e.Positive != nil && e.Negative != nil {
				out[e.ActionID+"/positive"], out[e.ActionID+"/negative"] = e.Positive.Value, e.Negative.Value
				continue
			}
			out[e.ActionID] = e.Value
		}
	}
	return out
}

// serveAPI answers a Web API method the way Slack does: HTTP 200 with
// {"ok": false, "error": code} for errors, and 429 for rate limits; or
// fails it with the next fault injected for it (Fail).
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	method := r.PathValue("method")
	if err := r.ParseForm(); err != nil {
		writeJSON(w, fail("invalid_form_data"))
		return
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		// Methods such as views.open take a JSON body; its fields are
		// read from the form's jsonBody.
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			writeJSON(w, fail("invalid_json"))
			return
		}
		r.Form.Set(jsonBody, string(body))
	}
	if h, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		r.Form.Set("token", h)
	}
	s.mu.Lock()
	s.calls[method]++
	f, faulted := s.nextFault(method)
	s.mu.Unlock()
	if !faulted {
		writeJSON(w, s.call(method, r.Form))
		return
	}
	if f.Applied {
		s.call(method, r.Form) // done, but the caller hears the fault
	}
	s.serveFault(w, r, f)
}

// call does what method asks and returns Slack's answer.
func (s *Server) call(method string, form url.Values) map[string]any {
	want := s.BotToken
	if method == "apps.connections.open" {
		want = s.AppToken
	}
	if code := checkToken(form, want); code != "" {
		return fail(code)
	}
	switch method {
	case "auth.test":
		return map[string]any{"ok": true, "url": "https://fake.slack.com/", "team": "Fake",
			"user": "switchboard", "team_id": s.TeamID, "user_id": s.BotUserID, "bot_id": s.BotID}
	case "chat.postMessage":
		return s.postMessage(form)
	case "chat.update":
		return s.update(form)
	case "chat.delete":
		return s.delete(form)
	case "chat.postEphemeral":
		return s.postEphemeral(form)
	case "apps.connections.open":
		u := "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/link/?ticket=fake&app_id=" + s.AppID
		return map[string]any{"ok": true, "url": u}
	}
	if resp, ok := s.assistantAPI(method, form); ok {
		return resp
	}
	if resp, ok := s.settingsAPI(method, form); ok {
		return resp
	}
	if resp, ok := s.historyAPI(method, form); ok {
		return resp
	}
	return fail("unknown_method")
}

// checkToken returns Slack's error code for a missing or wrong token.
// serveAPI puts a bearer token into the form as "token".
func checkToken(form url.Values, want string) string {
	got := form.Get("token")
	switch {
	case got == "":
		return "not_authed"
	case got == want:
		return ""
	case strings.HasPrefix(got, "xapp-") != strings.HasPrefix(want, "xapp-"):
		return "not_allowed_token_type"
	default:
		return "invalid_auth"
	}
}

func (s *Server) postMessage(f url.Values) map[string]any {
	channel := f.Get("channel")
	if channel == "" {
		return fail("channel_not_found")
	}
	v, errResp := readContent(f)
	if errResp != nil {
		return errResp
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &Message{Channel: channel, TS: s.nextTS(), ThreadTS: f.Get("thread_ts"), Text: v.Text, Blocks: v.Blocks,
		Versions: []Version{v}, Unfurl: [2]string{f.Get("unfurl_links"), f.Get("unfurl_media")}}
	s.messages = append(s.messages, m)
	s.byTS[channel+"/"+m.TS] = m
	return map[string]any{"ok": true, "channel": channel, "ts": m.TS, "message": s.wire(m)}
}

func (s *Server) update(f url.Values) map[string]any {
	channel, ts := f.Get("channel"), f.Get("ts")
	v, errResp := readContent(f)
	if errResp != nil {
		return errResp
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byTS[channel+"/"+ts]
	if m == nil || m.Deleted {
		return fail("message_not_found")
	}
	// Like Slack, a field left out keeps its old value.
	if f.Has("text") {
		m.Text = v.Text
	}
	if f.Has("blocks") {
		m.Blocks = v.Blocks
	}
	m.Versions = append(m.Versions, Version{Text: m.Text, Blocks: m.Blocks})
	return map[string]any{"ok": true, "channel": channel, "ts": ts, "text": m.Text, "message": s.wire(m)}
}

func (s *Server) delete(f url.Values) map[string]any {
	channel, ts := f.Get("channel"), f.Get("ts")
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byTS[channel+"/"+ts]
	if m == nil || m.Deleted {
		return fail("message_not_found")
	}
	m.Deleted = true
	return map[string]any{"ok": true, "channel": channel, "ts": ts}
}

func (s *Server) postEphemeral(f url.Values) map[string]any {
	channel, user := f.Get("channel"), f.Get("user")
	switch {
	case channel == "":
		return fail("channel_not_found")
	case user == "":
		return fail("user_not_found")
	}
	v, errResp := readContent(f)
	if errResp != nil {
		return errResp
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ephemerals = append(s.ephemerals, Ephemeral{Channel: channel, User: user, ThreadTS: f.Get("thread_ts"), Text: v.Text, Blocks: v.Blocks})
	return map[string]any{"ok": true, "message_ts": s.nextTS()}
}

// wire is a message as Slack returns it in responses.
func (s *Server) wire(m *Message) map[string]any {
	msg := map[string]any{"type": "message", "user": s.BotUserID, "bot_id": s.BotID, "text": m.Text, "ts": m.TS}
	if m.ThreadTS != "" {
		msg["thread_ts"] = m.ThreadTS
	}
	if len(m.Blocks) > 0 {
		msg["blocks"] = m.Blocks
	}
	return msg
}

// readContent reads text and blocks and checks them against Slack's limits.
func readContent(f url.Values) (Version, map[string]any) {
	v := Version{Text: f.Get("text")}
	if b := f.Get("blocks"); b != "" {
		v.Blocks = json.RawMessage(b)
	}
	if v.Text == "" && len(v.Blocks) == 0 && !f.Has("blocks") {
		return v, fail("no_text")
	}
	if utf8.RuneCountInString(v.Text) > MaxTextChars {
		return v, fail("msg_too_long")
	}
	if len(v.Blocks) > 0 {
		if problems := checkBlocks(v.Blocks); len(problems) > 0 {
			resp := fail("invalid_blocks")
			resp["errors"] = problems
			msgs := make([]string, len(problems))
			for i, p := range problems {
				msgs[i] = "[ERROR] " + p
			}
			resp["response_metadata"] = map[string]any{"messages": msgs}
			return v, resp
		}
	}
	return v, nil
}

// checkBlocks returns Slack-style complaints about blocks that break the
// limits Switchboard must respect.
func checkBlocks(raw json.RawMessage) []string {
	var blocks []struct {
		Type string `json:"type"`
		Text *struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"text"`
		Elements []struct {
			Type  string `json:"type"`
			Text  any    `json:"text"`
			Value string `json:"value"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return []string{"invalid JSON: " + err.Error()}
	}
	var problems []string
	if len(blocks) > MaxBlocks {
		problems = append(problems, fmt.Sprintf("no more than %d items allowed [json-pointer:/blocks]", MaxBlocks))
	}
	for i, b := range blocks {
		switch b.Type {
		case "":
			problems = append(problems, fmt.Sprintf("missing required field: type [json-pointer:/blocks/%d]", i))
		case "section":
			if b.Text != nil && utf8.RuneCountInString(b.Text.Text) > MaxSectionChars {
				problems = append(problems, fmt.Sprintf("must be less than %d characters [json-pointer:/blocks/%d/text/text]", MaxSectionChars+1, i))
			}
			if b.Text != nil && b.Text.Text == "" {
				problems = append(problems, fmt.Sprintf("must be more than 0 characters [json-pointer:/blocks/%d/text/text]", i))
			}
		case "actions":
			for j, e := range b.Elements {
				if utf8.RuneCountInString(e.Value) > 2000 {
					problems = append(problems, fmt.Sprintf("must be less than 2001 characters [json-pointer:/blocks/%d/elements/%d/value]", i, j))
				}
			}
		}
	}
	return problems
}

func fail(code string) map[string]any { return map[string]any{"ok": false, "error": code} }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

// Wait polls cond until it holds, failing the test with what after
// timeout. Tests of asynchronous work wait with it instead of sleeping.
func Wait(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// websocket upgrader for the Socket Mode endpoint. slack-go sends an
// Origin of https://api.slack.com, which is not this server.
var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
