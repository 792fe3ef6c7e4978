package slacktest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// This file gives the fake a workspace with history: channels, people and
// their messages, threads and files, served by conversations.info,
// conversations.history, conversations.replies, users.info,
// chat.getPermalink and the files' url_private. The bot's own posts
// (chat.postMessage) are kept apart, in Messages, and are not part of it,
// except that conversations.replies returns the bot's replies in a thread
// among the others, as Slack does (the bot looks there for a post it is
// not sure it made).

// history is the workspace's content. Server.mu guards it.
type history struct {
	channels map[string]*histChannel
	users    map[string]string // id → display name
	files    map[string]*histFile
	fileSeq  int
}

type histChannel struct {
	id, name string
	private  bool
	created  time.Time
	msgs     map[string]*histMsg   // by ts
	sorted   []*histMsg            // oldest first; nil when stale
	threads  map[string][]*histMsg // replies by thread, oldest first; rebuilt with sorted
}

type histMsg struct {
	ts, thread string // thread: the thread's first ts, "" if none
	user       string
	botID      string
	username   string // of a bot message
	text       string
	subtype    string // "" or "tombstone" for a deleted first message with replies
	files      []string
	edited     string // ts of the last edit, "" if never
}

type histFile struct {
	id, name, mimetype string
	data               []byte
	created            time.Time
}

// Permalink base of the fake's workspace, as auth.test's url says.
const workspaceURL = "https://fake.slack.com/"

func (s *Server) histInit() {
	if s.hist.channels == nil {
		s.hist.channels = map[string]*histChannel{}
		s.hist.users = map[string]string{}
		s.hist.files = map[string]*histFile{}
	}
}

// AddChannel creates a channel (private: a private channel, "group").
func (s *Server) AddChannel(id, name string, private bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histInit()
	s.hist.channels[id] = &histChannel{id: id, name: name, private: private,
		created: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), msgs: map[string]*histMsg{}}
}

// AddUser names a person, as users.info reports them.
func (s *Server) AddUser(id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histInit()
	s.hist.users[id] = name
}

// PostAt adds a message by user to channel at the time at and returns its
// ts. Times are kept to the microsecond and made unique in the channel.
func (s *Server) PostAt(channel, user, text string, at time.Time) string {
	return s.add(channel, "", user, "", text, at)
}

// ReplyAt adds a reply by user in the thread of the message thread.
func (s *Server) ReplyAt(channel, thread, user, text string, at time.Time) string {
	return s.add(channel, thread, user, "", text, at)
}

// PostBotAt adds a message by a bot (botID; the app's own is Server.BotID).
func (s *Server) PostBotAt(channel, botID, text string, at time.Time) string {
	return s.add(channel, "", "", botID, text, at)
}

func (s *Server) add(channel, thread, user, botID, text string, at time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channel(channel)
	t := at.UTC().Truncate(time.Microsecond)
	ts := tsOf(t)
	for ch.msgs[ts] != nil {
		t = t.Add(time.Microsecond)
		ts = tsOf(t)
	}
	m := &histMsg{ts: ts, thread: thread, user: user, botID: botID, text: text}
	if botID != "" {
		m.username = "somebot"
	}
	ch.put(m)
	return ts
}

// put adds m to the channel, a reply to its thread. Callers hold s.mu.
func (ch *histChannel) put(m *histMsg) {
	if m.thread != "" {
		if root := ch.msgs[m.thread]; root != nil && root.thread == "" {
			root.thread = m.thread
		}
	}
	ch.msgs[m.ts] = m
	ch.sorted = nil
}

// Keep adds the message of e (a Mention, a Reply) to the workspace's
// history, as Slack keeps the messages it delivers, and returns e.
func (s *Server) Keep(e MessageEvent) MessageEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.channel(e.Channel).put(&histMsg{ts: e.TS, thread: e.ThreadTS, user: e.User, botID: e.BotID, text: e.Text})
	return e
}

// Say adds user's reply in the thread of channel started by thread, after
// everything posted so far, and returns its ts.
func (s *Server) Say(channel, thread, user, text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := s.nextTS()
	s.channel(channel).put(&histMsg{ts: ts, thread: thread, user: user, text: text})
	return ts
}

// HistoryMessage is a message as an interaction payload carries it.
type HistoryMessage struct {
	TS, ThreadTS, User, BotID, Text string
}

// MessageAction is the message_action payload Slack sends when user uses
// the message shortcut callbackID on the message m in channel.
func (s *Server) MessageAction(user, channel, callbackID string, m HistoryMessage) map[string]any {
	msg := map[string]any{"type": "message", "ts": m.TS, "text": m.Text}
	if m.ThreadTS != "" {
		msg["thread_ts"] = m.ThreadTS
	}
	if m.User != "" {
		msg["user"] = m.User
	}
	if m.BotID != "" {
		msg["bot_id"], msg["subtype"] = m.BotID, "bot_message"
	}
	return map[string]any{
		"type": "message_action", "callback_id": callbackID, "trigger_id": "1.2.fake", "action_ts": s.NewTS(),
		"token": "fake-verification-token", "team": map[string]any{"id": s.TeamID, "domain": "fake"},
		"user":    map[string]any{"id": user, "name": user, "team_id": s.TeamID},
		"channel": map[string]any{"id": channel, "name": strings.ToLower(channel)},
		"message": msg, "message_ts": m.TS, "response_url": s.ResponseURL(channel, user),
	}
}

// channel returns a channel, creating a public one if needed. Callers hold
// s.mu.
func (s *Server) channel(id string) *histChannel {
	s.histInit()
	ch := s.hist.channels[id]
	if ch == nil {
		ch = &histChannel{id: id, name: strings.ToLower(id), created: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), msgs: map[string]*histMsg{}}
		s.hist.channels[id] = ch
	}
	return ch
}

func tsOf(t time.Time) string { return fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000) }

// timeOf reads a ts; zero for anything else.
func timeOf(ts string) time.Time {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err1 := strconv.ParseInt(sec, 10, 64)
	us, err2 := strconv.ParseInt((frac + "000000")[:6], 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}
	}
	return time.Unix(s, us*1000).UTC()
}

// Edit changes a message's text, as a person editing it does.
func (s *Server) Edit(channel, ts, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.channel(channel).msgs[ts]; m != nil {
		m.text = text
		m.edited = s.nextTS()
	}
}

// Delete deletes a message. As in Slack, a thread's first message that
// has replies stays as a tombstone ("This message was deleted.").
func (s *Server) Delete(channel, ts string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channel(channel)
	m := ch.msgs[ts]
	if m == nil {
		return
	}
	if m.thread == ts && len(ch.replies(ts)) > 0 {
		m.subtype, m.text, m.user, m.files = "tombstone", "This message was deleted.", "USLACKBOT", nil
		return
	}
	delete(ch.msgs, ts)
	ch.sorted = nil
	if m.thread != "" && m.thread != ts {
		if root := ch.msgs[m.thread]; root != nil && len(ch.replies(m.thread)) == 0 {
			if root.subtype == "tombstone" {
				delete(ch.msgs, m.thread) // nothing is left of the thread
			} else {
				root.thread = ""
			}
		}
	}
}

// AttachFile attaches a file to a message and returns its id. Its
// content is served at its url_private to the bot token only.
func (s *Server) AttachFile(channel, ts, name, mimetype string, data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histInit()
	m := s.channel(channel).msgs[ts]
	if m == nil {
		return ""
	}
	s.hist.fileSeq++
	id := fmt.Sprintf("F%07d", s.hist.fileSeq)
	s.hist.files[id] = &histFile{id: id, name: name, mimetype: mimetype, data: append([]byte(nil), data...), created: timeOf(ts)}
	m.files = append(m.files, id)
	return id
}

// DetachFile removes a file from a message, as a person editing the
// message to drop the attachment does.
func (s *Server) DetachFile(channel, ts, file string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.channel(channel).msgs[ts]; m != nil {
		m.files = slices.DeleteFunc(m.files, func(id string) bool { return id == file })
		m.edited = s.nextTS()
	}
}

// Permalink is a message's permalink, as chat.getPermalink returns it.
func (s *Server) Permalink(channel, ts string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	thread := ""
	if m := s.channel(channel).msgs[ts]; m != nil && m.thread != "" && m.thread != ts {
		thread = m.thread
	}
	return permalink(channel, ts, thread)
}

func permalink(channel, ts, thread string) string {
	u := workspaceURL + "archives/" + channel + "/p" + strings.ReplaceAll(ts, ".", "")
	if thread != "" {
		u += "?thread_ts=" + thread + "&cid=" + channel
	}
	return u
}

// ChannelMessageEvent is the message event of a message in the history
// (channel_type "channel", or "group" for a private channel), as Slack
// sends it to an app subscribed to message.channels and message.groups.
func (s *Server) ChannelMessageEvent(channel, ts string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channel(channel)
	m := ch.msgs[ts]
	ev := map[string]any{"type": "message", "channel": channel, "channel_type": ch.kind(), "ts": ts, "event_ts": ts}
	if m != nil {
		for k, v := range s.wireHistory(ch, m) {
			ev[k] = v
		}
	}
	return ev
}

// ChangedEvent is the message_changed event Slack sends after Edit.
func (s *Server) ChangedEvent(channel, ts string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channel(channel)
	ev := map[string]any{"type": "message", "subtype": "message_changed", "channel": channel,
		"channel_type": ch.kind(), "hidden": true, "ts": s.nextTS(), "event_ts": s.nextTS()}
	if m := ch.msgs[ts]; m != nil {
		ev["message"] = s.wireHistory(ch, m)
		ev["previous_message"] = s.wireHistory(ch, m)
	}
	return ev
}

// DeletedEvent is the message_deleted event Slack sends after Delete of
// the message ts, which was in thread ("" if none).
func (s *Server) DeletedEvent(channel, ts, thread string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channel(channel)
	prev := map[string]any{"type": "message", "ts": ts, "text": "(deleted)"}
	if thread != "" {
		prev["thread_ts"] = thread
	}
	return map[string]any{"type": "message", "subtype": "message_deleted", "channel": channel,
		"channel_type": ch.kind(), "hidden": true, "deleted_ts": ts, "ts": s.nextTS(), "event_ts": s.nextTS(),
		"previous_message": prev}
}

func (ch *histChannel) kind() string {
	if ch.private {
		return "group"
	}
	return "channel"
}

// list returns the messages oldest first. Callers hold s.mu.
func (ch *histChannel) list() []*histMsg {
	if ch.sorted == nil {
		ch.sorted = make([]*histMsg, 0, len(ch.msgs))
		for _, m := range ch.msgs {
			ch.sorted = append(ch.sorted, m)
		}
		sort.Slice(ch.sorted, func(i, j int) bool { return ch.sorted[i].ts < ch.sorted[j].ts })
		ch.threads = map[string][]*histMsg{}
		for _, m := range ch.sorted {
			if m.thread != "" && m.thread != m.ts {
				ch.threads[m.thread] = append(ch.threads[m.thread], m)
			}
		}
	}
	return ch.sorted
}

// replies returns a thread's replies, oldest first.
func (ch *histChannel) replies(thread string) []*histMsg {
	ch.list()
	return ch.threads[thread]
}

// wireHistory is a history message as the Web API returns it.
func (s *Server) wireHistory(ch *histChannel, m *histMsg) map[string]any {
	w := map[string]any{"type": "message", "ts": m.ts, "text": m.text}
	switch {
	case m.botID != "":
		w["subtype"], w["bot_id"], w["username"] = "bot_message", m.botID, m.username
	default:
		w["user"] = m.user
	}
	if m.subtype != "" {
		w["subtype"] = m.subtype
	}
	if m.thread != "" {
		w["thread_ts"] = m.thread
		if m.thread == m.ts {
			rs := ch.replies(m.ts)
			w["reply_count"] = len(rs)
			if len(rs) > 0 {
				w["latest_reply"] = rs[len(rs)-1].ts
			}
		} else {
			w["parent_user_id"] = "U0"
		}
	}
	if m.edited != "" {
		w["edited"] = map[string]any{"user": m.user, "ts": m.edited}
	}
	var files []map[string]any
	for _, id := range m.files {
		f := s.hist.files[id]
		if f == nil {
			continue
		}
		u := s.srv.URL + "/files/" + f.id + "/" + url.PathEscape(f.name)
		files = append(files, map[string]any{"id": f.id, "name": f.name, "title": f.name, "mimetype": f.mimetype,
			"size": len(f.data), "url_private": u, "url_private_download": u + "?download=1",
			"permalink": workspaceURL + "files/" + f.id + "/" + f.name, "timestamp": f.created.Unix(), "created": f.created.Unix()})
	}
	if len(files) > 0 {
		w["files"] = files
		if m.subtype == "" && m.botID == "" {
			w["subtype"] = "file_share"
		}
	}
	return w
}

// historyAPI answers the history methods; ok is false for other methods.
func (s *Server) historyAPI(method string, f url.Values) (map[string]any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histInit()
	switch method {
	case "conversations.info":
		ch := s.hist.channels[f.Get("channel")]
		if ch == nil {
			return fail("channel_not_found"), true
		}
		return map[string]any{"ok": true, "channel": map[string]any{"id": ch.id, "name": ch.name, "is_channel": !ch.private,
			"is_group": ch.private, "is_private": ch.private, "created": ch.created.Unix(), "is_member": true,
			"context_team_id": s.TeamID}}, true
	case "conversations.history":
		ch := s.hist.channels[f.Get("channel")]
		if ch == nil {
			return fail("channel_not_found"), true
		}
		var top []*histMsg
		for _, m := range ch.list() {
			if m.thread == "" || m.thread == m.ts {
				top = append(top, m)
			}
		}
		return s.page(f, s.wiredHistory(ch, top), true), true
	case "conversations.replies":
		channel, ts := f.Get("channel"), f.Get("ts")
		ch := s.hist.channels[channel]
		own := s.ownReplies(channel, ts)
		var msgs []*histMsg
		if ch != nil {
			if root := ch.msgs[ts]; root != nil {
				msgs = append(msgs, root)
				if root.thread == ts {
					msgs = append(msgs, ch.replies(ts)...)
				}
			} else {
				msgs = ch.replies(ts) // people's replies to a message of the bot's (own)
			}
		}
		switch {
		case len(msgs) == 0 && len(own) == 0 && ch == nil:
			return fail("channel_not_found"), true
		case len(msgs) == 0 && len(own) == 0:
			return fail("thread_not_found"), true
		}
		all := append(s.wiredHistory(ch, msgs), own...)
		sort.SliceStable(all, func(i, j int) bool { return all[i].ts < all[j].ts })
		return s.page(f, all, false), true
	case "users.info":
		name, ok := s.hist.users[f.Get("user")]
		if !ok {
			return fail("user_not_found"), true
		}
		id := f.Get("user")
		role := s.admins.roles[id]
		return map[string]any{"ok": true, "user": map[string]any{"id": id, "name": strings.ToLower(name), "real_name": name,
			"is_admin": role == RoleAdmin, "is_owner": role == RoleOwner || role == RolePrimaryOwner, "is_primary_owner": role == RolePrimaryOwner,
			"profile": map[string]any{"display_name": name, "real_name": name}}}, true
	case "chat.getPermalink":
		ch, ts := f.Get("channel"), f.Get("message_ts")
		c := s.hist.channels[ch]
		if c == nil || c.msgs[ts] == nil {
			return fail("message_not_found"), true
		}
		thread := ""
		if m := c.msgs[ts]; m.thread != "" && m.thread != ts {
			thread = m.thread
		}
		return map[string]any{"ok": true, "channel": ch, "permalink": permalink(ch, ts, thread)}, true
	}
	return nil, false
}

// wired is a message of a history answer: its ts, and itself as the Web
// API returns it.
type wired struct {
	ts   string
	wire func() map[string]any
}

// wiredHistory returns msgs to be paged. Callers hold s.mu.
func (s *Server) wiredHistory(ch *histChannel, msgs []*histMsg) []wired {
	out := make([]wired, len(msgs))
	for i, m := range msgs {
		out[i] = wired{ts: m.ts, wire: func() map[string]any { return s.wireHistory(ch, m) }}
	}
	return out
}

// ownReplies returns the bot's replies (not deleted) in a thread, oldest
// first. Callers hold s.mu.
func (s *Server) ownReplies(channel, thread string) []wired {
	var out []wired
	for _, m := range s.messages {
		// The thread's replies, and its root when the bot posted that.
		if m.Channel == channel && thread != "" && (m.ThreadTS == thread || (m.TS == thread && m.ThreadTS == "")) && !m.Deleted {
			out = append(out, wired{ts: m.TS, wire: func() map[string]any { return s.wire(m) }})
		}
	}
	return out
}

// page answers conversations.history (newest first) or .replies (oldest
// first): those of msgs (oldest first) within oldest and latest, limit at
// a time, the cursor being the offset of the next page.
func (s *Server) page(f url.Values, msgs []wired, newestFirst bool) map[string]any {
	limit, _ := strconv.Atoi(f.Get("limit"))
	if limit <= 0 || limit > 999 {
		limit = 100
	}
	oldest, latest := f.Get("oldest"), f.Get("latest")
	inclusive := f.Get("inclusive") == "true" || f.Get("inclusive") == "1"
	var sel []wired
	for _, m := range msgs {
		if oldest != "" && (m.ts < oldest || (!inclusive && m.ts == oldest)) {
			continue
		}
		if latest != "" && (m.ts > latest || (!inclusive && m.ts == latest)) {
			continue
		}
		sel = append(sel, m)
	}
	if newestFirst {
		for i, j := 0, len(sel)-1; i < j; i, j = i+1, j-1 {
			sel[i], sel[j] = sel[j], sel[i]
		}
	}
	offset := 0
	if c := f.Get("cursor"); c != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(c, "ofs:"))
		if err != nil || n < 0 || n > len(sel) {
			return fail("invalid_cursor")
		}
		offset = n
	}
	end := min(offset+limit, len(sel))
	out := make([]map[string]any, 0, end-offset)
	for _, m := range sel[offset:end] {
		out = append(out, m.wire())
	}
	resp := map[string]any{"ok": true, "messages": out, "has_more": end < len(sel)}
	next := ""
	if end < len(sel) {
		next = "ofs:" + strconv.Itoa(end)
	}
	resp["response_metadata"] = map[string]any{"next_cursor": next}
	return resp
}

// serveFile serves a file's content at its url_private, to the bot token.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls["files.download"]++
	f := s.hist.files[r.PathValue("id")]
	s.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+s.BotToken {
		http.Error(w, "not authed", http.StatusForbidden)
		return
	}
	if f == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", f.mimetype)
	_, _ = w.Write(f.data)
}
