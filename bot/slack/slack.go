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
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/panics"
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

	// Redeliver bounds how long an answer Slack would not take (its API
	// down, or rate limits past the retries) is tried again in the
	// background before it is given up (default 15 minutes); Outbox
	// bounds how many such answers wait (default 100).
	Redeliver time.Duration
	Outbox    int
	// Sleep waits between the attempts of a Web API call and between
	// redeliveries; nil waits for real. Tests pass one that returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock of redelivery deadlines; nil: time.Now.
	Now func() time.Time

	// ThreadReplies says whose replies in a thread the bot answered in are
	// questions without a mention (SLACK_THREAD_REPLIES): RepliesAsker
	// (the default), RepliesAnyone or RepliesMentionOnly. Replies need
	// the message.channels and message.groups events.
	ThreadReplies string
	// Conversations tells who the bot answered in which thread; nil: only
	// mentions are answered in threads.
	Conversations Conversations
	// Channels are the channels' settings (issue 26): a channel's reply
	// mode replaces ThreadReplies there, its sources limit its answers,
	// and its answers may go to the asker alone; /switchboard settings
	// changes them. Nil: every channel has the defaults, and the command
	// says it is not available.
	Channels bot.ChannelSettings
	// SettingsAdmin, if set, names the users who, besides the
	// workspace's admins and owners, may change channels' settings
	// (SETTINGS_ADMINS): Slack's Web API does not say who manages a
	// channel.
	SettingsAdmin func(user string) bool

	// Native shows answers with Slack's AI-app surface: progress as the
	// thread's status, the answer streamed, native feedback buttons
	// (native.go). A workspace that refuses streaming gets posted and
	// edited answers instead.
	Native bool
	// Liked and Titles give the suggested prompts of a new thread of the
	// AI-app view (assistant.go): questions people voted up, else
	// questions about the documents; nil: none of that kind.
	Liked  LikedQuestions
	Titles DocumentTitles
	// Experts handles Ask an expert and Save as answer (experts.go); nil:
	// a 👎 is only thanked, and those buttons say they are not set up.
	Experts Experts
	// Answers keeps the answers /ask shares (commands.go); nil: none is
	// shared.
	Answers bot.SharedAnswers
}

// The modes of Config.ThreadReplies.
const (
	RepliesAsker       = "asker"        // the people the bot answered in the thread
	RepliesAnyone      = "anyone"       // anyone, once the bot answered in the thread
	RepliesMentionOnly = "mention-only" // nobody: a reply must mention the bot
)

// Conversations remembers the answers the bot gave; the feedback stores
// implement it with the answers they keep.
type Conversations interface {
	// Answered reports whether the bot answered user in thread (a
	// bot.Incoming.ThreadKey), or anyone there when user is "".
	Answered(ctx context.Context, thread, user string) (bool, error)
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

	policy    slackapi.Policy // calls whose failure someone would miss
	progress  slackapi.Policy // progress edits: the next one supersedes them
	redeliver slackapi.Policy // one attempt of the outbox, which backs off itself
	out       *outbox         // answers waiting for Slack to take them

	noStream sync.Map  // workspaces that refused streaming (native.go)
	viewing  *viewings // the channel each assistant thread's asker looks at (assistant.go)
}

// identity is who the app is in its workspace, as auth.test reports it.
type identity struct {
	UserID string // the bot user: its own messages are ignored, its mention stripped
	TeamID string // the workspace, for events that do not name it
}

// Retries: a call Slack refuses with 429 is retried after the Retry-After
// it names, and one that fails with a 5xx, a transient error code
// (internal_error…) or a lost connection after an exponential backoff, a
// few times, while other calls go on. Progress edits are tried less: the
// next edit replaces them, and the final message waits for them.
const (
	maxRateLimitRetries = 5
	maxRetryAfter       = time.Minute
	progressRetries     = 2
	progressMaxWait     = 5 * time.Second
)

// Redelivery defaults (Config.Redeliver and Config.Outbox).
const (
	defaultRedeliver = 15 * time.Minute
	defaultOutbox    = 100
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
	if cfg.Redeliver <= 0 {
		cfg.Redeliver = defaultRedeliver
	}
	if cfg.Outbox <= 0 {
		cfg.Outbox = defaultOutbox
	}
	if cfg.Sleep == nil {
		cfg.Sleep = slackapi.Sleep
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	switch cfg.ThreadReplies {
	case "":
		cfg.ThreadReplies = RepliesAsker
	case RepliesAsker, RepliesAnyone, RepliesMentionOnly:
	default:
		return nil, fmt.Errorf("slack: SLACK_THREAD_REPLIES must be %s, %s or %s, not %q",
			RepliesAsker, RepliesAnyone, RepliesMentionOnly, cfg.ThreadReplies)
	}
	a := &Adapter{
		cfg: cfg,
		api: slack.New(cfg.BotToken, opts...),
		d:   d,
		log: cfg.Log.With("platform", "slack"),
	}
	a.policy = slackapi.Policy{Retries: maxRateLimitRetries, MaxWait: maxRetryAfter, Sleep: cfg.Sleep, Log: a.log}
	a.progress = slackapi.Policy{Retries: progressRetries, MaxWait: progressMaxWait, Sleep: cfg.Sleep, Log: a.log}
	a.redeliver = slackapi.Policy{Retries: 1, MaxWait: maxRetryAfter, Sleep: cfg.Sleep, Log: a.log}
	a.out = newOutbox(a)
	a.viewing = newViewings()
	return a, nil
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
// answers 429 or fails it for a while (see slackapi.Retry). Only this call
// waits: answers in other threads go on.
func (a *Adapter) retry(ctx context.Context, method string, call func() error) error {
	return slackapi.Retry(ctx, a.policy, method, call)
}

// background runs f after a delivery was acknowledged. Its context is not
// the request's, which ends with the response, but bounded on its own.
func (a *Adapter) background(f func(ctx context.Context)) {
	a.work.Add(1)
	go func() {
		defer a.work.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// A panic on one odd event costs that event, not the process.
		_ = panics.Catch(a.log, "slack event", func() error { f(ctx); return nil })
	}()
}

// ackWithin bounds how long an event's acknowledgement waits for its
// question to be taken: Slack's limit is 3 seconds.
const ackWithin = 2 * time.Second

// takeThenAck handles an event in the background and acknowledges it once
// its question is taken (stored, with a question store, so that a process
// that dies before then leaves the event to Slack's retry), or after
// ackWithin, whichever comes first.
//
// A delivery Slack gave up on before it was acknowledged (delivery ends
// first: this replica was frozen, or too slow) is Slack's to deliver
// again, to this replica or another: the handling's context is cancelled,
// so that a question the store could not take is not held here as well
// (the dispatcher holds only what was acknowledged).
func (a *Adapter) takeThenAck(delivery context.Context, handle func(context.Context), ack func()) {
	taken, abandoned := make(chan struct{}), make(chan struct{})
	a.background(func(ctx context.Context) {
		defer close(taken)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // ends the watch below
		go func() {
			select {
			case <-abandoned:
				cancel()
			case <-ctx.Done():
			}
		}()
		handle(ctx)
	})
	t := time.NewTimer(ackWithin)
	defer t.Stop()
	select {
	case <-taken:
	case <-t.C:
	case <-delivery.Done():
	}
	if delivery.Err() != nil {
		close(abandoned)
		return
	}
	ack()
}

// Wait returns once every acknowledged delivery has been handled: handed
// to the dispatcher, or answered privately. On shutdown, call it after the
// HTTP server and RunSocketMode have stopped and before the dispatcher's
// Shutdown, so that no question acknowledged to Slack is lost.
func (a *Adapter) Wait() { a.work.Wait() }

// Close stops redelivering answers Slack did not take: it refuses new
// ones, keeps trying those waiting until ctx ends, then stops and returns
// an error naming how many were not delivered. Call it after the
// dispatcher's Shutdown, when no answer is being finished any more.
func (a *Adapter) Close(ctx context.Context) error { return a.out.close(ctx) }
