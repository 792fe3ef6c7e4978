package slacktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// This file is the fake's AI-app surface: the assistant.threads methods,
// native streaming (chat.startStream, chat.appendStream, chat.stopStream),
// slash commands' response_url and the assistant events, on Slack's wire
// format.

// Slack's limits on the AI-app surface, as the fake enforces them.
const (
	MaxStreamChars = 12000 // markdown_text of one streaming call
	MaxPrompts     = 4     // suggested prompts of one thread
	// MaxResponses is how many times a response_url may be used.
	MaxResponses = 5
)

// Prompt is one suggested prompt of an assistant thread.
type Prompt struct {
	Title   string `json:"title"`
	Message string `json:"message"`
}

// Thread is what the bot set of an assistant thread.
type Thread struct {
	Prompts  []Prompt
	Statuses []string // every status set, oldest first ("" clears it)
	Title    string
}

// assistant is the fake's state of the AI-app surface; Server.mu guards
// it.
type assistant struct {
	threads   map[string]*Thread // channel + "/" + thread_ts
	refuse    string             // chat.startStream's error code, "" to stream
	responses map[string]*Response
}

// Response is what the app sent to one response_url: the ephemeral
// message it stands for, with every version it had.
type Response struct {
	User     string
	Channel  string
	Versions []Version
	Uses     int
	Deleted  bool
}

func (s *Server) assistInit() {
	if s.assist.threads == nil {
		s.assist.threads = map[string]*Thread{}
		s.assist.responses = map[string]*Response{}
	}
}

// RefuseStreaming makes chat.startStream fail with code ("unknown_method",
// "not_allowed"…), as an older workspace does; "" streams again.
func (s *Server) RefuseStreaming(code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.assist.refuse = code
}

// AssistantThread returns what the bot set of the assistant thread, or
// nil when it set nothing.
func (s *Server) AssistantThread(channel, thread string) *Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.assistInit()
	t := s.assist.threads[channel+"/"+thread]
	if t == nil {
		return nil
	}
	c := *t
	c.Prompts = append([]Prompt(nil), t.Prompts...)
	c.Statuses = append([]string(nil), t.Statuses...)
	return &c
}

// assistantAPI serves the assistant.threads methods and streaming.
// Callers hold no lock.
func (s *Server) assistantAPI(method string, f url.Values) (map[string]any, bool) {
	switch method {
	case "assistant.threads.setSuggestedPrompts", "assistant.threads.setStatus", "assistant.threads.setTitle":
		return s.setThread(method, f), true
	case "chat.startStream":
		return s.startStream(f), true
	case "chat.appendStream", "chat.stopStream":
		return s.appendStream(method == "chat.stopStream", f), true
	}
	return nil, false
}

func (s *Server) setThread(method string, f url.Values) map[string]any {
	channel, thread := f.Get("channel_id"), f.Get("thread_ts")
	switch {
	case channel == "":
		return fail("channel_not_found")
	case thread == "":
		return fail("invalid_thread_ts")
	}
	var prompts []Prompt
	if method == "assistant.threads.setSuggestedPrompts" {
		if err := json.Unmarshal([]byte(f.Get("prompts")), &prompts); err != nil || len(prompts) == 0 {
			return fail("invalid_arguments")
		}
		if len(prompts) > MaxPrompts {
			return fail("invalid_arguments")
		}
		for _, p := range prompts {
			if p.Title == "" || p.Message == "" {
				return fail("invalid_arguments")
			}
		}
	}
	if method == "assistant.threads.setTitle" && f.Get("title") == "" {
		return fail("invalid_arguments")
	}
	if method == "assistant.threads.setStatus" && !f.Has("status") {
		return fail("invalid_arguments")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.assistInit()
	t := s.assist.threads[channel+"/"+thread]
	if t == nil {
		t = &Thread{}
		s.assist.threads[channel+"/"+thread] = t
	}
	switch method {
	case "assistant.threads.setSuggestedPrompts":
		t.Prompts = prompts
	case "assistant.threads.setStatus":
		t.Statuses = append(t.Statuses, f.Get("status"))
	case "assistant.threads.setTitle":
		t.Title = f.Get("title")
	}
	return map[string]any{"ok": true}
}

// startStream starts a streamed message: in a DM, or in a channel's
// thread with the recipient named, as Slack requires.
func (s *Server) startStream(f url.Values) map[string]any {
	channel, thread := f.Get("channel"), f.Get("thread_ts")
	md := f.Get("markdown_text")
	s.mu.Lock()
	refuse := s.assist.refuse
	s.mu.Unlock()
	switch {
	case refuse != "":
		return fail(refuse)
	case channel == "":
		return fail("channel_not_found")
	case thread == "":
		return fail("invalid_thread_ts") // streams answer someone: they are replies
	case !strings.HasPrefix(channel, "D") && (f.Get("recipient_user_id") == "" || f.Get("recipient_team_id") == ""):
		return fail("invalid_arguments")
	case utf8.RuneCountInString(md) > MaxStreamChars:
		return fail("msg_too_long")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &Message{Channel: channel, TS: s.nextTS(), ThreadTS: thread, Streaming: true, Markdown: md,
		Recipient: f.Get("recipient_user_id")}
	m.Versions = []Version{{Markdown: md}}
	s.messages = append(s.messages, m)
	s.byTS[channel+"/"+m.TS] = m
	return map[string]any{"ok": true, "channel": channel, "ts": m.TS}
}

// appendStream adds markdown to a streamed message; stop ends it, with
// the final blocks under the text.
func (s *Server) appendStream(stop bool, f url.Values) map[string]any {
	channel, ts := f.Get("channel"), f.Get("ts")
	md := f.Get("markdown_text")
	if utf8.RuneCountInString(md) > MaxStreamChars {
		return fail("msg_too_long")
	}
	var blocks json.RawMessage
	if b := f.Get("blocks"); b != "" {
		blocks = json.RawMessage(b)
		if problems := checkBlocks(blocks); len(problems) > 0 {
			return fail("invalid_blocks")
		}
	}
	if !stop && md == "" {
		return fail("no_text")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byTS[channel+"/"+ts]
	switch {
	case m == nil || m.Deleted:
		return fail("message_not_found")
	case !m.Streaming:
		return fail("message_not_in_streaming_state")
	}
	m.Markdown += md
	if stop {
		m.Streaming, m.Blocks = false, blocks
		m.Text = m.Markdown
	}
	m.Versions = append(m.Versions, Version{Markdown: m.Markdown, Blocks: m.Blocks})
	return map[string]any{"ok": true, "channel": channel, "ts": ts}
}

// ResponseURL returns a new response_url for an ephemeral answer to user
// in channel, as a slash command or an interaction carries.
func (s *Server) ResponseURL(channel, user string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.assistInit()
	s.ids++
	id := fmt.Sprintf("R%08d", s.ids)
	s.assist.responses[id] = &Response{User: user, Channel: channel}
	return s.srv.URL + "/response/" + id
}

// Response returns what was sent to a response_url (see ResponseURL), or
// nil for one never used.
func (s *Server) Response(responseURL string) *Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.assistInit()
	r := s.assist.responses[responseURL[strings.LastIndex(responseURL, "/")+1:]]
	if r == nil {
		return nil
	}
	c := *r
	c.Versions = append([]Version(nil), r.Versions...)
	return &c
}

// serveResponse takes a message posted to a response_url: JSON, as Slack
// documents it, at most MaxResponses times.
func (s *Server) serveResponse(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		Text            string          `json:"text"`
		Blocks          json.RawMessage `json:"blocks"`
		ResponseType    string          `json:"response_type"`
		ReplaceOriginal bool            `json:"replace_original"`
		DeleteOriginal  bool            `json:"delete_original"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, "invalid_payload", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.assistInit()
	resp := s.assist.responses[r.PathValue("id")]
	switch {
	case resp == nil:
		http.Error(w, "expired_url", http.StatusNotFound)
		return
	case resp.Uses >= MaxResponses:
		http.Error(w, "used_url", http.StatusNotFound)
		return
	case msg.ResponseType == "in_channel":
		http.Error(w, "in_channel responses are not expected of this app", http.StatusBadRequest)
		return
	}
	if len(msg.Blocks) > 0 && string(msg.Blocks) != "null" {
		if problems := checkBlocks(msg.Blocks); len(problems) > 0 {
			http.Error(w, "invalid_blocks", http.StatusBadRequest)
			return
		}
	} else {
		msg.Blocks = nil
	}
	resp.Uses++
	if msg.DeleteOriginal {
		resp.Deleted = true
	} else {
		resp.Versions = append(resp.Versions, Version{Text: msg.Text, Blocks: msg.Blocks})
	}
	writeJSON(w, map[string]any{"ok": true})
}

// AssistantThreadStarted is the assistant_thread_started event of user
// opening a thread of the AI-app view in the DM channel, looking at
// context (a channel id, or "").
func (s *Server) AssistantThreadStarted(channel, user, context string) AssistantEvent {
	return s.assistantEvent("assistant_thread_started", channel, s.NewTS(), user, context)
}

// AssistantContextChanged is the assistant_thread_context_changed event of
// user, in the thread, now looking at context.
func (s *Server) AssistantContextChanged(channel, thread, user, context string) AssistantEvent {
	return s.assistantEvent("assistant_thread_context_changed", channel, thread, user, context)
}

// AssistantEvent is an assistant_thread_started or
// assistant_thread_context_changed event as Slack sends it.
type AssistantEvent struct {
	Type   string `json:"type"`
	Thread struct {
		UserID    string `json:"user_id"`
		ChannelID string `json:"channel_id"`
		ThreadTS  string `json:"thread_ts"`
		Context   struct {
			ChannelID    string `json:"channel_id,omitempty"`
			TeamID       string `json:"team_id,omitempty"`
			EnterpriseID string `json:"enterprise_id,omitempty"`
		} `json:"context"`
	} `json:"assistant_thread"`
	EventTS string `json:"event_ts"`
}

func (s *Server) assistantEvent(typ, channel, thread, user, context string) AssistantEvent {
	e := AssistantEvent{Type: typ, EventTS: s.NewTS()}
	e.Thread.UserID, e.Thread.ChannelID, e.Thread.ThreadTS = user, channel, thread
	if context != "" {
		e.Thread.Context.ChannelID, e.Thread.Context.TeamID = context, s.TeamID
	}
	return e
}

// AssistantMessage is user's message in an assistant thread, as the
// message.im event Slack sends for it.
func (s *Server) AssistantMessage(channel, thread, user, text string) MessageEvent {
	return s.DirectMessage(channel, user, text).InThread(thread)
}

// SlashCommand is the form Slack posts to a slash command's request URL
// (or sends over Socket Mode) when user runs command with text in
// channel; its response_url is served by the fake (see Response).
func (s *Server) SlashCommand(channel, user, command, text string) url.Values {
	return url.Values{
		"token": {"fake-verification-token"}, "team_id": {s.TeamID}, "team_domain": {"fake"},
		"channel_id": {channel}, "channel_name": {"general"}, "user_id": {user}, "user_name": {user},
		"command": {command}, "text": {text}, "api_app_id": {s.AppID}, "is_enterprise_install": {"false"},
		"response_url": {s.ResponseURL(channel, user)}, "trigger_id": {s.NewEventID() + ".trigger"},
	}
}

// PostCommand delivers a slash command form (see SlashCommand) to h as
// Slack does: signed, form-encoded, POSTed to /slack/commands.
func (s *Server) PostCommand(h http.Handler, form url.Values) *http.Response {
	return s.Post(h, "/slack/commands", []byte(form.Encode()), "application/x-www-form-urlencoded", nil)
}
