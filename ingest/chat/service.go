package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/switchboard/switchboard/internal/panics"
)

// Service is chat ingestion in a bot that is serving: it runs the ingests
// that admins ask for in chat in the background, with their progress
// shown where they were asked for, and applies the live updates of the
// channels that were ingested. It owns the goroutines of the runs: they
// end when the context given to NewService ends or Close is called, and
// Close waits for them.
//
// It knows nothing of the chat adapters: cmd/bot translates package bot's
// ChannelIngester into these calls.
type Service struct {
	cfg ServiceConfig

	ctx    context.Context // the parent of the runs
	cancel context.CancelFunc
	wg     sync.WaitGroup // the runs

	mu        sync.Mutex
	ingesters map[string]*Ingester // by platform, made on first use
	running   map[string]bool      // platform/workspace/channel of the runs in progress
}

// ServiceConfig is what a Service needs.
type ServiceConfig struct {
	// Ingester returns a platform's Ingester ("slack", "discord"). The
	// Service calls it once per platform, on first use; after an error it
	// calls it again next time. Required.
	Ingester func(platform string) (*Ingester, error)
	// Admins may start ingests; nobody else can.
	Admins Admins
	// Every is the least time between two progress edits of a status, so
	// that a long run does not hit the platform's rate limits; zero means
	// DefaultProgressEvery.
	Every time.Duration
	// Now returns the time; nil means time.Now.
	Now func() time.Time
	// Log hears about runs and failures; nil discards.
	Log *slog.Logger
}

// DefaultProgressEvery is ServiceConfig.Every's default.
const DefaultProgressEvery = 2 * time.Second

// showTimeout bounds one status update, which runs even after the Service
// was stopped: the last words of a run must still go out.
const showTimeout = 30 * time.Second

// Request is an ingest asked for in chat: who asked, in which channel.
type Request struct {
	Platform  string // "slack", "discord"
	Workspace string
	Channel   string
	User      string
	Since     time.Time // the oldest day to read; zero for the whole history
}

// Status shows a run's progress where it was asked for.
type Status interface {
	// Show replaces what the status shows with text; the first call posts
	// it.
	Show(ctx context.Context, text string) error
}

// Errors of Service.Ingest.
var (
	ErrNotAdmin      = errors.New("chat: not an ingest admin")
	ErrIngestRunning = errors.New("chat: the channel is being ingested already")
	ErrClosed        = errors.New("chat: the ingest service is shutting down")
)

// NewService returns a Service whose runs live under ctx.
func NewService(ctx context.Context, cfg ServiceConfig) *Service {
	if cfg.Every <= 0 {
		cfg.Every = DefaultProgressEvery
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	return &Service{cfg: cfg, ctx: ctx, cancel: cancel, ingesters: map[string]*Ingester{}, running: map[string]bool{}}
}

// Close stops the runs in progress and waits for them to end, their last
// status shown. What they stored stays: the next run of a channel goes on
// from there.
func (s *Service) Close() {
	s.cancel()
	s.wg.Wait()
}

// ingester returns the Ingester of platform, made on first use.
func (s *Service) ingester(platform string) (*Ingester, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in := s.ingesters[platform]; in != nil {
		return in, nil
	}
	in, err := s.cfg.Ingester(platform)
	if err != nil {
		return nil, err
	}
	s.ingesters[platform] = in
	return in, nil
}

// Ingest starts ingesting req's channel and returns at once; the run's
// progress and its summary are shown through status, from another
// goroutine. It returns ErrNotAdmin when req.User may not ingest,
// ErrIngestRunning when the channel is being ingested, and ErrClosed once
// the Service is stopping. The run does not end with ctx, which is the
// request's: only with the Service.
func (s *Service) Ingest(ctx context.Context, req Request, status Status) error {
	if !s.cfg.Admins.Allowed(req.Platform, req.User) {
		return ErrNotAdmin
	}
	in, err := s.ingester(req.Platform)
	if err != nil {
		return err
	}
	key := req.Platform + "/" + req.Workspace + "/" + req.Channel
	s.mu.Lock()
	if s.ctx.Err() != nil {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.running[key] {
		s.mu.Unlock()
		return ErrIngestRunning
	}
	s.running[key] = true
	s.wg.Add(1) // under mu, after the check: Close cannot miss it
	s.mu.Unlock()
	s.cfg.Log.Info("ingesting a channel from chat", "platform", req.Platform, "channel", req.Channel, "by", req.User)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.running, key)
			s.mu.Unlock()
		}()
		s.run(in, req, status)
	}()
	return nil
}

// run is one ingest asked for in chat.
func (s *Service) run(in *Ingester, req Request, status Status) {
	show := func(text string) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), showTimeout)
		defer cancel()
		if err := status.Show(ctx, text); err != nil {
			s.cfg.Log.Warn("could not show an ingest's progress", "channel", req.Channel, "err", err)
		}
	}
	show("⏳ Ingesting this channel…")
	var last time.Time
	var rep Report
	// A panic on one channel's odd history ends this run with a message,
	// not the process with every answer in flight.
	err := panics.Catch(s.cfg.Log, "channel ingest", func() (err error) {
		rep, err = in.Ingest(s.ctx, req.Channel, Options{Since: req.Since, Progress: func(p Progress) {
			now := s.cfg.Now()
			if !last.IsZero() && now.Sub(last) < s.cfg.Every {
				return
			}
			last = now
			show("⏳ " + progressLine(p))
		}})
		return err
	})
	switch {
	case err != nil && s.ctx.Err() != nil:
		show(fmt.Sprintf("⏸ Ingesting stopped because I was restarted. %s\nWhat was read is stored; ask again to go on from there.", rep))
	case err != nil:
		s.cfg.Log.Error("ingest failed", "channel", req.Channel, "err", err)
		show(fmt.Sprintf("⚠️ Ingesting stopped: %v\n%s\nWhat was read is stored; ask again to go on from there.", err, rep))
	default:
		s.cfg.Log.Info("ingested a channel", "platform", req.Platform, "channel", req.Channel, "summary", rep.String())
		show("✅ Ingested " + rep.String() + "\nFrom now on, new, edited and deleted messages here update what I know.")
	}
}

// Apply updates the knowledge base after a message of platform's
// workspace was posted, edited or deleted (Ingester.Apply); changes in
// channels that were never ingested are ignored. It runs on the caller's
// goroutine, within ctx.
func (s *Service) Apply(ctx context.Context, platform, workspace string, c Change) error {
	in, err := s.ingester(platform)
	if err != nil {
		return err
	}
	// Slack channels are never threads: a channel without a cursor was
	// not ingested, which a lookup tells without asking Slack.
	if platform == "slack" && workspace != "" && in.Cursors != nil {
		ch := Channel{Platform: platform, Workspace: workspace, ID: c.Channel}
		if _, ok, err := in.Cursors.Get(ctx, ch.Source(), cursorChannel(ch)); err != nil || !ok {
			return err
		}
	}
	var applied bool
	var rep Report
	err = panics.Catch(s.cfg.Log, "live update", func() (err error) {
		applied, rep, err = in.Apply(ctx, c)
		return err
	})
	if applied && err == nil {
		s.cfg.Log.Debug("applied a message change", "platform", platform, "channel", c.Channel, "message", c.Message,
			"added", rep.Added, "updated", rep.Updated, "deleted", rep.Deleted)
	}
	if applied && (len(rep.Skipped) > 0 || len(rep.Errors) > 0) {
		// Nobody asked for a live update, so its report is read by no one:
		// the files it could not index (too large, too much text, a hostile
		// PDF) are said here, by name and with the reason.
		s.cfg.Log.Warn("files of a message change were not indexed", "platform", platform, "channel", c.Channel,
			"message", c.Message, "skipped", rep.Skipped, "errors", rep.Err())
	}
	return err
}

// progressLine describes a run's progress for people in chat.
func progressLine(p Progress) string {
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

// Admins are the users who may ingest channels from chat (INGEST_ADMINS):
// "slack:U1" and "discord:2" name a user of one platform; a bare id counts
// on either (Slack's and Discord's ids never look alike).
type Admins map[string]bool

// ParseAdmins reads a comma-separated list of admins. An entry with a
// platform other than slack or discord, or without a user, is an error,
// and then the list admits no one.
func ParseAdmins(s string) (Admins, error) {
	a := Admins{}
	for _, id := range strings.Split(s, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if p, user, ok := strings.Cut(id, ":"); ok && (p != "slack" && p != "discord" || user == "") {
			return nil, fmt.Errorf("%q: write slack:U123, discord:123456 or a bare user id", id)
		}
		a[id] = true
	}
	return a, nil
}

// Allowed reports whether user of platform may ingest channels.
func (a Admins) Allowed(platform, user string) bool {
	return user != "" && (a[platform+":"+user] || a[user])
}
