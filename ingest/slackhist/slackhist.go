// Package slackhist reads the history of Slack channels for chat
// ingestion: conversations.info, conversations.history (paginated with
// its cursor), conversations.replies for every thread, users.info for the
// authors' names and the files' url_private with the bot token. Calls
// that Slack refuses with 429 are retried after the Retry-After it names;
// every call has a timeout.
package slackhist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/internal/slackapi"
)

// Config configures a Source.
type Config struct {
	BotToken string // xoxb-…, with channels:history, groups:history, channels:read, groups:read, users:read, files:read
	APIURL   string // the Web API base URL (default https://slack.com/api/)
	// HTTPClient makes the calls; nil uses one with a 30s timeout.
	HTTPClient *http.Client
	// MaxRetries bounds the retries of one call after a 429. Zero means 10:
	// a backfill should wait out Slack's limits rather than give up.
	MaxRetries int
	// MaxRetryAfter caps one wait; zero means two minutes.
	MaxRetryAfter time.Duration
	// Sleep waits out a retry's delay, or until ctx ends (default
	// slackapi.Sleep, a timer); tests pass one that does not wait.
	Sleep func(ctx context.Context, d time.Duration) error
	Log   *slog.Logger
}

// Source reads Slack; it implements chat.Source and is safe for
// concurrent use.
type Source struct {
	cfg Config
	api *slack.Client
	log *slog.Logger

	meMu    sync.Mutex
	me      *identity // nil until auth.test answered
	usersMu sync.Mutex
	users   map[string]string // user id → name, "" for unknown
}

var _ chat.Source = (*Source)(nil)

// identity is the bot and its workspace, from auth.test.
type identity struct {
	TeamID string
	URL    string // https://team.slack.com/, the base of permalinks
	UserID string
	BotID  string
}

// Paging of the Web API: Slack's recommended page size.
const pageSize = 200

// Bounds that keep one call's loop finite.
const (
	maxPages       = 1_000_000 // pages of one history window: 200 million messages
	maxThreadPages = 10_000
	maxUsersCached = 100_000
)

// New returns a Source for cfg.
func New(cfg Config) (*Source, error) {
	if cfg.BotToken == "" {
		return nil, errors.New("slackhist: a bot token is required (SLACK_BOT_TOKEN)")
	}
	if cfg.APIURL == "" {
		cfg.APIURL = slack.APIURL
	}
	if !strings.HasSuffix(cfg.APIURL, "/") {
		cfg.APIURL += "/"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.MaxRetries <= 0 {
		cfg.MaxRetries = 10
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = 2 * time.Minute
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	api := slack.New(cfg.BotToken, slack.OptionAPIURL(cfg.APIURL), slack.OptionHTTPClient(cfg.HTTPClient))
	return &Source{cfg: cfg, api: api, log: cfg.Log, users: map[string]string{}}, nil
}

// Platform implements chat.Source.
func (s *Source) Platform() string { return "slack" }

// identity asks auth.test who the bot is, once it has answered; a
// failure is not remembered, so the next call asks again.
func (s *Source) identity(ctx context.Context) (identity, error) {
	s.meMu.Lock()
	defer s.meMu.Unlock()
	if s.me != nil {
		return *s.me, nil
	}
	var res *slack.AuthTestResponse
	err := s.retry(ctx, "auth.test", func() (err error) {
		res, err = s.api.AuthTestContext(ctx)
		return err
	})
	if err != nil {
		return identity{}, err
	}
	s.me = &identity{TeamID: res.TeamID, URL: res.URL, UserID: res.UserID, BotID: res.BotID}
	return *s.me, nil
}

// Channel implements chat.Source with conversations.info.
func (s *Source) Channel(ctx context.Context, id string) (chat.Channel, error) {
	me, err := s.identity(ctx)
	if err != nil {
		return chat.Channel{}, err
	}
	var c *slack.Channel
	err = s.retry(ctx, "conversations.info", func() (err error) {
		c, err = s.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: id})
		return err
	})
	if err != nil {
		return chat.Channel{}, err
	}
	ch := chat.Channel{
		Platform: "slack", Workspace: me.TeamID, ID: c.ID, Name: c.Name,
		// Direct messages are as private as private channels.
		Private: c.IsPrivate || c.IsIM || c.IsMpIM || c.IsGroup,
	}
	if ch.ID == "" {
		ch.ID = id
	}
	if ch.Name == "" {
		ch.Name = ch.ID
	}
	if c.Created > 0 {
		ch.Created = c.Created.Time().UTC()
	}
	return ch, nil
}

// History implements chat.Source with conversations.history.
func (s *Source) History(ctx context.Context, ch chat.Channel, oldest, latest time.Time, fn func([]chat.Message) error) error {
	me, err := s.identity(ctx)
	if err != nil {
		return err
	}
	p := &slack.GetConversationHistoryParameters{ChannelID: ch.ID, Limit: pageSize, Inclusive: true}
	if !oldest.IsZero() {
		p.Oldest = ts(oldest)
	}
	exclude := ""
	if !latest.IsZero() {
		// Inclusive, so that oldest is in; latest itself is left out below.
		p.Latest = ts(latest)
		exclude = p.Latest
	}
	seen := map[string]bool{} // cursors followed: a server repeating one loops
	for page := 0; page < maxPages; page++ {
		var res *slack.GetConversationHistoryResponse
		err := s.retry(ctx, "conversations.history", func() (err error) {
			res, err = s.api.GetConversationHistoryContext(ctx, p)
			return err
		})
		if err != nil {
			return err
		}
		msgs := make([]chat.Message, 0, len(res.Messages))
		for _, m := range res.Messages {
			if m.Timestamp == exclude {
				continue
			}
			// Replies sent to the channel too belong to their thread.
			if m.ThreadTimestamp != "" && m.ThreadTimestamp != m.Timestamp {
				continue
			}
			if cm, ok := s.message(ctx, me, ch, m.Msg); ok {
				msgs = append(msgs, cm)
			}
		}
		if err := fn(msgs); err != nil {
			return err
		}
		if !res.HasMore || res.ResponseMetaData.NextCursor == "" {
			return nil
		}
		if seen[res.ResponseMetaData.NextCursor] {
			return fmt.Errorf("slackhist: history of %s: cursor %q repeats", ch.ID, res.ResponseMetaData.NextCursor)
		}
		seen[res.ResponseMetaData.NextCursor] = true
		p.Cursor = res.ResponseMetaData.NextCursor
	}
	return fmt.Errorf("slackhist: history of %s: more than %d pages", ch.ID, maxPages)
}

// Threads implements chat.Source: Slack's threads start at messages that
// History returns, so there are none to list.
func (s *Source) Threads(context.Context, chat.Channel, time.Time, time.Time) ([]chat.Thread, error) {
	return nil, nil
}

// Replies implements chat.Source with conversations.replies.
func (s *Source) Replies(ctx context.Context, ch chat.Channel, thread string) (chat.Thread, []chat.Message, error) {
	me, err := s.identity(ctx)
	if err != nil {
		return chat.Thread{}, nil, err
	}
	p := &slack.GetConversationRepliesParameters{ChannelID: ch.ID, Timestamp: thread, Limit: pageSize}
	var out []chat.Message
	seen := map[string]bool{}
	for page := 0; page < maxThreadPages; page++ {
		var (
			msgs    []slack.Message
			hasMore bool
			next    string
		)
		err := s.retry(ctx, "conversations.replies", func() (err error) {
			msgs, hasMore, next, err = s.api.GetConversationRepliesContext(ctx, p)
			return err
		})
		if isNotFound(err) {
			return chat.Thread{}, nil, chat.ErrNotFound
		}
		if err != nil {
			return chat.Thread{}, nil, err
		}
		for _, m := range msgs {
			if page > 0 && m.Timestamp == thread {
				continue // some pages repeat the first message
			}
			if cm, ok := s.message(ctx, me, ch, m.Msg); ok {
				out = append(out, cm)
			}
		}
		if hasMore && seen[next] {
			return chat.Thread{}, nil, fmt.Errorf("slackhist: thread %s: cursor %q repeats", thread, next)
		}
		seen[next] = true
		if !hasMore || next == "" {
			t := chat.Thread{ID: thread, Started: timeOf(thread), Permalink: s.permalink(ctx, me, ch.ID, thread, "")}
			return t, out, nil
		}
		p.Cursor = next
	}
	return chat.Thread{}, nil, fmt.Errorf("slackhist: thread %s: more than %d pages", thread, maxThreadPages)
}

// skipSubtypes are messages that are not conversation: joins, topic
// changes, deleted placeholders.
var skipSubtypes = map[string]bool{
	"channel_join": true, "channel_leave": true, "channel_topic": true, "channel_purpose": true,
	"channel_name": true, "channel_archive": true, "channel_unarchive": true, "group_join": true,
	"group_leave": true, "group_topic": true, "group_purpose": true, "group_name": true,
	"group_archive": true, "group_unarchive": true, "pinned_item": true, "unpinned_item": true,
	"bot_add": true, "bot_remove": true, "tombstone": true, "reminder_add": true,
	"channel_convert_to_private": true, "channel_convert_to_public": true,
}

// message translates a Slack message; ok is false for messages that are
// not conversation, for the bot's own answers, which must never be
// evidence for later answers, and for questions to the bot.
func (s *Source) message(ctx context.Context, me identity, ch chat.Channel, m slack.Msg) (chat.Message, bool) {
	if skipSubtypes[m.SubType] || m.Timestamp == "" {
		return chat.Message{}, false
	}
	if (me.BotID != "" && m.BotID == me.BotID) || (me.UserID != "" && m.User == me.UserID) {
		return chat.Message{}, false
	}
	// Questions to the bot ("@Switchboard what is…") are not knowledge
	// either.
	if me.UserID != "" && strings.Contains(m.Text, "<@"+me.UserID+">") {
		return chat.Message{}, false
	}
	thread := m.ThreadTimestamp
	cm := chat.Message{
		ID:       m.Timestamp,
		Thread:   thread,
		AuthorID: m.User,
		Text:     s.plain(ctx, m.Text),
		Time:     timeOf(m.Timestamp),
		Replies:  m.ReplyCount,
	}
	switch {
	case m.User != "":
		cm.Author = s.userName(ctx, m.User)
	case m.Username != "":
		cm.Author = m.Username
	case m.BotProfile != nil && m.BotProfile.Name != "":
		cm.Author = m.BotProfile.Name
	default:
		cm.Author = "a bot"
	}
	threadOf := ""
	if thread != "" && thread != m.Timestamp {
		threadOf = thread
	}
	cm.Permalink = s.permalink(ctx, me, ch.ID, m.Timestamp, threadOf)
	for _, f := range m.Files {
		if f.ID == "" {
			continue
		}
		u := f.URLPrivateDownload
		if u == "" {
			u = f.URLPrivate
		}
		name := f.Name
		if name == "" {
			name = f.Title
		}
		cm.Files = append(cm.Files, chat.File{ID: f.ID, Name: name, MIME: f.Mimetype, Size: int64(f.Size),
			URL: u, Permalink: f.Permalink, Updated: f.Timestamp.Time().UTC()})
	}
	return cm, true
}

// permalink builds a message's permalink from the workspace URL, as Slack
// does, which costs no call; without a URL it asks chat.getPermalink.
func (s *Source) permalink(ctx context.Context, me identity, channel, ts, thread string) string {
	if me.URL != "" {
		u := strings.TrimSuffix(me.URL, "/") + "/archives/" + channel + "/p" + strings.ReplaceAll(ts, ".", "")
		if thread != "" {
			u += "?thread_ts=" + thread + "&cid=" + channel
		}
		return u
	}
	var link string
	err := s.retry(ctx, "chat.getPermalink", func() (err error) {
		link, err = s.api.GetPermalinkContext(ctx, &slack.PermalinkParameters{Channel: channel, Ts: ts})
		return err
	})
	if err != nil {
		s.log.Warn("slackhist: no permalink", "channel", channel, "ts", ts, "err", err)
		return ""
	}
	return link
}

// userName returns a person's display name, asking users.info once per
// person; their id when that fails.
func (s *Source) userName(ctx context.Context, id string) string {
	s.usersMu.Lock()
	name, ok := s.users[id]
	s.usersMu.Unlock()
	if ok {
		return name
	}
	var u *slack.User
	err := s.retry(ctx, "users.info", func() (err error) {
		u, err = s.api.GetUserInfoContext(ctx, id)
		return err
	})
	name = id
	if err == nil && u != nil {
		for _, n := range []string{u.Profile.DisplayName, u.RealName, u.Profile.RealName, u.Name} {
			if strings.TrimSpace(n) != "" {
				name = strings.TrimSpace(n)
				break
			}
		}
	} else if ctx.Err() == nil {
		s.log.Debug("slackhist: users.info failed; showing the id", "user", id, "err", err)
	}
	s.usersMu.Lock()
	if len(s.users) >= maxUsersCached {
		s.users = map[string]string{}
	}
	s.users[id] = name
	s.usersMu.Unlock()
	return name
}

var (
	userRef    = regexp.MustCompile(`<@([A-Z0-9]+)(?:\|([^>]*))?>`)
	channelRef = regexp.MustCompile(`<#[A-Z0-9]+(?:\|([^>]*))?>`)
	linkRef    = regexp.MustCompile(`<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>`)
	specialRef = regexp.MustCompile(`<!(here|channel|everyone)[^>]*>`)
	unescaper  = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")
)

// plain turns Slack's mrkdwn into the text people read: mentions as
// @name, channels as #name, links as their label and URL.
func (s *Source) plain(ctx context.Context, text string) string {
	text = userRef.ReplaceAllStringFunc(text, func(m string) string {
		sub := userRef.FindStringSubmatch(m)
		if sub[2] != "" {
			return "@" + sub[2]
		}
		return "@" + s.userName(ctx, sub[1])
	})
	text = channelRef.ReplaceAllStringFunc(text, func(m string) string {
		if sub := channelRef.FindStringSubmatch(m); sub[1] != "" {
			return "#" + sub[1]
		}
		return "#channel"
	})
	text = linkRef.ReplaceAllStringFunc(text, func(m string) string {
		sub := linkRef.FindStringSubmatch(m)
		u := strings.TrimPrefix(sub[1], "mailto:")
		if sub[2] != "" && sub[2] != u {
			return sub[2] + " (" + u + ")"
		}
		return u
	})
	text = specialRef.ReplaceAllString(text, "@$1")
	return strings.TrimSpace(unescaper.Replace(text))
}

// Download implements chat.Source: the file's url_private with the bot
// token, refusing files larger than max.
func (s *Source) Download(ctx context.Context, f chat.File, max int64) ([]byte, error) {
	var buf []byte
	err := s.retry(ctx, "files download", func() error {
		w := &capped{max: max}
		if f.Size > 0 && f.Size <= max {
			// Slack gave its size: the file is held once, not in a slice
			// grown by copying, which holds two and leaves the rest for
			// the collector (up to three times the file in all).
			w.buf = make([]byte, 0, f.Size)
		}
		err := s.api.GetFileContext(ctx, f.URL, w)
		buf = w.buf
		return err
	})
	if errors.Is(err, errTooLarge) {
		return nil, fmt.Errorf("larger than %d bytes", max)
	}
	return buf, err
}

var errTooLarge = errors.New("too large")

// capped keeps what is written up to max bytes and fails past it, which
// stops the download.
type capped struct {
	buf []byte
	max int64
}

// Write implements io.Writer.
func (c *capped) Write(p []byte) (int, error) {
	if int64(len(c.buf)+len(p)) > c.max {
		return 0, errTooLarge
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

var _ io.Writer = (*capped)(nil)

// retry runs one call, waiting and trying again while Slack answers 429
// (or fails it for a while: 5xx, internal_error, a lost connection), at
// most MaxRetries times. A 429's wait is Slack's Retry-After (a second when
// it names none), capped by MaxRetryAfter; the others back off.
func (s *Source) retry(ctx context.Context, method string, call func() error) error {
	return slackapi.Retry(ctx, slackapi.Policy{Retries: s.cfg.MaxRetries, MaxWait: s.cfg.MaxRetryAfter, Sleep: s.cfg.Sleep, Log: s.log}, method, call)
}

// isNotFound reports whether Slack says the thread or message is gone.
func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "thread_not_found") || strings.Contains(msg, "message_not_found")
}

// ts is Slack's timestamp of t: seconds and microseconds.
func ts(t time.Time) string {
	return fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000)
}

// timeOf reads a Slack ts; zero for anything else.
func timeOf(ts string) time.Time {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err1 := strconv.ParseInt(sec, 10, 64)
	us, err2 := strconv.ParseInt((frac + "000000")[:6], 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}
	}
	return time.Unix(s, us*1000).UTC()
}

// TimeOf is the time of a Slack ts ("1700000000.000100"), for events;
// zero for anything else.
func TimeOf(ts string) time.Time { return timeOf(ts) }

// Link implements chat.Source: the permalink of a message, built as
// Slack builds it.
func (s *Source) Link(ctx context.Context, ch chat.Channel, thread, message string) string {
	me, err := s.identity(ctx)
	if err != nil {
		return ""
	}
	if thread == message {
		thread = ""
	}
	return s.permalink(ctx, me, ch.ID, message, thread)
}
