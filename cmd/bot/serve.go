package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/discord"
	"github.com/switchboard/switchboard/bot/slack"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/internal/slackapi"
	"github.com/switchboard/switchboard/retention"
)

// serve answers questions from Slack and Discord until SIGTERM/SIGINT.
// One HTTP server carries the webhooks of both platforms and the health
// checks; Socket Mode and the Discord gateway run beside it. The steps:
// start the dispatcher, listen (the health checks answer from then on,
// while the platforms connect, which may take retries), connect each
// platform, run until the signal or a failed connection, and drain.
func (m *Main) serve(ctx context.Context, app *App, args []string) error {
	if len(args) > 0 {
		fmt.Fprintln(m.Stderr, "Usage: switchboard serve")
		return errUsage
	}
	cfg := app.Config
	if !cfg.SlackConfigured() && cfg.DiscordMode == "" {
		return &configError{"SLACK_BOT_TOKEN / DISCORD_MODE", "nothing to serve: set SLACK_BOT_TOKEN with SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (Events API), and/or DISCORD_MODE=gateway|http with its DISCORD_* settings"}
	}

	s := &server{app: app, mux: http.NewServeMux(), sleep: m.sleep}
	// Answers in flight must outlive the signal: the dispatcher gets its
	// own context, cancelled only after the graceful drain.
	work, abandon := context.WithCancel(context.WithoutCancel(ctx))
	defer abandon()
	s.abandon = abandon
	s.newDispatcher()
	defer s.startRetention(ctx)() // stopped and waited for before the stores close
	s.routes()
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return &configError{"HTTP_ADDR", err.Error()}
	}
	s.listen(ln)
	app.Log.Info("listening; connecting to the chat platforms", "addr", ln.Addr().String())
	if m.healthUp != nil {
		m.healthUp(ln.Addr().String())
	}
	// Channel ingests asked for in chat stop at the signal (the next one
	// resumes them); serve waits for them before the stores close.
	chats := app.chatService(ctx)
	defer chats.Close()
	if err := s.connect(ctx, chats); err != nil {
		s.closeHTTP()
		if ctx.Err() != nil { // the signal came while connecting
			app.Log.Info("stopped before the chat platforms were connected")
			return nil
		}
		return err
	}
	// After the adapters, which say how their stored questions are shown.
	s.d.Start(work)
	s.connected.Store(true)
	app.Log.Info("serving", "addr", ln.Addr().String())
	if m.listening != nil {
		m.listening(ln.Addr().String())
	}
	return s.run(ctx)
}

// connect connects the platforms configured.
func (s *server) connect(ctx context.Context, chats chatPort) error {
	if err := s.connectSlack(ctx, chats); err != nil {
		return err
	}
	return s.connectDiscord(ctx, chats)
}

// server is one `switchboard serve`: what its steps build and its shutdown
// releases.
type server struct {
	app       *App
	d         *bot.Dispatcher
	abandon   context.CancelFunc // cancels the answers still running
	mux       *http.ServeMux
	stopping  atomic.Bool                                // /readyz fails from the signal on
	connected atomic.Bool                                // /readyz fails until the platforms are connected
	runners   []func(context.Context) error              // Socket Mode and the gateway
	slack     *slack.Adapter                             // nil without Slack
	sleep     func(context.Context, time.Duration) error // between retries (nil: a timer)

	// The HTTP server, serving from listen on; served ends when it stops,
	// httpErr says why when that was not Shutdown.
	srv     *http.Server
	served  sync.WaitGroup
	httpErr chan error
}

// newDispatcher makes what answers questions, with the askers' rate
// limits and the daily token budget: the questions are stored (in the
// embedded file, or in PostgreSQL shared by every replica, with the
// limits).
func (s *server) newDispatcher() {
	cfg := s.app.Config
	bc := bot.Config{
		Agent: s.app.Agent, Workers: cfg.Workers, Queue: cfg.QueueSize, Interval: cfg.EditInterval,
		Timeout: cfg.AnswerTimeout, Feedback: s.app.Feedback, Log: s.app.Log,
		Observer: s.app.Metrics, Questions: s.app.Questions, Shared: s.app.SharedQuestions,
		Lease: cfg.QuestionLease, Owner: owner(),
	}
	if s.app.Limits != nil {
		bc.Limiter, bc.Budget = s.app.Limits, s.app.Limits
	} else {
		bc.Limiter, bc.Budget = askerLimits(cfg)
	}
	s.d = bot.NewDispatcher(bc)
	s.app.Metrics.QueueDepth(s.d.Queued)
}

// owner names this replica where it holds questions (the questions
// table's owner column): host and process, for people reading it.
func owner() string {
	host, _ := os.Hostname()
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s:%d:%x", host, os.Getpid(), b)
}

// startRetention prunes the threads and deliveries kept too long, at once
// and then every RETENTION_INTERVAL, until ctx ends; the returned stop
// ends it and waits for it.
func (s *server) startRetention(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		retention.Schedule{Jobs: s.app.Retention, Every: s.app.Config.RetentionInterval, Log: s.app.Log}.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// routes adds the health checks and the metrics; the platforms add their
// webhooks when they connect.
func (s *server) routes() {
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	s.mux.Handle("GET /metrics", s.app.Metrics.Handler())
	s.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if s.stopping.Load() {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		if !s.connected.Load() {
			http.Error(w, "starting: connecting to the chat platforms", http.StatusServiceUnavailable)
			return
		}
		if err := s.app.Ready(r.Context()); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
}

// connectSlack checks the bot token and adds Socket Mode and/or the Events
// API, as configured.
func (s *server) connectSlack(ctx context.Context, chats chatPort) error {
	cfg, app := s.app.Config, s.app
	if !cfg.SlackConfigured() {
		return nil
	}
	sa, err := slack.New(slack.Config{BotToken: cfg.SlackBotToken, AppToken: cfg.SlackAppToken, SigningSecret: cfg.SlackSigningSecret, APIURL: cfg.SlackAPIURL, Log: app.Log,
		HTTPClient: app.Metrics.HTTPClient("slack", &http.Client{Timeout: 30 * time.Second}), Ingest: chats,
		// Who the bot answered in a thread comes from the answers the
		// feedback store keeps (feedback.Store.Answered).
		ThreadReplies: cfg.SlackThreadReplies, Conversations: app.Feedback, Sleep: s.sleep,
		// Slack's AI-app surface, unless turned off; its suggested
		// prompts are the questions voted up, else the documents'.
		Native: cfg.SlackNative, Liked: app.Feedback, Titles: app.titles(), Answers: app.Feedback,
		// Each channel's settings: its reply mode over
		// SLACK_THREAD_REPLIES, its sources, its private answers.
		Channels: app.Channels, SettingsAdmin: app.settingsAdmin("slack"),
		Experts: app.experts()}, s.d)
	if err != nil {
		return err
	}
	if err := sa.Init(ctx); err != nil {
		return connectError("Slack", cfg.SlackAPIURL, "SLACK_BOT_TOKEN", err, slackapi.Temporary(err))
	}
	s.slack = sa
	s.d.Resume("slack", sa.Resume)
	if cfg.SlackAppToken != "" {
		s.runners = append(s.runners, sa.RunSocketMode)
		app.Log.Info("slack: socket mode")
	}
	if cfg.SlackSigningSecret != "" {
		s.mux.Handle("/slack/", sa.Handler())
		app.Log.Info("slack: events API at /slack/events")
	}
	return nil
}

// connectDiscord registers /ask and adds the gateway or the interactions
// endpoint, as DISCORD_MODE says.
func (s *server) connectDiscord(ctx context.Context, chats chatPort) error {
	cfg, app := s.app.Config, s.app
	if cfg.DiscordMode == "" {
		return nil
	}
	da, err := discord.New(discord.Config{Mode: cfg.DiscordMode, BotToken: cfg.DiscordBotToken, AppID: cfg.DiscordAppID,
		PublicKey: cfg.DiscordPublicKey, GuildID: cfg.DiscordGuildID, APIURL: cfg.DiscordAPIURL, Log: app.Log,
		HTTPClient: app.Metrics.HTTPClient("discord", &http.Client{Timeout: 20 * time.Second}), Ingest: chats,
		// A private answer is shared from the answers the feedback store
		// keeps, as Slack's /ask is.
		Answers: app.Feedback, Liked: app.Feedback, Channels: app.Channels, SettingsAdmin: app.settingsAdmin("discord"),
		Experts: app.experts()}, s.d)
	if err != nil {
		return err
	}
	if err := da.RegisterCommands(ctx); err != nil {
		return connectError("Discord", cfg.DiscordAPIURL, "DISCORD_BOT_TOKEN and DISCORD_APP_ID", fmt.Errorf("discord: register /ask: %w", err), false)
	}
	s.d.Resume("discord", da.Resume)
	if cfg.DiscordMode == discord.ModeGateway {
		s.runners = append(s.runners, da.RunGateway)
	} else {
		s.mux.Handle("/discord/", da.Handler())
	}
	app.Log.Info("discord: /ask registered", "mode", cfg.DiscordMode)
	return nil
}

// connectError words a platform's failure to connect at start. When the
// platform was never reached (no DNS answer, a connection refused or timed
// out, a certificate not trusted) the network is the problem, and the
// token is not named as a suspect; when it answered with a failure that
// may pass (temporary: a 5xx, a rate limit), it is the platform's; else
// it refused what it was given, and the settings are to check.
func connectError(platform, apiURL, settings string, err error, temporary bool) error {
	switch {
	case unreachable(err):
		return fmt.Errorf("cannot reach %s at %s, a network problem (DNS, a firewall or a proxy: HTTPS_PROXY), not %s: %w", platform, apiURL, settings, err)
	case temporary:
		return fmt.Errorf("%s is failing for now, not %s: %w; try again later", platform, settings, err)
	}
	return fmt.Errorf("%s refused to connect: %w (check %s)", platform, err, settings)
}

// unreachable reports whether err says the server was never reached.
func unreachable(err error) bool {
	var dns *net.DNSError
	var op *net.OpError
	var cert *tls.CertificateVerificationError
	var timeout net.Error
	return errors.As(err, &dns) || (errors.As(err, &op) && op.Op == "dial") || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.As(err, &cert) || (errors.As(err, &timeout) && timeout.Timeout())
}

// listen serves HTTP on ln from now on: the health checks at once, the
// platforms' webhooks once they are connected.
func (s *server) listen(ln net.Listener) {
	s.srv = &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	s.httpErr = make(chan error, 1)
	s.served.Go(func() {
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.httpErr <- fmt.Errorf("http: %w", err)
		}
	})
}

// closeHTTP stops the HTTP server when serve gives up before running.
func (s *server) closeHTTP() {
	_ = s.srv.Close()
	s.served.Wait()
}

// run serves the runners beside HTTP until ctx ends or one of them fails,
// then drains: it returns that failure, if any.
func (s *server) run(ctx context.Context) error {
	errs := make(chan error, len(s.runners))
	runCtx, stopRunners := context.WithCancel(ctx)
	defer stopRunners()
	var runnersDone sync.WaitGroup
	for _, run := range s.runners {
		runnersDone.Go(func() {
			if err := run(runCtx); err != nil && runCtx.Err() == nil {
				errs <- err
			}
		})
	}

	var failure error
	select {
	case <-ctx.Done():
		s.app.Log.Info("stopping: no new questions; finishing the ones in flight")
	case failure = <-errs:
		s.app.Log.Error("a connection failed; stopping", "err", failure)
	case failure = <-s.httpErr:
		s.app.Log.Error("the HTTP server failed; stopping", "err", failure)
	}
	s.stopping.Store(true)
	stopRunners()
	grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.app.Config.ShutdownTimeout)
	defer cancel()
	_ = s.srv.Shutdown(grace)
	runnersDone.Wait() // no delivery arrives after this
	s.drain(ctx, grace)
	s.served.Wait()
	return failure
}

// drain finishes the answers in flight within the grace period, then
// gives the ones Slack did not take yet a last chance to go out.
func (s *server) drain(ctx, grace context.Context) {
	if s.slack != nil {
		s.slack.Wait() // deliveries already acknowledged reach the dispatcher
	}
	if err := s.d.Shutdown(grace); err != nil {
		s.app.Log.Error("answers still running at the end of the grace period were abandoned", "err", err)
		// Cancel them, and let the workers post their final messages
		// (bounded by the dispatcher's own 30 s limit per message) before
		// the stores close under them.
		s.abandon()
		last, cancelLast := context.WithTimeout(context.WithoutCancel(ctx), 35*time.Second)
		defer cancelLast()
		_ = s.d.Shutdown(last)
	}
	s.abandon()
	if s.slack != nil {
		// Answers Slack did not take yet get what is left of the grace
		// period, and at least a few seconds, to go out.
		octx, cancelOut := context.WithTimeout(context.WithoutCancel(ctx), max(time.Until(deadline(grace)), 5*time.Second))
		defer cancelOut()
		if err := s.slack.Close(octx); err != nil {
			s.app.Log.Error("answers Slack did not take were given up at shutdown", "err", err)
		}
	}
}

// deadline is ctx's deadline, or now when it has none.
func deadline(ctx context.Context) time.Time {
	if dl, ok := ctx.Deadline(); ok {
		return dl
	}
	return time.Now()
}

// settingsAdmin says who SETTINGS_ADMINS lets change channels' settings on
// platform, besides those the platform names.
func (app *App) settingsAdmin(platform string) func(user string) bool {
	admins, _ := chat.ParseAdmins(app.Config.SettingsAdmins) // checked by LoadConfig; a bad list admits no one
	return func(user string) bool { return admins.Allowed(platform, user) }
}
