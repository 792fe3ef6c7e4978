package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/discord"
	"github.com/switchboard/switchboard/bot/slack"
)

// serve answers questions from Slack and Discord until SIGTERM/SIGINT.
// One HTTP server carries the webhooks of both platforms and the health
// checks; Socket Mode and the Discord gateway run beside it.
func (m *Main) serve(ctx context.Context, app *App, args []string) error {
	if len(args) > 0 {
		fmt.Fprintln(m.Stderr, "Usage: bot serve")
		return errUsage
	}
	cfg := app.Config
	slackOn, discordOn := cfg.SlackConfigured(), cfg.DiscordMode != ""
	if !slackOn && !discordOn {
		return &configError{"SLACK_BOT_TOKEN / DISCORD_MODE", "nothing to serve: set SLACK_BOT_TOKEN with SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (Events API), and/or DISCORD_MODE=gateway|http with its DISCORD_* settings"}
	}

	// Answers in flight must outlive the signal: the dispatcher gets its
	// own context, cancelled only after the graceful drain below.
	work, abandon := context.WithCancel(context.WithoutCancel(ctx))
	defer abandon()
	askers, budget := askerLimits(cfg)
	d := bot.NewDispatcher(bot.Config{
		Agent: app.Agent, Workers: cfg.Workers, Queue: cfg.QueueSize, Interval: cfg.EditInterval,
		Timeout: cfg.AnswerTimeout, Dedupe: app.Dedupe, Feedback: app.Feedback, Log: app.Log,
		Limiter: askers, Budget: budget, Observer: app.Metrics,
	})
	d.Start(work)
	app.Metrics.QueueDepth(d.Queued)

	var stopping atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.Handle("GET /metrics", app.Metrics.Handler())
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if stopping.Load() {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		if err := app.Ready(r.Context()); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})

	var runners []func(context.Context) error
	var sa *slack.Adapter
	if slackOn {
		var err error
		sa, err = slack.New(slack.Config{BotToken: cfg.SlackBotToken, AppToken: cfg.SlackAppToken, SigningSecret: cfg.SlackSigningSecret, APIURL: cfg.SlackAPIURL, Log: app.Log,
			HTTPClient: app.Metrics.HTTPClient("slack", &http.Client{Timeout: 30 * time.Second}), Ingest: app.chatService()}, d)
		if err != nil {
			return err
		}
		if err := sa.Init(ctx); err != nil {
			return fmt.Errorf("slack: %w (check SLACK_BOT_TOKEN)", err)
		}
		if cfg.SlackAppToken != "" {
			runners = append(runners, sa.RunSocketMode)
			app.Log.Info("slack: socket mode")
		}
		if cfg.SlackSigningSecret != "" {
			mux.Handle("/slack/", sa.Handler())
			app.Log.Info("slack: events API at /slack/events")
		}
	}
	if discordOn {
		da, err := discord.New(discord.Config{Mode: cfg.DiscordMode, BotToken: cfg.DiscordBotToken, AppID: cfg.DiscordAppID,
			PublicKey: cfg.DiscordPublicKey, GuildID: cfg.DiscordGuildID, APIURL: cfg.DiscordAPIURL, Log: app.Log,
			HTTPClient: app.Metrics.HTTPClient("discord", &http.Client{Timeout: 20 * time.Second}), Ingest: app.chatService()}, d)
		if err != nil {
			return err
		}
		if err := da.RegisterCommands(ctx); err != nil {
			return fmt.Errorf("discord: register /ask: %w", err)
		}
		if cfg.DiscordMode == discord.ModeGateway {
			runners = append(runners, da.RunGateway)
		} else {
			mux.Handle("/discord/", da.Handler())
		}
		app.Log.Info("discord: /ask registered", "mode", cfg.DiscordMode)
	}

	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return &configError{"HTTP_ADDR", err.Error()}
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	app.Log.Info("serving", "addr", ln.Addr().String())
	if m.listening != nil {
		m.listening(ln.Addr().String())
	}

	errs := make(chan error, len(runners)+1)
	runCtx, stopRunners := context.WithCancel(ctx)
	defer stopRunners()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errs <- fmt.Errorf("http: %w", err)
		}
	}()
	var runnersDone sync.WaitGroup // Socket Mode and the gateway
	for _, run := range runners {
		runnersDone.Add(1)
		go func() {
			defer runnersDone.Done()
			if err := run(runCtx); err != nil && runCtx.Err() == nil {
				errs <- err
			}
		}()
	}

	var failure error
	select {
	case <-ctx.Done():
		app.Log.Info("stopping: no new questions; finishing the ones in flight")
	case failure = <-errs:
		app.Log.Error("a connection failed; stopping", "err", failure)
	}
	stopping.Store(true)
	stopRunners()
	grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	_ = srv.Shutdown(grace)
	runnersDone.Wait() // no delivery arrives after this
	if sa != nil {
		sa.Wait() // deliveries already acknowledged reach the dispatcher
	}
	if err := d.Shutdown(grace); err != nil {
		app.Log.Error("answers still running at the end of the grace period were abandoned", "err", err)
		// Cancel them, and let the workers post their final messages
		// (bounded by the dispatcher's own 30 s limit per message) before
		// the stores close under them.
		abandon()
		last, cancelLast := context.WithTimeout(context.WithoutCancel(ctx), 35*time.Second)
		defer cancelLast()
		_ = d.Shutdown(last)
	}
	abandon()
	if sa != nil {
		// Answers Slack did not take yet get what is left of the grace
		// period, and at least a few seconds, to go out.
		octx, cancelOut := context.WithTimeout(context.WithoutCancel(ctx), max(time.Until(deadline(grace)), 5*time.Second))
		defer cancelOut()
		if err := sa.Close(octx); err != nil {
			app.Log.Error("answers Slack did not take were given up at shutdown", "err", err)
		}
	}
	wg.Wait()
	return failure
}

// deadline is ctx's deadline, or now when it has none.
func deadline(ctx context.Context) time.Time {
	if dl, ok := ctx.Deadline(); ok {
		return dl
	}
	return time.Now()
}
