package discordtest

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"testing"
	"time"
)

// This file gives the fake guild channels with history: people's
// messages with times, threads (active and archived, public and private),
// edits, deletions and attachments, served by GET /channels/{id},
// /channels/{id}/messages, /guilds/{id}/threads/active,
// /channels/{id}/threads/archived/{public,private} and the attachments'
// CDN URLs. Message ids of the history are snowflakes of their times, as
// Discord's are.

// history holds the guild's channels. Server.mu guards it.
type history struct {
	channels    map[string]*Channel
	attachments map[string]*attachmentData
	seq         int64 // makes snowflakes of one millisecond unique
}

type attachmentData struct {
	name, contentType string
	data              []byte
}

// Channel is a guild channel or thread as Discord sends it.
type Channel struct {
	ID                   string          `json:"id"`
	Type                 int             `json:"type"`
	GuildID              string          `json:"guild_id"`
	Name                 string          `json:"name"`
	ParentID             string          `json:"parent_id,omitempty"`
	PermissionOverwrites []Overwrite     `json:"permission_overwrites,omitempty"`
	ThreadMetadata       *ThreadMetadata `json:"thread_metadata,omitempty"`
}

// Overwrite is a channel permission overwrite; Allow and Deny are
// permission bits as decimal strings.
type Overwrite struct {
	ID    string `json:"id"`
	Type  int    `json:"type"` // 0 role, 1 member
	Allow string `json:"allow"`
	Deny  string `json:"deny"`
}

// ThreadMetadata is a thread's state.
type ThreadMetadata struct {
	Archived         bool   `json:"archived"`
	ArchiveTimestamp string `json:"archive_timestamp"`
	CreateTimestamp  string `json:"create_timestamp,omitempty"`
	Locked           bool   `json:"locked"`
}

// Attachment is a message's attached file.
type Attachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type,omitempty"`
	Size        int    `json:"size"`
	URL         string `json:"url"`
	ProxyURL    string `json:"proxy_url"`
}

// Channel types.
const (
	ChannelText          = 0
	ChannelPublicThread  = 11
	ChannelPrivateThread = 12
	permViewChannel      = 1 << 10
)

// discordEpoch is the start of snowflake time.
const discordEpoch = 1420070400000

// Snowflake returns an id Discord could have given at t.
func Snowflake(t time.Time, seq int64) string {
	return strconv.FormatInt((t.UnixMilli()-discordEpoch)<<22|(seq&0xfff), 10)
}

func (s *Server) histInit() {
	if s.hist.channels == nil {
		s.hist.channels = map[string]*Channel{}
		s.hist.attachments = map[string]*attachmentData{}
	}
}

// AddChannel creates a text channel in guild. A private one denies
// @everyone (the role whose id is the guild's) VIEW_CHANNEL.
func (s *Server) AddChannel(guild, id, name string, private bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histInit()
	c := &Channel{ID: id, Type: ChannelText, GuildID: guild, Name: name}
	if private {
		c.PermissionOverwrites = []Overwrite{{ID: guild, Type: 0, Allow: "0", Deny: strconv.Itoa(permViewChannel)}}
	}
	s.hist.channels[id] = c
}

// AddThread starts a thread in parent at the time at and returns its id.
func (s *Server) AddThread(parent, name string, private, archived bool, at time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histInit()
	p := s.hist.channels[parent]
	guild := ""
	if p != nil {
		guild = p.GuildID
	}
	s.hist.seq++
	id := Snowflake(at, s.hist.seq)
	typ := ChannelPublicThread
	if private {
		typ = ChannelPrivateThread
	}
	s.hist.channels[id] = &Channel{ID: id, Type: typ, GuildID: guild, Name: name, ParentID: parent,
		ThreadMetadata: &ThreadMetadata{Archived: archived, ArchiveTimestamp: at.Add(time.Hour).UTC().Format(time.RFC3339),
			CreateTimestamp: at.UTC().Format(time.RFC3339)}}
	return id
}

// PostAt adds a message by author to a channel or thread at the time at
// and returns it. It is kept like the bot's messages, so Messages lists
// it too.
func (s *Server) PostAt(channel string, author User, content string, at time.Time) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histInit()
	s.hist.seq++
	guild := ""
	if c := s.hist.channels[channel]; c != nil {
		guild = c.GuildID
	}
	m := &Message{ID: Snowflake(at, s.hist.seq), ChannelID: channel, GuildID: guild, Author: author, Content: content,
		Mentions: []User{}, Timestamp: at.UTC().Format(time.RFC3339Nano)}
	s.msgs = append(s.msgs, m)
	return m.clone()
}

// Say posts a message by author in channel now, after everything posted
// so far (its id is greater), and returns it.
func (s *Server) Say(channel string, author User, content string) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histInit()
	guild := ""
	if c := s.hist.channels[channel]; c != nil {
		guild = c.GuildID
	}
	m := &Message{ID: s.id(), ChannelID: channel, GuildID: guild, Author: author, Content: content,
		Mentions: []User{}, Timestamp: time.Now().UTC().Format(time.RFC3339Nano)}
	s.msgs = append(s.msgs, m)
	return m.clone()
}

// EditAt changes a message's content, as its author editing it does, and
// returns it (for MESSAGE_UPDATE).
func (s *Server) EditAt(channel, id, content string, at time.Time) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.msgs {
		if m.ID == id && m.ChannelID == channel {
			m.Content = content
			m.EditedTimestamp = at.UTC().Format(time.RFC3339Nano)
			return m.clone()
		}
	}
	return Message{}
}

// DeleteMessage deletes a message, as its author does.
func (s *Server) DeleteMessage(channel, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.msgs {
		if m.ID == id && m.ChannelID == channel {
			m.Deleted = true
		}
	}
}

// Attach attaches a file to a message; its content is served at its URL.
func (s *Server) Attach(channel, id, filename, contentType string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histInit()
	for _, m := range s.msgs {
		if m.ID == id && m.ChannelID == channel {
			aid := s.id()
			u := s.URL + "/attachments/" + aid + "/" + url.PathEscape(filename)
			s.hist.attachments[aid] = &attachmentData{name: filename, contentType: contentType, data: append([]byte(nil), data...)}
			m.Attachments = append(m.Attachments, Attachment{ID: aid, Filename: filename, ContentType: contentType,
				Size: len(data), URL: u, ProxyURL: u})
		}
	}
}

// SendUpdate dispatches MESSAGE_UPDATE for m.
func (s *Server) SendUpdate(t testing.TB, m Message) {
	t.Helper()
	s.Dispatch(t, "MESSAGE_UPDATE", m)
}

// SendDelete dispatches MESSAGE_DELETE for a message.
func (s *Server) SendDelete(t testing.TB, guild, channel, id string) {
	t.Helper()
	s.Dispatch(t, "MESSAGE_DELETE", map[string]any{"id": id, "channel_id": channel, "guild_id": guild})
}

// historyREST answers the history routes; ok is false for others. The
// caller checks the bot token.
func (s *Server) historyREST(method string, seg []string, q url.Values) (int, any, bool) {
	if method != http.MethodGet {
		return 0, nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histInit()
	notFound := apiError{"Unknown Channel", 10003}
	switch {
	case len(seg) == 2 && seg[0] == "channels":
		c := s.hist.channels[seg[1]]
		if c == nil {
			return http.StatusNotFound, notFound, true
		}
		return http.StatusOK, c, true
	case len(seg) == 3 && seg[0] == "channels" && seg[2] == "messages":
		if s.hist.channels[seg[1]] == nil {
			return http.StatusNotFound, notFound, true
		}
		return http.StatusOK, s.channelMessages(seg[1], q), true
	case len(seg) == 4 && seg[0] == "guilds" && seg[2] == "threads" && seg[3] == "active":
		var out []*Channel
		for _, c := range s.sortedChannels() {
			if c.GuildID == seg[1] && c.ThreadMetadata != nil && !c.ThreadMetadata.Archived {
				out = append(out, c)
			}
		}
		return http.StatusOK, map[string]any{"threads": nonNil(out), "members": []any{}}, true
	case len(seg) == 5 && seg[0] == "channels" && seg[2] == "threads" && seg[3] == "archived":
		if s.hist.channels[seg[1]] == nil {
			return http.StatusNotFound, notFound, true
		}
		typ := ChannelPublicThread
		if seg[4] == "private" {
			typ = ChannelPrivateThread
		}
		return http.StatusOK, s.archived(seg[1], typ, q), true
	}
	return 0, nil, false
}

func nonNil(cs []*Channel) []*Channel {
	if cs == nil {
		return []*Channel{}
	}
	return cs
}

func (s *Server) sortedChannels() []*Channel {
	out := make([]*Channel, 0, len(s.hist.channels))
	for _, c := range s.hist.channels {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i].ID, out[j].ID) })
	return out
}

// less compares snowflakes.
func less(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// channelMessages answers GET /channels/{id}/messages: up to limit
// (default 50, at most 100) messages before, after or around an id,
// newest first, as Discord does.
func (s *Server) channelMessages(channel string, q url.Values) []Message {
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 100)
	var all []*Message
	for _, m := range s.msgs {
		if m.ChannelID == channel && !m.Deleted && !m.Ephemeral() && !m.Deferred {
			all = append(all, m)
		}
	}
	sort.Slice(all, func(i, j int) bool { return less(all[j].ID, all[i].ID) }) // newest first
	before, after := q.Get("before"), q.Get("after")
	var sel []*Message
	for _, m := range all {
		if before != "" && !less(m.ID, before) {
			continue
		}
		if after != "" && !less(after, m.ID) {
			continue
		}
		sel = append(sel, m)
	}
	if after != "" && len(sel) > limit {
		sel = sel[len(sel)-limit:] // the ones right after
	}
	if len(sel) > limit {
		sel = sel[:limit]
	}
	out := make([]Message, len(sel))
	for i, m := range sel {
		out[i] = m.clone()
	}
	return out
}

// archived answers the archived-threads routes: threads of parent of the
// given type, archived before "before", newest archive first.
func (s *Server) archived(parent string, typ int, q url.Values) map[string]any {
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 || limit > 100 {
		limit = 50
	}
	before := q.Get("before")
	var sel []*Channel
	for _, c := range s.sortedChannels() {
		if c.ParentID != parent || c.Type != typ || c.ThreadMetadata == nil || !c.ThreadMetadata.Archived {
			continue
		}
		if before != "" && c.ThreadMetadata.ArchiveTimestamp >= normalizeTime(before) {
			continue
		}
		sel = append(sel, c)
	}
	sort.SliceStable(sel, func(i, j int) bool {
		return sel[i].ThreadMetadata.ArchiveTimestamp > sel[j].ThreadMetadata.ArchiveTimestamp
	})
	more := len(sel) > limit
	if more {
		sel = sel[:limit]
	}
	return map[string]any{"threads": nonNil(sel), "members": []any{}, "has_more": more}
}

// normalizeTime writes an ISO 8601 time as the fake stores them.
func normalizeTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format(time.RFC3339)
}

// serveAttachment serves an attachment's content, as Discord's CDN does.
func (s *Server) serveAttachment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.histInit()
	a := s.hist.attachments[r.PathValue("id")]
	s.calls = append(s.calls, Call{Method: r.Method, Path: r.URL.Path, Status: http.StatusOK})
	s.mu.Unlock()
	if a == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("Content-Length", fmt.Sprint(len(a.data)))
	_, _ = w.Write(a.data)
}

// Ingest returns an /ingest command used by user in a guild channel, with
// a since option unless it is "".
func (s *Server) Ingest(guild, channel, user, since string) *Interaction {
	ia := s.newInteraction(InteractionCommand, guild, channel, user)
	opts := []any{}
	if since != "" {
		opts = append(opts, map[string]any{"name": "since", "type": 3, "value": since})
	}
	ia.Data = map[string]any{"id": s.lockedID(), "name": "ingest", "type": 1, "options": opts}
	return ia
}
