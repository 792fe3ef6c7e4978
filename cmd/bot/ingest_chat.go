package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/ingest/discordhist"
	"github.com/switchboard/switchboard/ingest/extract"
	"github.com/switchboard/switchboard/ingest/slackhist"
	"github.com/switchboard/switchboard/internal/panics"
)

// ingestAny is `bot ingest`: files and folders, or with "slack" or
// "discord" and --channel, a chat channel's history.
func (m *Main) ingestAny(ctx context.Context, app *App, args []string) error {
	if len(args) > 0 && (args[0] == "slack" || args[0] == "discord") && hasChannelFlag(args[1:]) {
		return m.ingestChat(ctx, app, args[0], args[1:])
	}
	return m.ingest(ctx, app, args)
}

// hasChannelFlag reports whether args name a channel, which tells `bot
// ingest slack --channel C1` from `bot ingest slack/` (a folder).
func hasChannelFlag(args []string) bool {
	for _, a := range args {
		if a == "--channel" || a == "-channel" || strings.HasPrefix(a, "--channel=") || strings.HasPrefix(a, "-channel=") {
			return true
		}
	}
	return false
}

// ingestChat is `bot ingest slack|discord --channel ID [--since DATE]`.
func (m *Main) ingestChat(ctx context.Context, app *App, platform string, args []string) error {
	fs := m.newFlags("ingest "+platform, "ingest "+platform+" --channel ID [--since YYYY-MM-DD]")
	channel := fs.String("channel", "", "the channel's id (Slack: C…/G…; Discord: the channel's snowflake)")
	sinceFlag := fs.String("since", "", "read only messages from this day on (YYYY-MM-DD or RFC 3339); default: the whole history")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *channel == "" || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	since, err := parseSince(*sinceFlag)
	if err != nil {
		fmt.Fprintf(m.Stderr, "bot ingest %s: --since: %v\n", platform, err)
		return errUsage
	}
	in, err := app.chatIngester(platform)
	if err != nil {
		return err
	}
	bar := newProgressBar(m.Stderr, app.Log)
	rep, err := in.Ingest(ctx, *channel, chat.Options{Since: since, Progress: bar.update})
	bar.done()
	if rep.Channel.ID != "" {
		fmt.Fprintln(m.Stdout, rep.String())
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: what was read is stored; run the same command again to continue where it stopped")
		}
		return err
	}
	if n := len(rep.Errors); n > 0 {
		return fmt.Errorf("%d files or graph extractions failed (listed above); everything else was ingested", n)
	}
	return nil
}

// parseSince reads --since: a day, or an RFC 3339 time.
func parseSince(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a day like 2024-01-31", s)
	}
	return t, nil
}

// chatIngester wires a chat.Ingester for a platform from the
// configuration: its history source, the App's pipeline (batched
// embedding) and stores, and graph extraction as GRAPH_EXTRACT says.
func (app *App) chatIngester(platform string) (*chat.Ingester, error) {
	cfg := app.Config
	var src chat.Source
	var err error
	switch platform {
	case "slack":
		if cfg.SlackBotToken == "" {
			return nil, &configError{"SLACK_BOT_TOKEN", "ingesting Slack needs the bot token (with channels:history, groups:history, channels:read, groups:read, users:read, files:read)"}
		}
		src, err = slackhist.New(slackhist.Config{BotToken: cfg.SlackBotToken, APIURL: cfg.SlackAPIURL, Log: app.Log})
	case "discord":
		if cfg.DiscordBotToken == "" {
			return nil, &configError{"DISCORD_BOT_TOKEN", "ingesting Discord needs the bot token (with Read Message History)"}
		}
		src, err = discordhist.New(discordhist.Config{BotToken: cfg.DiscordBotToken, APIURL: cfg.DiscordAPIURL, Log: app.Log})
	default:
		return nil, fmt.Errorf("no chat platform %q: slack or discord", platform)
	}
	if err != nil {
		return nil, err
	}
	store, ok := app.Docs.(chat.Store)
	if !ok || app.Cursors == nil {
		return nil, errors.New("the document store cannot hold chat history")
	}
	in := &chat.Ingester{
		Source: src, Pipeline: app.Ingest, Store: store, Cursors: app.Cursors,
		MaxFileSize: int64(cfg.IngestMaxFileMB) << 20, Log: app.Log,
	}
	schema, err := extract.ParseSchema(cfg.GraphLabels, cfg.GraphRelations)
	if err != nil {
		return nil, &configError{"GRAPH_LABELS / GRAPH_RELATIONS", err.Error()}
	}
	switch {
	case cfg.GraphExtract == "off":
	case cfg.GraphExtract == "auto" && app.Model != nil:
		in.Graph = &extract.Graph{Extractor: &extract.Model{LLM: app.Model, Schema: schema}, Writer: app.Graph}
	default:
		in.Graph = &extract.Graph{Extractor: extract.Rules{Schema: schema}, Writer: app.Graph}
	}
	return in, nil
}

// validateIngest checks the settings of chat ingestion.
func (c *Config) validateIngest() error {
	switch c.GraphExtract {
	case "auto", "rules", "off":
	default:
		return &configError{"GRAPH_EXTRACT", fmt.Sprintf("%q is not auto, rules or off", c.GraphExtract)}
	}
	if _, err := extract.ParseSchema(c.GraphLabels, c.GraphRelations); err != nil {
		return &configError{"GRAPH_LABELS / GRAPH_RELATIONS", err.Error()}
	}
	if c.IngestMaxFileMB < 1 || c.IngestMaxFileMB > 1024 {
		return &configError{"INGEST_MAX_FILE_MB", fmt.Sprintf("%d is outside 1..1024", c.IngestMaxFileMB)}
	}
	for _, id := range strings.Split(c.IngestAdmins, ",") {
		id = strings.TrimSpace(id)
		if p, rest, ok := strings.Cut(id, ":"); ok && (p != "slack" && p != "discord" || rest == "") {
			return &configError{"INGEST_ADMINS", fmt.Sprintf("%q: write slack:U123, discord:123456 or a bare user id", id)}
		}
	}
	return nil
}

// admins is INGEST_ADMINS: "slack:U1" and "discord:2" name a user of one
// platform; a bare id counts on either (Slack's and Discord's ids never
// look alike).
type admins map[string]bool

func parseAdmins(s string) admins {
	a := admins{}
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			a[id] = true
		}
	}
	return a
}

func (a admins) allowed(platform, user string) bool {
	return user != "" && (a[platform+":"+user] || a[user])
}

// chatService serves chat ingestion in `bot serve`: the ingest command of
// admins, run in the background with its progress shown in chat, and
// live updates of ingested channels. It implements bot.ChannelIngester.
type chatService struct {
	app    *App
	admins admins
	// every is the least time between two progress edits of a status.
	every time.Duration

	ctx    context.Context // the parent of ingest runs; cancelled by close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	ingesters map[string]*chat.Ingester // by platform, made on first use
	running   map[string]bool           // platform/workspace/channel of runs in progress
}

var _ bot.ChannelIngester = (*chatService)(nil)

// chatService returns the App's chat ingestion service, made on first
// use; closing the App stops its runs.
func (app *App) chatService() *chatService {
	if app.chat != nil {
		return app.chat
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &chatService{
		app: app, admins: parseAdmins(app.Config.IngestAdmins), every: max(3*app.Config.EditInterval, 2*time.Second),
		ctx: ctx, cancel: cancel, ingesters: map[string]*chat.Ingester{}, running: map[string]bool{},
	}
	app.chat = s
	app.closers = append(app.closers, s.close)
	return s
}

// close stops the runs in progress (what they stored stays; the next run
// goes on from there) and waits for them to end.
func (s *chatService) close() {
	s.cancel()
	s.wg.Wait()
}

func (s *chatService) ingester(platform string) (*chat.Ingester, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in := s.ingesters[platform]; in != nil {
		return in, nil
	}
	in, err := s.app.chatIngester(platform)
	if err != nil {
		return nil, err
	}
	s.ingesters[platform] = in
	return in, nil
}

// IngestChannel implements bot.ChannelIngester.
func (s *chatService) IngestChannel(ctx context.Context, req bot.IngestRequest, st bot.IngestStatus) error {
	if !s.admins.allowed(req.Platform, req.User) {
		return bot.ErrNotAdmin
	}
	in, err := s.ingester(req.Platform)
	if err != nil {
		return err
	}
	key := req.Platform + "/" + req.Workspace + "/" + req.Channel
	s.mu.Lock()
	if s.running[key] {
		s.mu.Unlock()
		return bot.ErrIngestRunning
	}
	if s.ctx.Err() != nil {
		s.mu.Unlock()
		return errors.New("shutting down")
	}
	s.running[key] = true
	s.wg.Add(1)
	s.mu.Unlock()
	s.app.Log.Info("ingesting a channel from chat", "platform", req.Platform, "channel", req.Channel, "by", req.User)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.running, key)
			s.mu.Unlock()
		}()
		s.run(in, req, st)
	}()
	return nil
}

// run is one ingest asked for in chat.
func (s *chatService) run(in *chat.Ingester, req bot.IngestRequest, st bot.IngestStatus) {
	show := func(text string) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 30*time.Second)
		defer cancel()
		if err := st.Show(ctx, text); err != nil {
			s.app.Log.Warn("could not show an ingest's progress", "channel", req.Channel, "err", err)
		}
	}
	show("⏳ Ingesting this channel…")
	var last time.Time
	var rep chat.Report
	// A panic on one channel's odd history ends this run with a message,
	// not the process with every answer in flight.
	err := panics.Catch(s.app.Log, "channel ingest", func() (err error) {
		rep, err = in.Ingest(s.ctx, req.Channel, chat.Options{Since: req.Since, Progress: func(p chat.Progress) {
			if time.Since(last) < s.every {
				return
			}
			last = time.Now()
			show("⏳ " + progressLine(p))
		}})
		return err
	})
	switch {
	case err != nil && s.ctx.Err() != nil:
		show(fmt.Sprintf("⏸ Ingesting stopped because I was restarted. %s\nWhat was read is stored; ask again to go on from there.", rep))
	case err != nil:
		s.app.Log.Error("ingest failed", "channel", req.Channel, "err", err)
		show(fmt.Sprintf("⚠️ Ingesting stopped: %v\n%s\nWhat was read is stored; ask again to go on from there.", err, rep))
	default:
		s.app.Log.Info("ingested a channel", "platform", req.Platform, "channel", req.Channel, "summary", rep.String())
		show("✅ Ingested " + rep.String() + "\nFrom now on, new, edited and deleted messages here update what I know.")
	}
}

// ChannelChanged implements bot.ChannelIngester.
func (s *chatService) ChannelChanged(ctx context.Context, c bot.ChannelChange) error {
	// Slack channels are never threads: a channel without a cursor was
	// not ingested, which a lookup tells without asking Slack.
	if c.Platform == "slack" && c.Workspace != "" && s.app.Cursors != nil {
		if _, ok, err := s.app.Cursors.Get(ctx, "slack:"+c.Workspace, c.Channel); err != nil || !ok {
			return err
		}
	}
	in, err := s.ingester(c.Platform)
	if err != nil {
		return err
	}
	var applied bool
	var rep chat.Report
	err = panics.Catch(s.app.Log, "live update", func() (err error) {
		applied, rep, err = in.Apply(ctx, chat.Change{Channel: c.Channel, Message: c.Message, Thread: c.Thread, Time: c.Time, Deleted: c.Deleted})
		return err
	})
	if applied && err == nil {
		s.app.Log.Debug("applied a message change", "platform", c.Platform, "channel", c.Channel, "message", c.Message,
			"added", rep.Added, "updated", rep.Updated, "deleted", rep.Deleted)
	}
	return err
}

// progressLine describes a run's progress for people.
func progressLine(p chat.Progress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ingesting #%s: %d messages, %d documents so far", p.Channel.Name, p.Messages, p.Documents)
	if p.Fraction >= 0 {
		fmt.Fprintf(&b, " · %d%%", int(p.Fraction*100))
	}
	if eta, ok := p.ETA(); ok {
		fmt.Fprintf(&b, " · about %s left", eta.Round(time.Second))
	}
	return b.String()
}

// progressBar shows a run's progress on a terminal: a bar with the
// messages done, the rate and the time left, redrawn in place at most
// ten times a second. When the output is not a terminal it logs a line
// every logEvery instead.
type progressBar struct {
	w    io.Writer
	tty  bool
	log  *slog.Logger
	last time.Time
	drew bool
}

// logEvery is how often progress is logged when the output is no terminal.
const logEvery = 10 * time.Second

func newProgressBar(w io.Writer, log *slog.Logger) *progressBar {
	return &progressBar{w: w, tty: isTerminal(w), log: log}
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (b *progressBar) update(p chat.Progress) {
	now := time.Now()
	if !b.tty {
		if now.Sub(b.last) >= logEvery {
			b.last = now
			args := []any{"channel", p.Channel.Name, "messages", p.Messages, "documents", p.Documents,
				"rate", fmt.Sprintf("%.0f/s", p.Rate()), "day", p.Day.Format("2006-01-02")}
			if eta, ok := p.ETA(); ok {
				args = append(args, "eta", eta.Round(time.Second).String())
			}
			b.log.Info("ingesting", args...)
		}
		return
	}
	if now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	b.drew = true
	fmt.Fprint(b.w, "\r"+barLine(p)+"\x1b[K")
}

// done ends the bar's line, so that what is printed next starts afresh.
func (b *progressBar) done() {
	if b.drew {
		fmt.Fprintln(b.w)
	}
}

// barLine is one line of the bar:
//
//	#general ▕██████░░░░░░░░▏ 43% · 8,600 messages · 1,750/s · ETA 7s
func barLine(p chat.Progress) string {
	const width = 24
	var b strings.Builder
	b.WriteString("#" + p.Channel.Name + " ")
	if p.Fraction >= 0 {
		n := int(p.Fraction*width + 0.5)
		b.WriteString("▕" + strings.Repeat("█", n) + strings.Repeat("░", width-n) + "▏")
		fmt.Fprintf(&b, " %3d%% · ", int(p.Fraction*100))
	}
	fmt.Fprintf(&b, "%s messages · %.0f/s", thousands(p.Messages), p.Rate())
	if eta, ok := p.ETA(); ok {
		fmt.Fprintf(&b, " · ETA %s", eta.Round(time.Second))
	}
	fmt.Fprintf(&b, " · %s", p.Day.Format("2 Jan 2006"))
	return b.String()
}

// thousands writes n with thousands separators: 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
