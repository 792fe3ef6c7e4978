package slacktest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"time"
)

// MessageEvent is an app_mention or message event as Slack sends it.
type MessageEvent struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype,omitempty"`
	User        string `json:"user,omitempty"`
	BotID       string `json:"bot_id,omitempty"`
	Text        string `json:"text"`
	TS          string `json:"ts"`
	ThreadTS    string `json:"thread_ts,omitempty"`
	Channel     string `json:"channel"`
	ChannelType string `json:"channel_type,omitempty"`
	EventTS     string `json:"event_ts"`
}

// Mention is a new top-level message by user in channel that @mentions the
// bot, as an app_mention event.
func (s *Server) Mention(channel, user, text string) MessageEvent {
	ts := s.NewTS()
	return MessageEvent{Type: "app_mention", User: user, Text: "<@" + s.BotUserID + "> " + text,
		TS: ts, Channel: channel, EventTS: ts}
}

// DirectMessage is a new message by user in a direct message channel with
// the bot, as a message event.
func (s *Server) DirectMessage(channel, user, text string) MessageEvent {
	ts := s.NewTS()
	return MessageEvent{Type: "message", User: user, Text: text, TS: ts, Channel: channel,
		ChannelType: "im", EventTS: ts}
}

// Reply is a reply by user, without a mention, in the thread of channel
// started by thread, as the message event Slack sends to apps subscribed
// to message.channels.
func (s *Server) Reply(channel, thread, user, text string) MessageEvent {
	ts := s.NewTS()
	return MessageEvent{Type: "message", User: user, Text: text, TS: ts, ThreadTS: thread, Channel: channel,
		ChannelType: "channel", EventTS: ts}
}

// InThread returns e as a reply in the thread started by ts.
func (e MessageEvent) InThread(ts string) MessageEvent {
	e.ThreadTS = ts
	return e
}

// AsMessage returns e as the message event Slack also sends for a mention
// when the app subscribes to messages of that channel type.
func (e MessageEvent) AsMessage(channelType string) MessageEvent {
	e.Type, e.ChannelType = "message", channelType
	return e
}

// EventCallback wraps event in the Events API's event_callback envelope
// with the given event id ("" for a new one).
func (s *Server) EventCallback(eventID string, event any) []byte {
	if eventID == "" {
		eventID = s.NewEventID()
	}
	b, err := json.Marshal(map[string]any{
		"token": "fake-verification-token", "team_id": s.TeamID, "api_app_id": s.AppID,
		"event": event, "type": "event_callback", "event_id": eventID,
		"event_time":     time.Now().Unix(),
		"authorizations": []map[string]any{{"team_id": s.TeamID, "user_id": s.BotUserID, "is_bot": true}},
		"event_context":  "4-fake",
	})
	if err != nil {
		panic(err) // the caller passed something JSON cannot hold: a test bug
	}
	return b
}

// NewEventID returns an event id not used before.
func (s *Server) NewEventID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("Ev%08d", s.ids)
}

// BlockAction is the block_actions payload Slack sends when user presses
// the button actionID (with value) on the bot's message msg.
func (s *Server) BlockAction(user string, msg Message, actionID, value string) map[string]any {
	return s.blockAction(user, msg, map[string]any{
		"action_id": actionID, "block_id": "feedback", "value": value, "type": "button",
		"text": map[string]any{"type": "plain_text", "text": actionID, "emoji": true},
	})
}

// FeedbackAction is the block_actions payload Slack sends when user
// presses the positive (or negative) button of the feedback_buttons
// element on msg; ok is false when msg has none.
func (s *Server) FeedbackAction(user string, msg Message, positive bool) (payload map[string]any, ok bool) {
	var blocks []struct {
		Type     string    `json:"type"`
		BlockID  string    `json:"block_id"`
		Elements []element `json:"elements"`
	}
	if json.Unmarshal(msg.Blocks, &blocks) != nil {
		return nil, false
	}
	for _, b := range blocks {
		for _, e := range b.Elements {
			if b.Type != "context_actions" || e.Type != "feedback_buttons" || e.Positive == nil || e.Negative == nil {
				continue
			}
			button := e.Negative
			if positive {
				button = e.Positive
			}
			return s.blockAction(user, msg, map[string]any{
				"action_id": e.ActionID, "block_id": b.BlockID, "value": button.Value, "type": "feedback_buttons",
				"text": map[string]any{"type": "plain_text", "text": button.Text.Text, "emoji": true},
			}), true
		}
	}
	return nil, false
}

func (s *Server) blockAction(user string, msg Message, action map[string]any) map[string]any {
	container := map[string]any{"type": "message", "message_ts": msg.TS, "channel_id": msg.Channel, "is_ephemeral": false}
	message := map[string]any{"type": "message", "user": s.BotUserID, "bot_id": s.BotID, "ts": msg.TS, "text": msg.Text}
	if msg.ThreadTS != "" {
		container["thread_ts"] = msg.ThreadTS
		message["thread_ts"] = msg.ThreadTS
	}
	action["action_ts"] = strconv.FormatInt(time.Now().Unix(), 10) + ".000000"
	return map[string]any{
		"type":         "block_actions",
		"user":         map[string]any{"id": user, "username": user, "team_id": s.TeamID},
		"api_app_id":   s.AppID,
		"token":        "fake-verification-token",
		"container":    container,
		"trigger_id":   "1.2.fake",
		"team":         map[string]any{"id": s.TeamID, "domain": "fake"},
		"channel":      map[string]any{"id": msg.Channel, "name": "general"},
		"message":      message,
		"response_url": s.ResponseURL(msg.Channel, user),
		"actions":      []map[string]any{action},
	}
}

// EphemeralAction is the block_actions payload Slack sends when user
// presses the button actionID (with value) on an ephemeral message in
// channel: Slack sends no message then, and a response_url to replace it.
func (s *Server) EphemeralAction(user, channel, actionID, value string) map[string]any {
	p := s.BlockAction(user, Message{Channel: channel, TS: s.NewTS()}, actionID, value)
	p["container"].(map[string]any)["is_ephemeral"] = true
	delete(p, "message")
	return p
}

// Sign returns Slack's X-Slack-Signature for body sent at ts.
func Sign(secret string, ts time.Time, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%d:", ts.Unix())
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// SignedRequest is a POST of body to target, signed with secret at the
// time at, as Slack sends Events API and interactivity requests.
func SignedRequest(secret, target string, body []byte, contentType string, at time.Time) *http.Request {
	r := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	r.Header.Set("Content-Type", contentType)
	r.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(at.Unix(), 10))
	r.Header.Set("X-Slack-Signature", Sign(secret, at, body))
	return r
}

// PostEvent delivers event to h as the Events API does: an event_callback
// with the given event id ("" for a new one), signed now and POSTed to
// /slack/events, with any extra header (such as X-Slack-Retry-Num).
func (s *Server) PostEvent(h http.Handler, eventID string, event any, header http.Header) *http.Response {
	return s.Post(h, "/slack/events", s.EventCallback(eventID, event), "application/json", header)
}

// PostInteraction delivers an interaction payload (see BlockAction) to h
// as Slack does: form-encoded, signed, POSTed to /slack/interactions.
func (s *Server) PostInteraction(h http.Handler, payload any) *http.Response {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(err) // a test bug
	}
	body := url.Values{"payload": {string(b)}}.Encode()
	return s.Post(h, "/slack/interactions", []byte(body), "application/x-www-form-urlencoded", nil)
}

// Post signs body with the server's signing secret and serves it to h at
// path, returning the response.
func (s *Server) Post(h http.Handler, path string, body []byte, contentType string, header http.Header) *http.Response {
	r := SignedRequest(s.SigningSecret, path, body, contentType, time.Now())
	for k, vs := range header {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}
