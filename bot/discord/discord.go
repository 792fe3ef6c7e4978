// Package discord is the Discord adapter: it turns /ask commands,
// @mentions and direct messages into bot.Incoming questions and renders the presenter's
// bot.View as embeds, edited in place as the agent works.
//
// Two delivery modes are supported, chosen with Config.Mode:
//
//   - "gateway": a discordgo websocket session receives INTERACTION_CREATE
//     (/ask, its autocomplete, buttons) and MESSAGE_CREATE (@mentions,
//     replies to the bot's answers and a help channel's questions, which
//     need the privileged message-content intent, and direct messages).
//   - "http": Discord POSTs interactions to Handler, which verifies their
//     Ed25519 signature. @mentions and direct messages need the gateway and
//     are not seen; /ask in a DM is.
//
// `/ask private:true` answers the asker alone (ephemeral), with a Share
// button that posts the answer in the channel once (share.go).
//
// In both modes answers are sent over REST: an /ask is acknowledged with a
// deferred response at once, then its original response is edited; a
// mention gets a reply message that is edited. Only the adapter translates;
// the bot package decides what people see.
package discord

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/discordapi"
	"github.com/switchboard/switchboard/internal/panics"
)

// Delivery modes of Config.Mode.
const (
	ModeGateway = "gateway"
	ModeHTTP    = "http"
)

// platform names Discord in questions and their thread keys.
const platform = "discord"

// DefaultAPIURL is Discord's REST API, version 10.
const DefaultAPIURL = "https://discord.com/api/v10/"

// Config configures an Adapter. The settings' environment names appear in
// validation errors, since that is where an operator fixes them.
type Config struct {
	Mode      string // ModeGateway or ModeHTTP (DISCORD_MODE)
	BotToken  string // the bot token, with or without "Bot " (DISCORD_BOT_TOKEN)
	AppID     string // the application id (DISCORD_APP_ID)
	PublicKey string // the application's Ed25519 public key, hex; http mode (DISCORD_PUBLIC_KEY)
	GuildID   string // register /ask in this guild only (instant); "" registers it globally
	// APIURL replaces DefaultAPIURL for this adapter only, e.g. a fake's
	// http://127.0.0.1:9001/api/v10/. The gateway URL is fetched from it.
	APIURL string
	// HTTPClient sends REST requests; nil uses one with a 20s timeout.
	// It is copied, never modified.
	HTTPClient *http.Client
	Log        *slog.Logger // nil discards
	// Ingest, if set, adds the /ingest command for ingest admins and, in
	// gateway mode, keeps ingested channels up to date from
	// MESSAGE_CREATE, MESSAGE_UPDATE and MESSAGE_DELETE (ingest.go).
	Ingest bot.ChannelIngester
	// Answers keeps the answers the bot gave (the feedback store), from
	// which a private answer's Share button posts it, once (share.go);
	// nil: no answer is shared.
	Answers bot.SharedAnswers
	// Experts handles Ask an expert and Save as answer (experts.go); nil:
	// a 👎 is only thanked, and those buttons say they are not set up.
	Experts Experts
	// Liked, if set, suggests questions answered well before in the
	// server as /ask's question is typed (autocomplete).
	Liked LikedQuestions
	// Channels are the channels' settings (issue 26): a channel's
	// sources limit what its answers cite, its reply mode which messages
	// are questions (gateway mode; a channel without one answers anyone's
	// replies to the bot's answers, as before settings), and a private
	// channel answers its asker alone. With it, /switchboard settings
	// shows and changes them (settings.go). Nil: every channel has the
	// defaults.
	Channels bot.ChannelSettings
	// SettingsAdmin, if set, names the users who, besides the members who
	// may manage a channel, may change its settings (SETTINGS_ADMINS).
	SettingsAdmin func(user string) bool
}

// Dispatcher takes questions and feedback; *bot.Dispatcher implements it.
type Dispatcher interface {
	// Submit queues a question without blocking; see bot.Dispatcher.Submit
	// for its errors (bot.ErrBusy, bot.ErrStopping, bot.ErrDuplicate).
	Submit(ctx context.Context, in bot.Incoming, r bot.Replier) error
	// Vote records a 👍 (+1) or 👎 (-1) on an answer.
	Vote(ctx context.Context, answerID, user string, vote int) error
}

var _ Dispatcher = (*bot.Dispatcher)(nil)

// Adapter connects Discord to a Dispatcher. It is safe for concurrent use.
type Adapter struct {
	cfg Config
	d   Dispatcher
	log *slog.Logger
	s   *discordgo.Session
	pub ed25519.PublicKey // http mode only

	mu   sync.Mutex
	self string          // the bot's user id, once known
	base context.Context // RunGateway's context, the parent of event handling
}

// New checks cfg and returns an Adapter. Nothing is sent to Discord yet.
func New(cfg Config, d Dispatcher) (*Adapter, error) {
	if d == nil {
		return nil, errors.New("discord: a Dispatcher is required")
	}
	cfg.BotToken = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cfg.BotToken), "Bot "))
	cfg.AppID = strings.TrimSpace(cfg.AppID)
	var pub ed25519.PublicKey
	switch cfg.Mode {
	case ModeGateway:
		if cfg.BotToken == "" {
			return nil, errors.New("discord: gateway mode needs DISCORD_BOT_TOKEN")
		}
		if cfg.AppID == "" {
			return nil, errors.New("discord: gateway mode needs DISCORD_APP_ID (to register /ask)")
		}
	case ModeHTTP:
		if cfg.AppID == "" {
			return nil, errors.New("discord: http mode needs DISCORD_APP_ID")
		}
		key, err := hex.DecodeString(strings.TrimSpace(cfg.PublicKey))
		switch {
		case cfg.PublicKey == "":
			return nil, errors.New("discord: http mode needs DISCORD_PUBLIC_KEY")
		case err != nil || len(key) != ed25519.PublicKeySize:
			return nil, errors.New("discord: DISCORD_PUBLIC_KEY must be the application's public key: 64 hex characters")
		}
		pub = key
	case "":
		return nil, errors.New(`discord: DISCORD_MODE must be set to "gateway" or "http"`)
	default:
		return nil, fmt.Errorf(`discord: DISCORD_MODE must be "gateway" or "http", not %q`, cfg.Mode)
	}
	api := cfg.APIURL
	if api == "" {
		api = DefaultAPIURL
	}
	to, err := url.Parse(api)
	if err != nil || (to.Scheme != "http" && to.Scheme != "https") || to.Host == "" {
		return nil, fmt.Errorf("discord: API URL %q is not an http(s) URL", api)
	}
	if !strings.HasSuffix(to.Path, "/") {
		to.Path += "/"
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}

	token := ""
	if cfg.BotToken != "" {
		token = "Bot " + cfg.BotToken
	}
	s, err := discordgo.New(token)
	if err != nil {
		return nil, fmt.Errorf("discord: new session: %w", err)
	}
	client := &http.Client{Timeout: 20 * time.Second}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		client = &c
	}
	client.Transport = discordapi.Rewrite{Base: client.Transport, To: to}
	s.Client = client
	// discordgo's own 429 handling sleeps without a context and retries
	// without bound; retry.go retries a few times, ctx-aware, instead.
	s.ShouldRetryOnRateLimit = false
	s.StateEnabled = false // the adapter keeps the one fact it needs: its own id
	// Direct messages are questions too (DIRECT_MESSAGES); a message's
	// text in a server needs the privileged MESSAGE_CONTENT, in a DM not.
	s.Identify.Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages | discordgo.IntentsMessageContent |
		discordgo.IntentsDirectMessages

	a := &Adapter{cfg: cfg, d: d, log: cfg.Log, s: s, pub: pub}
	if cfg.Mode == ModeGateway {
		s.AddHandler(guarded(a, "ready", a.onReady))
		s.AddHandler(guarded(a, "interaction", a.onInteraction))
		s.AddHandler(guarded(a, "message", a.onMessage))
		s.AddHandler(guarded(a, "message update", a.onMessageUpdate))
		s.AddHandler(guarded(a, "message delete", a.onMessageDelete))
	}
	return a, nil
}

// guarded wraps a gateway event handler: discordgo runs each handler on a
// goroutine of its own, where a panic on an odd event would end the
// process; here it ends that event's handling, logged with its stack.
func guarded[E any](a *Adapter, what string, h func(*discordgo.Session, E)) func(*discordgo.Session, E) {
	return func(s *discordgo.Session, e E) {
		_ = panics.Catch(a.log, "discord "+what, func() error { h(s, e); return nil })
	}
}

// askCommand is the bot's command for questions, /ask question
// [private]. Registered globally, it is declared for servers, the bot's
// DMs and other private channels, in a server that installed the bot and
// for people who installed it for themselves; Discord allows contexts
// and integration types on global commands only, so a guild's command
// (global false) is the server's alone. With autocomplete, Discord asks
// for suggestions as the question is typed.
func askCommand(global, autocomplete bool) *discordgo.ApplicationCommand {
	minLen := 1
	cmd := command(commandName, "Ask Switchboard a question about our documents, systems and people",
		discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString, Name: optionName,
			Description: "Your question", Required: true, MinLength: &minLen, MaxLength: maxQuestion, Autocomplete: autocomplete},
		discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionBoolean, Name: privateOption,
			Description: "Answer only me (I can share it in the channel after)"})
	if global {
		cmd.Contexts = &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild,
			discordgo.InteractionContextBotDM, discordgo.InteractionContextPrivateChannel}
		cmd.IntegrationTypes = &[]discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall,
			discordgo.ApplicationIntegrationUserInstall}
	}
	return cmd
}

// guildCommand is a chat command of the bot with one string option, for
// the channels of servers that installed the bot only: /ingest reads a
// server's channel.
func guildCommand(name, description string, option discordgo.ApplicationCommandOption) *discordgo.ApplicationCommand {
	option.Type = discordgo.ApplicationCommandOptionString
	cmd := command(name, description, option)
	cmd.Contexts = &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild}
	cmd.IntegrationTypes = &[]discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall}
	return cmd
}

// command is a chat command of the bot.
func command(name, description string, options ...discordgo.ApplicationCommandOption) *discordgo.ApplicationCommand {
	cmd := &discordgo.ApplicationCommand{Type: discordgo.ChatApplicationCommand, Name: name, Description: description}
	for i := range options {
		cmd.Options = append(cmd.Options, &options[i])
	}
	return cmd
}

// RegisterCommands registers /ask by bulk overwrite: in Config.GuildID if
// set (visible at once, for development), else globally. It needs the bot
// token in both modes.
func (a *Adapter) RegisterCommands(ctx context.Context) error {
	if a.cfg.BotToken == "" {
		return errors.New("discord: registering /ask needs DISCORD_BOT_TOKEN")
	}
	cmds := []*discordgo.ApplicationCommand{askCommand(a.cfg.GuildID == "", a.cfg.Liked != nil)}
	if a.cfg.Ingest != nil {
		cmds = append(cmds, ingestCommand())
	}
	if a.cfg.Channels != nil {
		cmds = append(cmds, settingsCommand())
	}
	return a.do(ctx, "register /ask", func(opts ...discordgo.RequestOption) error {
		_, err := a.s.ApplicationCommandBulkOverwrite(a.cfg.AppID, a.cfg.GuildID, cmds, opts...)
		return err
	})
}

// RunGateway connects to the gateway and handles events until ctx ends,
// then disconnects. It returns an error only if it could not connect; a
// dropped connection is re-established by discordgo.
func (a *Adapter) RunGateway(ctx context.Context) error {
	if a.cfg.Mode != ModeGateway {
		return fmt.Errorf("discord: RunGateway needs DISCORD_MODE=gateway, not %q", a.cfg.Mode)
	}
	// Asking who we are first turns a wrong token into a clear error
	// instead of a failed websocket handshake, and tells us our own id
	// before any message can arrive.
	var me *discordgo.User
	err := a.do(ctx, "get the bot user", func(opts ...discordgo.RequestOption) (err error) {
		me, err = a.s.User("@me", opts...)
		return err
	})
	if err != nil {
		return fmt.Errorf("%w (is DISCORD_BOT_TOKEN right?)", err)
	}
	a.mu.Lock()
	a.self, a.base = me.ID, ctx
	a.mu.Unlock()
	if err := a.s.Open(); err != nil {
		return fmt.Errorf("discord: open the gateway: %w", err)
	}
	a.log.Info("discord gateway connected", "bot", me.Username)
	<-ctx.Done()
	if err := a.s.Close(); err != nil {
		a.log.Warn("discord gateway close", "err", err)
	}
	return nil
}

// selfID returns the bot's user id, "" before it is known.
func (a *Adapter) selfID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.self
}

// baseContext is the context event handlers work under: RunGateway's, so
// that shutting the gateway down stops them too.
func (a *Adapter) baseContext() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.base == nil {
		return context.Background()
	}
	return a.base
}
