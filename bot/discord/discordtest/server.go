// Package discordtest is a fake Discord for tests: an httptest server that
// speaks Discord's REST API (v10) and gateway websocket, and signs HTTP
// interactions the way Discord does. It keeps every message, edit and
// interaction response so that tests can assert what people would see,
// and enforces what Discord enforces: bot-token auth, message limits,
// one response per interaction within three seconds, expiring tokens and
// rate limits on demand.
package discordtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/internal/text"
)

// ackDeadline is how long Discord waits for an interaction's response.
const ackDeadline = 3 * time.Second

// Server is a fake Discord. Create it with New; it closes itself when the
// test ends.
type Server struct {
	URL    string // the server, e.g. http://127.0.0.1:9001
	APIURL string // the REST base: URL + "/api/v10/"
	Token  string // the bot token it accepts (without "Bot ")
	AppID  string // the application id
	Bot    User   // the bot's user, sent in READY and by GET /users/@me
	// Timeout bounds Wait; it is generous because -race slows tests down.
	Timeout time.Duration

	srv *httptest.Server
	key ed25519.PrivateKey
	pub ed25519.PublicKey

	mu         sync.Mutex
	next       int64
	msgs       []*Message
	calls      []Call
	byToken    map[string]*interaction
	limits     []*limit
	commands   map[string][]Command // by "global" or guild id
	conns      map[*gwConn]bool
	identifies []Identify
	expired    map[string]bool // tokens made unusable, delivered or not
	closed     bool
	hist       history           // channels, threads and attachments (history.go)
	dms        map[string]string // DM channels opened by the bot, by user
}

// interaction is what the fake knows of an interaction it delivered.
type interaction struct {
	id, token, channel, guild string
	user                      User // who used it
	typ                       int
	message                   string // the pressed message of a component interaction
	delivered                 time.Time
	acked                     bool
	callbacks                 []Callback
	original                  *Message
}

// metadata is the interaction_metadata of the messages its webhook makes.
func (ia *interaction) metadata() *InteractionMetadata {
	return &InteractionMetadata{ID: ia.id, Type: ia.typ, User: ia.user}
}

// limit answers the next n matching requests with 429.
type limit struct {
	method, prefix string
	n              int
}

// New starts a fake Discord with a fresh bot token, application and key.
func New(t testing.TB) *Server {
	t.Helper()
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{
		Token:    "fake-bot-token." + hex.EncodeToString(pub[:6]),
		Timeout:  30 * time.Second,
		key:      key,
		pub:      pub,
		next:     1_000_000_000_000_000_000,
		byToken:  map[string]*interaction{},
		commands: map[string][]Command{},
		conns:    map[*gwConn]bool{},
		expired:  map[string]bool{},
		dms:      map[string]string{},
	}
	s.AppID = s.id()
	s.Bot = User{ID: s.id(), Username: "switchboard", Bot: true}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v10/", s.serveREST)
	mux.HandleFunc("/gateway/", s.serveGateway)
	mux.HandleFunc("GET /attachments/{id}/{name}", s.serveAttachment)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	s.APIURL = s.srv.URL + "/api/v10/"
	t.Cleanup(s.Close)
	return s
}

// Close disconnects gateway clients and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	conns := make([]*gwConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
	s.srv.Close()
}

// PublicKey is the application's public key, hex, as the Developer Portal
// shows it: the adapter's Config.PublicKey.
func (s *Server) PublicKey() string { return hex.EncodeToString(s.pub) }

// id returns a new snowflake: of now, as Discord's carry the time they
// were made (the bot orders a conversation's questions by it), and
// greater than the last. Callers hold s.mu or run before serving.
func (s *Server) id() string {
	s.next = max(s.next+1, (time.Now().UnixMilli()-discordEpoch)<<22)
	return strconv.FormatInt(s.next, 10)
}

// RateLimit makes the next n requests whose method matches (any if "")
// and whose path after /api/v10 starts with prefix fail with 429.
func (s *Server) RateLimit(method, prefix string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits = append(s.limits, &limit{method: method, prefix: prefix, n: n})
}

// Expire makes an interaction's token unusable, as after 15 minutes:
// its webhook endpoints answer 404 Unknown Webhook. It may be called
// before the interaction is delivered.
func (s *Server) Expire(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expired[token] = true
}

// Wait polls cond until it holds, failing the test after Timeout.
func (s *Server) Wait(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(s.Timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("discordtest: timed out waiting for %s; messages:\n%s", what, s.Dump())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Dump describes every message, for failure output.
func (s *Server) Dump() string {
	var b strings.Builder
	for _, m := range s.Messages() {
		fmt.Fprintf(&b, "- %s in %s by %s (token %q original=%v deferred=%v deleted=%v flags=%d edits=%d): %q\n",
			m.ID, m.ChannelID, m.Author.Username, m.Token, m.Original, m.Deferred, m.Deleted, m.Flags, m.Edits, text.Clip(m.Text(), 300))
	}
	return b.String()
}

// Messages returns copies of all messages, in the order they were made.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, 0, len(s.msgs))
	for _, m := range s.msgs {
		out = append(out, m.clone())
	}
	return out
}

// BotMessages returns the bot's visible messages in a channel: channel
// messages and interaction responses, not deleted, not ephemeral, oldest
// first.
func (s *Server) BotMessages(channel string) []Message {
	var out []Message
	for _, m := range s.Messages() {
		if m.ChannelID == channel && m.Author.ID == s.Bot.ID && !m.Deleted && !m.Ephemeral() {
			out = append(out, m)
		}
	}
	return out
}

// Original returns an interaction's original response.
func (s *Server) Original(token string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ia := s.byToken[token]
	if ia == nil || ia.original == nil {
		return Message{}, false
	}
	return ia.original.clone(), true
}

// Followups returns an interaction's follow-up messages, oldest first.
func (s *Server) Followups(token string) []Message {
	var out []Message
	for _, m := range s.Messages() {
		if m.Token == token && !m.Original {
			out = append(out, m)
		}
	}
	return out
}

// Callbacks returns the responses an interaction received.
func (s *Server) Callbacks(token string) []Callback {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ia := s.byToken[token]; ia != nil {
		return append([]Callback(nil), ia.callbacks...)
	}
	return nil
}

// Calls returns the REST requests received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Commands returns the commands registered globally ("") or in a guild.
func (s *Server) Commands(guild string) []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	if guild == "" {
		guild = "global"
	}
	return append([]Command(nil), s.commands[guild]...)
}

// Identifies returns what gateway clients identified with.
func (s *Server) Identifies() []Identify {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Identify(nil), s.identifies...)
}

// apiError is Discord's JSON error body.
type apiError struct {
	Message string `json:"message"`
	Code    int    `json:"code"`
}

// Discord's JSON error codes the fake uses.
const (
	codeUnknownMessage     = 10008
	codeUnknownWebhook     = 10015
	codeUnknownInteraction = 10062
	codeEmptyMessage       = 50006
	codeInvalidForm        = 50035
	codeAlreadyAcked       = 40060
)

// serveREST routes /api/v10/… requests.
func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	path := strings.TrimPrefix(r.URL.Path, "/api/v10")
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		s.mu.Lock()
		s.calls = append(s.calls, Call{Method: r.Method, Path: path, Status: rec.status, Body: body})
		s.mu.Unlock()
	}()
	w = rec
	if s.limited(r.Method, path) {
		reset := time.Now().Add(50 * time.Millisecond)
		h := w.Header()
		h.Set("Retry-After", "1") // whole seconds, rounded up, as Discord sends it
		h.Set("X-RateLimit-Limit", "5")
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Reset", strconv.FormatFloat(float64(reset.UnixMilli())/1000, 'f', 3, 64))
		h.Set("X-RateLimit-Reset-After", "0.050")
		h.Set("X-RateLimit-Bucket", "fakebucket")
		h.Set("X-RateLimit-Scope", "user")
		writeJSON(w, http.StatusTooManyRequests, map[string]any{
			"message": "You are being rate limited.", "retry_after": 0.05, "global": false,
		})
		return
	}
	seg := strings.Split(strings.Trim(path, "/"), "/")
	bot := func() bool {
		if r.Header.Get("Authorization") != "Bot "+s.Token {
			writeJSON(w, http.StatusUnauthorized, apiError{"401: Unauthorized", 0})
			return false
		}
		return true
	}
	switch {
	case r.Method == http.MethodGet && path == "/gateway":
		writeJSON(w, http.StatusOK, map[string]any{"url": s.gatewayURL()})
	case r.Method == http.MethodGet && path == "/gateway/bot":
		if bot() {
			writeJSON(w, http.StatusOK, map[string]any{"url": s.gatewayURL(), "shards": 1,
				"session_start_limit": map[string]int{"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}})
		}
	case r.Method == http.MethodGet && path == "/users/@me":
		if bot() {
			writeJSON(w, http.StatusOK, s.Bot)
		}
	case r.Method == http.MethodPost && path == "/users/@me/channels":
		if bot() {
			status, v := s.openDM(body)
			writeJSON(w, status, v)
		}
	case r.Method == http.MethodPut && len(seg) == 3 && seg[0] == "applications" && seg[2] == "commands":
		if bot() {
			s.putCommands(w, seg[1], "global", body)
		}
	case r.Method == http.MethodPut && len(seg) == 5 && seg[0] == "applications" && seg[2] == "guilds" && seg[4] == "commands":
		if bot() {
			s.putCommands(w, seg[1], seg[3], body)
		}
	case r.Method == http.MethodPost && len(seg) == 4 && seg[0] == "interactions" && seg[3] == "callback":
		status, v := s.respond(seg[1], seg[2], body)
		writeJSON(w, status, v)
	case r.Method == http.MethodPost && len(seg) == 3 && seg[0] == "webhooks":
		status, v := s.followup(seg[1], seg[2], r.URL.Query().Get("wait") == "true", body)
		writeJSON(w, status, v)
	case len(seg) == 5 && seg[0] == "webhooks" && seg[3] == "messages":
		status, v := s.webhookMessage(r.Method, seg[1], seg[2], seg[4], body)
		writeJSON(w, status, v)
	case r.Method == http.MethodPost && len(seg) == 3 && seg[0] == "channels" && seg[2] == "messages":
		if bot() {
			status, v := s.createMessage(seg[1], body)
			writeJSON(w, status, v)
		}
	case r.Method == http.MethodGet && len(seg) == 4 && seg[0] == "channels" && seg[2] == "messages":
		if bot() {
			status, v := s.getMessage(seg[1], seg[3])
			writeJSON(w, status, v)
		}
	case r.Method == http.MethodPatch && len(seg) == 4 && seg[0] == "channels" && seg[2] == "messages":
		if bot() {
			status, v := s.editMessage(seg[1], seg[3], body)
			writeJSON(w, status, v)
		}
	default:
		if status, v, ok := s.historyREST(r.Method, seg, r.URL.Query()); ok {
			if bot() {
				writeJSON(w, status, v)
			}
			return
		}
		writeJSON(w, http.StatusNotFound, apiError{"404: Not Found", 0})
	}
}

// recorder remembers the status a handler wrote.
type recorder struct {
	http.ResponseWriter
	status int
}

// WriteHeader implements http.ResponseWriter.
func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// writeJSON sends v as JSON with status; 204 has no body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"message":"fake: `+err.Error()+`","code":0}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// limited consumes one programmed 429 for the request, if any matches.
func (s *Server) limited(method, path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.limits {
		if l.n > 0 && (l.method == "" || l.method == method) && strings.HasPrefix(path, l.prefix) {
			l.n--
			return true
		}
	}
	return false
}

func (s *Server) putCommands(w http.ResponseWriter, app, scope string, body []byte) {
	if app != s.AppID {
		writeJSON(w, http.StatusForbidden, apiError{"Missing Access", 50001})
		return
	}
	var cmds []Command
	if err := json.Unmarshal(body, &cmds); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range cmds {
		c := &cmds[i]
		if err := c.validate(); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm})
			return
		}
		c.ID = s.id()
	}
	s.commands[scope] = cmds
	writeJSON(w, http.StatusOK, cmds)
}

// respond applies an interaction response, from the callback endpoint or
// from the HTTP response to a delivered interaction. As Discord, it takes
// the types that fit the interaction: autocomplete results (8) for
// autocomplete only, message updates (6, 7) for buttons only.
func (s *Server) respond(id, token string, body []byte) (int, any) {
	var resp struct {
		Type int          `json:"type"`
		Data *messageBody `json:"data"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ia := s.byToken[token]
	switch {
	case ia == nil || ia.id != id:
		return http.StatusNotFound, apiError{"Unknown interaction", codeUnknownInteraction}
	case time.Since(ia.delivered) > ackDeadline:
		return http.StatusNotFound, apiError{"Unknown interaction", codeUnknownInteraction}
	case ia.acked:
		return http.StatusBadRequest, apiError{"Interaction has already been acknowledged.", codeAlreadyAcked}
	case (ia.typ == InteractionAutocomplete) != (resp.Type == CallbackAutocomplete),
		(resp.Type == CallbackUpdate || resp.Type == CallbackDeferredUpdate) && ia.typ != InteractionComponent:
		return http.StatusBadRequest, apiError{fmt.Sprintf("Interaction response type %d does not fit interaction type %d", resp.Type, ia.typ), codeInvalidForm}
	}
	cb := Callback{Type: resp.Type}
	m := &Message{ID: s.id(), ChannelID: ia.channel, GuildID: ia.guild, Author: s.Bot, Token: token, Original: true,
		Interaction: ia.metadata()}
	if resp.Data != nil {
		if err := resp.Data.validate(); err != nil {
			return http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm}
		}
		if resp.Data.Flags != nil {
			cb.Flags, m.Flags = *resp.Data.Flags&flagEphemeral, *resp.Data.Flags&flagEphemeral
		}
	}
	switch resp.Type {
	case CallbackDeferred:
		m.Deferred = true
	case CallbackMessage:
		if resp.Data == nil || resp.Data.empty() {
			return http.StatusBadRequest, apiError{"Cannot send an empty message", codeEmptyMessage}
		}
		resp.Data.apply(m)
		cb.Content, cb.Embeds = m.Content, m.Embeds
	case CallbackUpdate, CallbackDeferredUpdate:
		// The pressed message is the response: it is edited, and
		// follow-ups are new messages.
		pressed := s.message(ia.message)
		if pressed == nil {
			return http.StatusNotFound, apiError{"Unknown Message", codeUnknownMessage}
		}
		if resp.Type == CallbackUpdate && resp.Data != nil {
			resp.Data.apply(pressed)
			pressed.Edits++
			cb.Content, cb.Embeds = pressed.Content, pressed.Embeds
		}
		ia.acked = true
		ia.callbacks = append(ia.callbacks, cb)
		ia.original = pressed
		return http.StatusNoContent, nil
	case CallbackAutocomplete:
		var choices []Choice
		if resp.Data != nil && resp.Data.Choices != nil {
			choices = *resp.Data.Choices
		}
		if err := validChoices(choices); err != nil {
			return http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm}
		}
		ia.acked = true
		cb.Choices = choices
		ia.callbacks = append(ia.callbacks, cb)
		return http.StatusNoContent, nil
	default:
		return http.StatusBadRequest, apiError{fmt.Sprintf("Invalid Form Body: type %d is not supported by the fake", resp.Type), codeInvalidForm}
	}
	ia.acked = true
	ia.callbacks = append(ia.callbacks, cb)
	ia.original = m
	s.msgs = append(s.msgs, m)
	return http.StatusNoContent, nil
}

// getMessage handles GET /channels/{channel}/messages/{id}: any message
// the fake holds there that everyone sees.
func (s *Server) getMessage(channel, id string) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.message(id); m != nil && m.ChannelID == channel && !m.Ephemeral() {
		return http.StatusOK, m.clone()
	}
	return http.StatusNotFound, apiError{"Unknown Message", 10008}
}

// message finds a message by id. Callers hold s.mu.
func (s *Server) message(id string) *Message {
	for _, m := range s.msgs {
		if m.ID == id && id != "" && !m.Deleted {
			return m
		}
	}
	return nil
}

// openDM handles POST /users/@me/channels: the bot's DM channel with a
// user, the same one each time.
func (s *Server) openDM(body []byte) (int, any) {
	var b struct {
		RecipientID string `json:"recipient_id"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.RecipientID == "" {
		return http.StatusBadRequest, apiError{"Invalid Form Body: recipient_id is required", codeInvalidForm}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.dms[b.RecipientID]
	if ch == "" {
		ch = s.id()
		s.dms[b.RecipientID] = ch
	}
	return http.StatusOK, map[string]any{"id": ch, "type": 1, "recipients": []User{{ID: b.RecipientID, Username: "user" + b.RecipientID}}}
}

// DM returns the bot's DM channel with user, "" if the bot never opened one.
func (s *Server) DM(user string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dms[user]
}

// webhookInteraction finds the interaction behind a webhook URL, or says
// why it cannot be used. Callers hold s.mu.
func (s *Server) webhookInteraction(app, token string) (*interaction, *apiError) {
	ia := s.byToken[token]
	if app != s.AppID || ia == nil || s.expired[token] || !ia.acked {
		return nil, &apiError{"Unknown Webhook", codeUnknownWebhook}
	}
	return ia, nil
}

// followup handles POST /webhooks/{app}/{token}. As in Discord, the first
// follow-up of a deferred response that was never edited takes that
// response's place, keeping its visibility.
func (s *Server) followup(app, token string, wait bool, body []byte) (int, any) {
	var b messageBody
	if err := json.Unmarshal(body, &b); err != nil {
		return http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm}
	}
	if err := b.validate(); err != nil {
		return http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm}
	}
	if b.empty() {
		return http.StatusBadRequest, apiError{"Cannot send an empty message", codeEmptyMessage}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ia, aerr := s.webhookInteraction(app, token)
	if aerr != nil {
		return http.StatusNotFound, aerr
	}
	var m *Message
	if o := ia.original; o != nil && o.Deferred && !o.Deleted {
		m = o
		m.Deferred = false
		m.Edits++
	} else {
		m = &Message{ID: s.id(), ChannelID: ia.channel, GuildID: ia.guild, Author: s.Bot, Token: token, Interaction: ia.metadata()}
		if b.Flags != nil {
			m.Flags = *b.Flags & flagEphemeral
		}
		s.msgs = append(s.msgs, m)
	}
	b.apply(m)
	if !wait {
		return http.StatusNoContent, nil
	}
	return http.StatusOK, m.clone()
}

// webhookMessage handles GET, PATCH and DELETE of
// /webhooks/{app}/{token}/messages/{id or @original}.
func (s *Server) webhookMessage(method, app, token, id string, body []byte) (int, any) {
	var b messageBody
	if method == http.MethodPatch {
		if err := json.Unmarshal(body, &b); err != nil {
			return http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm}
		}
		if err := b.validate(); err != nil {
			return http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ia, aerr := s.webhookInteraction(app, token)
	if aerr != nil {
		return http.StatusNotFound, aerr
	}
	var m *Message
	if id == "@original" {
		m = ia.original
	} else {
		for _, x := range s.msgs {
			if x.ID == id && x.Token == token {
				m = x
			}
		}
	}
	if m == nil || m.Deleted {
		return http.StatusNotFound, apiError{"Unknown Message", codeUnknownMessage}
	}
	switch method {
	case http.MethodGet:
		return http.StatusOK, m.clone()
	case http.MethodPatch:
		b.apply(m)
		m.Deferred = false
		m.Edits++
		return http.StatusOK, m.clone()
	case http.MethodDelete:
		m.Deleted = true
		return http.StatusNoContent, nil
	}
	return http.StatusMethodNotAllowed, apiError{"405: Method Not Allowed", 0}
}

// createMessage handles POST /channels/{id}/messages.
func (s *Server) createMessage(channel string, body []byte) (int, any) {
	var b messageBody
	if err := json.Unmarshal(body, &b); err != nil {
		return http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm}
	}
	if b.empty() {
		return http.StatusBadRequest, apiError{"Cannot send an empty message", codeEmptyMessage}
	}
	if err := b.validate(); err != nil {
		return http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &Message{ID: s.id(), ChannelID: channel, Author: s.Bot}
	if b.Reference != nil {
		m.Reference = b.Reference
		m.Type = 19 // REPLY
	}
	b.apply(m)
	s.msgs = append(s.msgs, m)
	return http.StatusOK, m.clone()
}

// editMessage handles PATCH /channels/{id}/messages/{id}: only the bot's
// own messages can be edited.
func (s *Server) editMessage(channel, id string, body []byte) (int, any) {
	var b messageBody
	if err := json.Unmarshal(body, &b); err != nil {
		return http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm}
	}
	if err := b.validate(); err != nil {
		return http.StatusBadRequest, apiError{"Invalid Form Body: " + err.Error(), codeInvalidForm}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.msgs {
		if m.ID == id && m.ChannelID == channel && !m.Deleted {
			if m.Author.ID != s.Bot.ID || m.Token != "" {
				return http.StatusForbidden, apiError{"Cannot edit a message authored by another user", 50005}
			}
			b.apply(m)
			m.Edits++
			return http.StatusOK, m.clone()
		}
	}
	return http.StatusNotFound, apiError{"Unknown Message", codeUnknownMessage}
}

func (s *Server) gatewayURL() string {
	return "ws" + strings.TrimPrefix(s.URL, "http") + "/gateway"
}
