// Package slack connects Switchboard to Slack. It only translates: Slack
// events become bot.Incoming questions for the Dispatcher, and the
// Dispatcher's views become Block Kit messages in the asker's thread.
//
// Slack reaches the adapter over Socket Mode (RunSocketMode, with an
// app-level token) or over HTTP (Handler: the Events API and interactivity
// request URLs, verified with the signing secret). Either way every
// delivery is acknowledged before any work starts, because Slack retries
// deliveries that are not acknowledged within three seconds.
package slack

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/slackapi"
)

// Config configures an Adapter.
type Config struct {
	BotToken      string // xoxb-…: the Web API (required)
	AppToken      string // xapp-…: Socket Mode (required by RunSocketMode)
	SigningSecret string // verifies HTTP requests (required by Handler)
	APIURL        string // the Web API base URL (default https://slack.com/api/)
	// HTTPClient makes the Web API calls (default: a client with a 30s timeout).
	HTTPClient *http.Client
	Log        *slog.Logger
	// Ingest, if set, takes "@Switchboard ingest this channel" from
	// ingest admins and the message events of channels (message.channels,
	// message.groups) to keep ingested channels up to date (ingest.go).
	Ingest bot.ChannelIngester
}

// Dispatcher is what the adapter needs from bot.Dispatcher.
type Dispatcher interface {
	// Submit queues a question without blocking; it fails with
	// bot.ErrDuplicate, bot.ErrBusy or bot.ErrStopping.
	Submit(ctx context.Context, in bot.Incoming, r bot.Replier) error
	// Vote records a feedback button: +1 or -1 by user on an answer.
	Vote(ctx context.Context, answerID, user string, vote int) error
}

var _ Dispatcher = (*bot.Dispatcher)(nil)

// Adapter connects one Slack app to a Dispatcher. Call Init before serving.
type Adapter struct {
	cfg Config
	api *slack.Client
	d   Dispatcher
	log *slog.Logger
	me  atomic.Pointer[identity] // set by Init

	// work counts the goroutines that handle deliveries after they were
	// acknowledged (see Wait).
	work sync.WaitGroup
}

// identity is who the app is in its workspace, as auth.test reports it.
type identity struct {
	UserID string // the bot user: its own messages are ignored, its mention stripped
	TeamID string // the workspace, for events that do not name it
}

// Rate-limit handling: a call Slack refuses with 429 is retried after the
// Retry-After it names, a few times, while other calls go on.
const (
	maxRateLimitRetries = 5
	maxRetryAfter       = time.Minute
)

// New returns an Adapter for cfg that hands questions to d.
func New(cfg Config, d Dispatcher) (*Adapter, error) {
	if cfg.BotToken == "" {
		return nil, errors.New("slack: a bot token is required")
	}
	if d == nil {
		return nil, errors.New("slack: a dispatcher is required")
	}
	if cfg.APIURL == "" {
		cfg.APIURL = slack.APIURL
	}
	if !strings.HasSuffix(cfg.APIURL, "/") {
		cfg.APIURL += "/" // slack-go appends method names to it
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	opts := []slack.Option{slack.OptionAPIURL(cfg.APIURL), slack.OptionHTTPClient(cfg.HTTPClient)}
	if cfg.AppToken != "" {
		opts = append(opts, slack.OptionAppLevelToken(cfg.AppToken))
	}
	return &Adapter{
		cfg: cfg,
		api: slack.New(cfg.BotToken, opts...),
		d:   d,
		log: cfg.Log.With("platform", "slack"),
	}, nil
}

// Init asks Slack who the bot is (auth.test): its user id, to ignore its
// own messages and strip its mention, and its workspace.
func (a *Adapter) Init(ctx context.Context) error {
	var res *slack.AuthTestResponse
	err := a.retry(ctx, "auth.test", func() (err error) {
		res, err = a.api.AuthTestContext(ctx)
		return err
	})
	if err != nil {
		return err
	}
	a.me.Store(&identity{UserID: res.UserID, TeamID: res.TeamID})
	a.log.Info("connected to Slack", "team", res.Team, "team_id", res.TeamID, "bot_user", res.UserID)
	return nil
}

// self returns the identity from Init, or an empty one before it.
func (a *Adapter) self() identity {
	if me := a.me.Load(); me != nil {
		return *me
	}
	return identity{}
}

// retry runs one Web API call, waiting and trying again while Slack
// answers 429. Only this call waits: answers in other threads go on.
func (a *Adapter) retry(ctx context.Context, method string, call func() error) error {
	return slackapi.Retry(ctx, a.log, method, maxRateLimitRetries, maxRetryAfter, call)
}

// background runs f after a delivery was acknowledged. Its context is not
// the request's, which ends with the response, but bounded on its own.
func (a *Adapter) background(f func(ctx context.Context)) {
	a.work.Add(1)
	go func() {
		defer a.work.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		f(ctx)
	}()
}

// Wait returns once every acknowledged delivery has been handled: handed
// to the dispatcher, or answered privately. On shutdown, call it after the
// HTTP server and RunSocketMode have stopped and before the dispatcher's
// Shutdown, so that no question acknowledged to Slack is lost.
func (a *Adapter) Wait() { a.work.Wait() }
