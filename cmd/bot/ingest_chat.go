package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/ingest/discordhist"
	"github.com/switchboard/switchboard/ingest/extract"
	"github.com/switchboard/switchboard/ingest/slackhist"
)

// ingestAny is `switchboard ingest`: files and folders, or with "slack" or
// "discord" and --channel, a chat channel's history.
func (m *Main) ingestAny(ctx context.Context, app *App, args []string) error {
	if len(args) > 0 && (args[0] == "slack" || args[0] == "discord") && hasChannelFlag(args[1:]) {
		return m.ingestChat(ctx, app, args[0], args[1:])
	}
	return m.ingest(ctx, app, args)
}

// hasChannelFlag reports whether args name a channel, which tells `bot
// ingest slack --channel C1` from `switchboard ingest slack/` (a folder).
func hasChannelFlag(args []string) bool {
	for _, a := range args {
		if a == "--channel" || a == "-channel" || strings.HasPrefix(a, "--channel=") || strings.HasPrefix(a, "-channel=") {
			return true
		}
	}
	return false
}

// ingestChat is `switchboard ingest slack|discord --channel ID [--since DATE]`.
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
		fmt.Fprintf(m.Stderr, "switchboard ingest %s: --since: %v\n", platform, err)
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
	if _, err := chat.ParseAdmins(c.IngestAdmins); err != nil {
		return &configError{"INGEST_ADMINS", err.Error()}
	}
	if _, err := chat.ParseAdmins(c.SettingsAdmins); err != nil {
		return &configError{"SETTINGS_ADMINS", err.Error()}
	}
	return nil
}

// chatPort is chat ingestion as the adapters of `switchboard serve` call it:
// package bot's port translated to ingest/chat's Service, so that neither
// package imports the other.
type chatPort struct{ *chat.Service }

var _ bot.ChannelIngester = chatPort{}

// chatService starts chat ingestion for `switchboard serve`. Its runs stop when
// ctx ends or at Close, which waits for them.
func (app *App) chatService(ctx context.Context) chatPort {
	admins, _ := chat.ParseAdmins(app.Config.IngestAdmins) // checked by LoadConfig; a bad list admits no one
	return chatPort{chat.NewService(ctx, chat.ServiceConfig{
		Ingester: app.chatIngester, Admins: admins, Log: app.Log,
		Every: max(3*app.Config.EditInterval, chat.DefaultProgressEvery),
	})}
}

// IngestChannel implements bot.ChannelIngester.
func (p chatPort) IngestChannel(ctx context.Context, req bot.IngestRequest, st bot.IngestStatus) error {
	return botError(p.Ingest(ctx, chat.Request{Platform: req.Platform, Workspace: req.Workspace, Channel: req.Channel, User: req.User, Since: req.Since}, st))
}

// botError is an error of chat.Service.Ingest as bot.ChannelIngester
// names it, which is what the adapters answer people by.
func botError(err error) error {
	switch {
	case errors.Is(err, chat.ErrNotAdmin):
		return bot.ErrNotAdmin
	case errors.Is(err, chat.ErrIngestRunning):
		return bot.ErrIngestRunning
	}
	return err
}

// ChannelChanged implements bot.ChannelIngester.
func (p chatPort) ChannelChanged(ctx context.Context, c bot.ChannelChange) error {
	return p.Apply(ctx, c.Platform, c.Workspace, chat.Change{Channel: c.Channel, Message: c.Message, Thread: c.Thread, Time: c.Time, Deleted: c.Deleted})
}
