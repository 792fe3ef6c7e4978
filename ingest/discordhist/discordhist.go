// Package discordhist reads the history of Discord channels for chat
// ingestion through discordgo: a channel's messages paginated backwards
// with "before", its threads (active ones from the guild's list, archived
// public and private ones from the channel's), and attachments from
// Discord's CDN. discordgo keeps Discord's rate-limit buckets; a 429 that
// still happens is retried after the wait Discord names, within the
// context. Every request has a timeout.
package discordhist

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/internal/discordapi"
	"github.com/switchboard/switchboard/internal/retry"
)

// DefaultAPIURL is Discord's REST API, version 10.
const DefaultAPIURL = "https://discord.com/api/v10/"

// Config configures a Source.
type Config struct {
	BotToken string // with or without "Bot "; needs Read Message History, and Manage Threads for private archived threads
	// APIURL replaces DefaultAPIURL, e.g. a fake's.
	APIURL string
	// HTTPClient sends the requests; nil uses one with a 30s timeout. It is
	// copied, never modified.
	HTTPClient *http.Client
	// MaxRetries bounds the retries of one request after a 429; zero
	// means 10.
	MaxRetries int
	// Sleep waits out a 429's delay, or until ctx ends (default
	// retry.Sleep, a timer); tests pass one that does not wait.
	Sleep func(ctx context.Context, d time.Duration) error
	Log   *slog.Logger
}

// Source reads Discord; it implements chat.Source and is safe for
// concurrent use.
type Source struct {
	cfg    Config
	s      *discordgo.Session
	client *http.Client // for attachments
	log    *slog.Logger

	meMu sync.Mutex
	me   string // the bot's user id, once known
}

var _ chat.Source = (*Source)(nil)

// Bounds of Discord's paging, and of the loops over it.
const (
	pageSize       = 100
	maxPages       = 2_000_000 // of one channel's history: 200 million messages
	maxThreadPages = 10_000
	maxRetryWait   = 2 * time.Minute
)

// discordEpoch is the start of snowflake time, in Unix milliseconds.
const discordEpoch = 1420070400000

// New returns a Source for cfg.
func New(cfg Config) (*Source, error) {
	cfg.BotToken = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cfg.BotToken), "Bot "))
	if cfg.BotToken == "" {
		return nil, errors.New("discordhist: a bot token is required (DISCORD_BOT_TOKEN)")
	}
	api := cfg.APIURL
	if api == "" {
		api = DefaultAPIURL
	}
	to, err := url.Parse(api)
	if err != nil || (to.Scheme != "http" && to.Scheme != "https") || to.Host == "" {
		return nil, fmt.Errorf("discordhist: API URL %q is not an http(s) URL", api)
	}
	if !strings.HasSuffix(to.Path, "/") {
		to.Path += "/"
	}
	if cfg.MaxRetries <= 0 {
		cfg.MaxRetries = 10
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s, err := discordgo.New("Bot " + cfg.BotToken)
	if err != nil {
		return nil, fmt.Errorf("discordhist: %w", err)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		client = &c
	}
	plain := *client
	client.Transport = discordapi.Rewrite{Base: client.Transport, To: to}
	s.Client = client
	// discordgo's own retry sleeps without a context and without bound;
	// retry below waits within ctx instead.
	s.ShouldRetryOnRateLimit = false
	s.StateEnabled = false
	return &Source{cfg: cfg, s: s, client: &plain, log: cfg.Log}, nil
}

// Platform implements chat.Source.
func (s *Source) Platform() string { return "discord" }

// self returns the bot's user id, asking Discord once it has answered.
func (s *Source) self(ctx context.Context) (string, error) {
	s.meMu.Lock()
	defer s.meMu.Unlock()
	if s.me != "" {
		return s.me, nil
	}
	var u *discordgo.User
	err := s.do(ctx, "get the bot user", func(opts ...discordgo.RequestOption) (err error) {
		u, err = s.s.User("@me", opts...)
		return err
	})
	if err != nil {
		return "", err
	}
	s.me = u.ID
	return s.me, nil
}

// Channel implements chat.Source. A channel is private when its
// permission overwrites deny @everyone (the role with the guild's id)
// VIEW_CHANNEL; a thread is private when it is a private thread. A thread
// has Parent set.
func (s *Source) Channel(ctx context.Context, id string) (chat.Channel, error) {
	c, err := s.channel(ctx, id)
	if err != nil {
		return chat.Channel{}, err
	}
	ch := chat.Channel{Platform: "discord", Workspace: c.GuildID, ID: c.ID, Name: c.Name, Private: isPrivate(c),
		Created: snowflakeTime(c.ID)}
	if c.IsThread() {
		ch.Parent = c.ParentID
	}
	if ch.Name == "" {
		ch.Name = ch.ID
	}
	return ch, nil
}

func (s *Source) channel(ctx context.Context, id string) (*discordgo.Channel, error) {
	var c *discordgo.Channel
	err := s.do(ctx, "get channel "+id, func(opts ...discordgo.RequestOption) (err error) {
		c, err = s.s.Channel(id, opts...)
		return err
	})
	if isNotFound(err) {
		return nil, chat.ErrNotFound
	}
	return c, err
}

// isPrivate reports whether @everyone may not see the channel.
func isPrivate(c *discordgo.Channel) bool {
	if c.Type == discordgo.ChannelTypeGuildPrivateThread {
		return true
	}
	for _, o := range c.PermissionOverwrites {
		if o != nil && o.ID == c.GuildID && o.Type == discordgo.PermissionOverwriteTypeRole && o.Deny&discordgo.PermissionViewChannel != 0 {
			return true
		}
	}
	return false
}

// History implements chat.Source: the channel's messages, newest first,
// paginated backwards with before.
func (s *Source) History(ctx context.Context, ch chat.Channel, oldest, latest time.Time, fn func([]chat.Message) error) error {
	me, err := s.self(ctx)
	if err != nil {
		return err
	}
	return s.messages(ctx, ch, ch.ID, "", oldest, latest, me, fn)
}

// messages pages through the messages of channel (ch itself or one of
// its threads) posted in [oldest, latest), newest first.
func (s *Source) messages(ctx context.Context, ch chat.Channel, channel, thread string, oldest, latest time.Time, me string, fn func([]chat.Message) error) error {
	before := ""
	if !latest.IsZero() {
		before = snowflake(latest)
	}
	for page := 0; page < maxPages; page++ {
		var msgs []*discordgo.Message
		err := s.do(ctx, "read messages of "+channel, func(opts ...discordgo.RequestOption) (err error) {
			msgs, err = s.s.ChannelMessages(channel, pageSize, before, "", "", opts...)
			return err
		})
		if isNotFound(err) {
			return chat.ErrNotFound
		}
		if err != nil {
			return err
		}
		if len(msgs) == 0 {
			return nil
		}
		out := make([]chat.Message, 0, len(msgs))
		done := false
		for _, m := range msgs {
			if m == nil {
				continue
			}
			if !oldest.IsZero() && messageTime(m).Before(oldest) {
				done = true
				break
			}
			if cm, ok := s.message(ch, channel, thread, m, me); ok {
				out = append(out, cm)
			}
		}
		if err := fn(out); err != nil {
			return err
		}
		if done || len(msgs) < pageSize {
			return nil
		}
		// The next page is before the oldest message of this one, which
		// must move back, or a server repeating a page loops forever.
		next := ""
		for _, m := range msgs {
			if m != nil && (next == "" || snowflakeLess(m.ID, next)) {
				next = m.ID
			}
		}
		if next == "" || (before != "" && !snowflakeLess(next, before)) {
			return fmt.Errorf("discordhist: history of %s: page before %s does not move back", channel, before)
		}
		before = next
	}
	return fmt.Errorf("discordhist: history of %s: more than %d pages", channel, maxPages)
}

// Threads implements chat.Source: the channel's threads, active (from
// the guild's list) and archived (public, and private where the bot may
// list them), started in [oldest, latest).
func (s *Source) Threads(ctx context.Context, ch chat.Channel, oldest, latest time.Time) ([]chat.Thread, error) {
	seen := map[string]bool{}
	var out []chat.Thread
	add := func(cs []*discordgo.Channel) {
		for _, c := range cs {
			if c == nil || c.ParentID != ch.ID || seen[c.ID] {
				continue
			}
			started := snowflakeTime(c.ID)
			if (!oldest.IsZero() && started.Before(oldest)) || (!latest.IsZero() && !started.Before(latest)) {
				continue
			}
			seen[c.ID] = true
			out = append(out, chat.Thread{ID: c.ID, Name: c.Name, Started: started,
				Private: c.Type == discordgo.ChannelTypeGuildPrivateThread, Permalink: link(ch.Workspace, c.ID, "")})
		}
	}
	var active *discordgo.ThreadsList
	err := s.do(ctx, "list active threads", func(opts ...discordgo.RequestOption) (err error) {
		active, err = s.s.GuildThreadsActive(ch.Workspace, opts...)
		return err
	})
	if err != nil {
		return nil, err
	}
	add(active.Threads)
	for _, private := range []bool{false, true} {
		if err := s.archived(ctx, ch, private, oldest, add); err != nil {
			if private && isForbidden(err) {
				// Listing private archived threads needs Manage Threads;
				// without it they are not ingested, which is safe.
				s.log.Info("discordhist: private archived threads not listed (the bot lacks Manage Threads)", "channel", ch.ID)
				continue
			}
			return nil, err
		}
	}
	return out, nil
}

// archived pages through a channel's archived threads, newest archive
// first, until they were archived before oldest (and so started before
// it).
func (s *Source) archived(ctx context.Context, ch chat.Channel, private bool, oldest time.Time, add func([]*discordgo.Channel)) error {
	var before *time.Time
	for page := 0; page < maxThreadPages; page++ {
		var list *discordgo.ThreadsList
		err := s.do(ctx, "list archived threads", func(opts ...discordgo.RequestOption) (err error) {
			if private {
				list, err = s.s.ThreadsPrivateArchived(ch.ID, before, pageSize, opts...)
			} else {
				list, err = s.s.ThreadsArchived(ch.ID, before, pageSize, opts...)
			}
			return err
		})
		if err != nil {
			return err
		}
		add(list.Threads)
		if !list.HasMore || len(list.Threads) == 0 {
			return nil
		}
		last := list.Threads[len(list.Threads)-1]
		if last == nil || last.ThreadMetadata == nil {
			return nil
		}
		t := last.ThreadMetadata.ArchiveTimestamp
		if !oldest.IsZero() && t.Before(oldest) {
			return nil
		}
		before = &t
	}
	return fmt.Errorf("discordhist: archived threads of %s: more than %d pages", ch.ID, maxThreadPages)
}

// Replies implements chat.Source: a thread's messages, oldest first.
func (s *Source) Replies(ctx context.Context, ch chat.Channel, thread string) (chat.Thread, []chat.Message, error) {
	me, err := s.self(ctx)
	if err != nil {
		return chat.Thread{}, nil, err
	}
	c, err := s.channel(ctx, thread)
	if err != nil {
		return chat.Thread{}, nil, err
	}
	t := chat.Thread{ID: c.ID, Name: c.Name, Started: snowflakeTime(c.ID),
		Private: c.Type == discordgo.ChannelTypeGuildPrivateThread, Permalink: link(ch.Workspace, c.ID, "")}
	var msgs []chat.Message
	err = s.messages(ctx, ch, thread, thread, time.Time{}, time.Time{}, me, func(page []chat.Message) error {
		msgs = append(msgs, page...)
		return nil
	})
	if err != nil {
		return chat.Thread{}, nil, err
	}
	slices.Reverse(msgs)
	return t, msgs, nil
}

// message translates a Discord message; ok is false for messages that
// are not conversation (joins, pins, thread notices), for the bot's own,
// which must never be evidence for later answers, and for questions to
// the bot.
func (s *Source) message(ch chat.Channel, channel, thread string, m *discordgo.Message, me string) (chat.Message, bool) {
	if m.Type != discordgo.MessageTypeDefault && m.Type != discordgo.MessageTypeReply {
		return chat.Message{}, false
	}
	if m.Author == nil || m.Author.ID == me {
		return chat.Message{}, false
	}
	for _, u := range m.Mentions { // questions to the bot are not knowledge
		if u != nil && u.ID == me {
			return chat.Message{}, false
		}
	}
	// The name people see: the server nickname, else the display name,
	// else the @handle (usernames are lower case handles).
	author := m.Author.GlobalName
	if m.Member != nil && m.Member.Nick != "" {
		author = m.Member.Nick
	}
	if author == "" {
		author = "@" + m.Author.Username
	}
	cm := chat.Message{
		ID: m.ID, Thread: thread, Author: author, AuthorID: m.Author.ID,
		Text: plain(m), Time: messageTime(m), Permalink: link(ch.Workspace, channel, m.ID),
	}
	for _, a := range m.Attachments {
		if a == nil || a.ID == "" {
			continue
		}
		cm.Files = append(cm.Files, chat.File{ID: a.ID, Name: a.Filename, MIME: a.ContentType, Size: int64(a.Size),
			URL: a.URL, Updated: cm.Time})
	}
	return cm, true
}

var (
	channelMention = regexp.MustCompile(`<#(\d+)>`)
	roleMention    = regexp.MustCompile(`<@&(\d+)>`)
	customEmoji    = regexp.MustCompile(`<a?:(\w+):\d+>`)
	anyMention     = regexp.MustCompile(`<@!?(\d+)>`)
)

// plain is a message's text as people read it: mentions of the people it
// names as @name, others as @user, channels as #channel, custom emoji as
// :name:.
func plain(m *discordgo.Message) string {
	text := m.ContentWithMentionsReplaced()
	text = anyMention.ReplaceAllString(text, "@user")
	text = roleMention.ReplaceAllString(text, "@role")
	text = channelMention.ReplaceAllString(text, "#channel")
	text = customEmoji.ReplaceAllString(text, ":$1:")
	return strings.TrimSpace(text)
}

// Download implements chat.Source: the attachment from Discord's CDN,
// which needs no token, refusing files larger than max.
func (s *Source) Download(ctx context.Context, f chat.File, max int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("discordhist: download %s: %w", f.Name, err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("discordhist: download %s: %w", f.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("discordhist: download %s: %s", f.Name, resp.Status)
	}
	// Discord gave its size: the file is held once, not in a slice grown
	// by copying (up to three times the file in all); MinRead is the room
	// ReadFrom wants to see the end.
	var buf bytes.Buffer
	if f.Size > 0 && f.Size <= max {
		buf.Grow(int(f.Size) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, max+1)); err != nil {
		return nil, fmt.Errorf("discordhist: download %s: %w", f.Name, err)
	}
	data := buf.Bytes()
	if int64(len(data)) > max {
		return nil, fmt.Errorf("discordhist: download %s: larger than %d bytes", f.Name, max)
	}
	return data, nil
}

// do runs one REST call, retrying it when Discord answers 429 after the
// wait it names, at most MaxRetries times and within ctx.
func (s *Source) do(ctx context.Context, op string, call func(...discordgo.RequestOption) error) error {
	p := retry.Policy{Attempts: s.cfg.MaxRetries + 1, MaxWait: maxRetryWait, Sleep: s.cfg.Sleep,
		OnRetry: func(attempt int, _ error, wait time.Duration) {
			s.log.Info("discord rate limit: waiting", "op", op, "for", wait, "attempt", attempt)
		}}
	err := retry.Do(ctx, p, func(int) retry.Outcome {
		err := call(discordgo.WithContext(ctx))
		var rl *discordgo.RateLimitError
		if !errors.As(err, &rl) {
			return retry.Stop(err)
		}
		return retry.Later(err, max(rl.RetryAfter, 50*time.Millisecond))
	})
	if stopped := (*retry.StoppedError)(nil); errors.As(err, &stopped) {
		return fmt.Errorf("discord: %s: rate limited, then %w", op, stopped.Ctx)
	}
	if err != nil {
		return fmt.Errorf("discord: %s: %w", op, err)
	}
	return nil
}

func isNotFound(err error) bool  { return hasStatus(err, http.StatusNotFound) }
func isForbidden(err error) bool { return hasStatus(err, http.StatusForbidden) }
func hasStatus(err error, code int) bool {
	var re *discordgo.RESTError
	return errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == code
}

// link is the URL that opens a channel, thread or message in Discord.
func link(guild, channel, message string) string {
	u := "https://discord.com/channels/" + guild + "/" + channel
	if message != "" {
		u += "/" + message
	}
	return u
}

// messageTime is when m was posted: its timestamp, or its id's time.
func messageTime(m *discordgo.Message) time.Time {
	if !m.Timestamp.IsZero() {
		return m.Timestamp.UTC()
	}
	return snowflakeTime(m.ID)
}

// snowflakeTime is the time a Discord id was made; zero if it is not one.
func snowflakeTime(id string) time.Time {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(n>>22 + discordEpoch).UTC()
}

// snowflakeLess reports whether snowflake a is older than b; ids that are
// not numbers are never less.
func snowflakeLess(a, b string) bool {
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	return err1 == nil && err2 == nil && x < y
}

// SnowflakeTime is the time a Discord id was made, for events; zero if
// it is not one.
func SnowflakeTime(id string) time.Time { return snowflakeTime(id) }

// snowflake is the smallest id of the millisecond t falls in.
func snowflake(t time.Time) string {
	ms := t.UnixMilli() - discordEpoch
	if ms < 0 {
		ms = 0
	}
	return strconv.FormatInt(ms<<22, 10)
}

// Link implements chat.Source: the link of a message, in its thread when
// it is in one (a Discord thread is a channel).
func (s *Source) Link(_ context.Context, ch chat.Channel, thread, message string) string {
	if thread != "" {
		return link(ch.Workspace, thread, message)
	}
	return link(ch.Workspace, ch.ID, message)
}
