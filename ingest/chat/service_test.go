package chat_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/internal/panics"
)

// svcNow is the time of the Service tests.
var svcNow = time.Date(2024, 5, 10, 12, 0, 0, 0, time.UTC)

// threeDays is #general of workspace T1 with one message on each of the
// three days before svcNow.
func threeDays() *memSource {
	src := &memSource{ch: chat.Channel{Platform: "slack", Workspace: "T1", ID: "C1", Name: "general",
		Created: svcNow.Add(-30 * 24 * time.Hour)}}
	for i := 1; i <= 3; i++ { // oldest first
		at := svcNow.Add(-time.Duration(4-i) * 24 * time.Hour)
		src.msgs = append(src.msgs, chat.Message{ID: fmt.Sprint(i), Author: "ann", Text: fmt.Sprintf("note number %d", i),
			Time: at, Permalink: fmt.Sprintf("https://x/p%d", i)})
	}
	return src
}

// hookSource is a memSource whose Channel is a test's.
type hookSource struct {
	*memSource
	channel func(ctx context.Context, id string) (chat.Channel, error)
}

func (s hookSource) Channel(ctx context.Context, id string) (chat.Channel, error) {
	return s.channel(ctx, id)
}

func ingesterOn(b *backend, src chat.Source) *chat.Ingester {
	return &chat.Ingester{Source: src, Pipeline: &ingest.Pipeline{Store: b.docs, Embedder: &hashEmbedder{}},
		Store: b.docs, Cursors: b.cursors, Now: func() time.Time { return svcNow }}
}

// statusLog is a chat.Status that keeps what it showed. done is closed at
// a run's last words: the first text that is not progress.
type statusLog struct {
	mu    sync.Mutex
	texts []string
	dead  int // texts shown with a context that had ended
	done  chan struct{}
}

func newStatusLog() *statusLog { return &statusLog{done: make(chan struct{})} }

func (s *statusLog) Show(ctx context.Context, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.texts = append(s.texts, text)
	if ctx.Err() != nil {
		s.dead++
	}
	if !strings.HasPrefix(text, "⏳") {
		close(s.done)
	}
	return nil
}

// wait returns what was shown once the run has said its last words.
func (s *statusLog) wait(t *testing.T) []string {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the run never ended; it showed %q", s.shown())
	}
	return s.shown()
}

func (s *statusLog) shown() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.texts)
}

var admin = chat.Request{Platform: "slack", Workspace: "T1", Channel: "C1", User: "UADMIN"}

func admins(t *testing.T) chat.Admins {
	a, err := chat.ParseAdmins("slack:UADMIN, discord:999")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAdmins(t *testing.T) {
	a, err := chat.ParseAdmins(" slack:U1, discord:42 ,U9,")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		platform, user string
		want           bool
	}{
		{"slack", "U1", true}, {"discord", "U1", false}, {"discord", "42", true}, {"slack", "42", false},
		{"slack", "U9", true}, {"discord", "U9", true}, {"slack", "", false}, {"slack", "U2", false},
	} {
		if got := a.Allowed(c.platform, c.user); got != c.want {
			t.Errorf("%s:%s allowed = %v", c.platform, c.user, got)
		}
	}
	for _, bad := range []string{"teams:U1", "slack:", "U1, discord:"} {
		if a, err := chat.ParseAdmins(bad); err == nil || a.Allowed("slack", "U1") {
			t.Errorf("%q: %v, %v; want an error and no admins", bad, a, err)
		}
	}
}

// An admin's ingest runs in the background: it says it started, shows its
// progress at most every Every, and ends with the summary.
func TestServiceIngestsAChannel(t *testing.T) {
	for _, c := range []struct {
		name      string
		clock     func() func() time.Time
		progress  func(n int) bool
		wantShown string
	}{
		{"fixed clock: one progress line", func() func() time.Time { return func() time.Time { return svcNow } },
			func(n int) bool { return n == 1 }, "1"},
		{"every call a period later: every progress line", func() func() time.Time {
			var n atomic.Int64
			return func() time.Time { return svcNow.Add(time.Duration(n.Add(1)) * time.Second) }
		}, func(n int) bool { return n > 1 }, "more than 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := sqliteBackend(t)
			var made atomic.Int64
			s := chat.NewService(context.Background(), chat.ServiceConfig{
				Ingester: func(platform string) (*chat.Ingester, error) {
					made.Add(1)
					return ingesterOn(b, threeDays()), nil
				},
				Admins: admins(t), Every: time.Second, Now: c.clock(),
			})
			defer s.Close()
			st := newStatusLog()
			if err := s.Ingest(context.Background(), admin, st); err != nil {
				t.Fatal(err)
			}
			texts := st.wait(t)
			if texts[0] != "⏳ Ingesting this channel…" {
				t.Errorf("first status %q", texts[0])
			}
			progress := 0
			for _, text := range texts[1 : len(texts)-1] {
				if strings.HasPrefix(text, "⏳ Ingesting #general: ") {
					progress++
				}
			}
			if !c.progress(progress) {
				t.Errorf("%d progress lines, want %s:\n%s", progress, c.wantShown, strings.Join(texts, "\n"))
			}
			last := texts[len(texts)-1]
			for _, want := range []string{"✅ Ingested #general: 3 messages", "3 added", "chunk", "entities", "relations", "From now on"} {
				if !strings.Contains(last, want) {
					t.Errorf("summary lacks %q:\n%s", want, last)
				}
			}
			if made.Load() != 1 {
				t.Errorf("%d ingesters made", made.Load())
			}
		})
	}
}

// Only admins ingest; the others are refused before anything is made or
// shown.
func TestServiceRefusesOthers(t *testing.T) {
	s := chat.NewService(context.Background(), chat.ServiceConfig{
		Ingester: func(string) (*chat.Ingester, error) {
			t.Error("an ingester was made for someone who is not an admin")
			return nil, errors.New("no")
		},
		Admins: admins(t),
	})
	defer s.Close()
	for _, req := range []chat.Request{
		{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U1"},
		{Platform: "slack", Workspace: "T1", Channel: "C1", User: "999"}, // a Discord admin
		{Platform: "slack", Workspace: "T1", Channel: "C1"},
	} {
		st := newStatusLog()
		if err := s.Ingest(context.Background(), req, st); !errors.Is(err, chat.ErrNotAdmin) {
			t.Errorf("%+v: %v, want ErrNotAdmin", req, err)
		}
		if len(st.shown()) > 0 {
			t.Errorf("%+v: showed %q", req, st.shown())
		}
	}
}

// A channel is ingested once at a time, and the runs end when the
// Service's context does or at Close, which waits for their last words.
func TestServiceStops(t *testing.T) {
	for _, c := range []struct {
		name string
		stop func(cancel context.CancelFunc, s *chat.Service, st *statusLog, t *testing.T)
	}{
		{"its context ends", func(cancel context.CancelFunc, _ *chat.Service, st *statusLog, t *testing.T) {
			cancel()
			st.wait(t)
		}},
		{"Close", func(_ context.CancelFunc, s *chat.Service, _ *statusLog, _ *testing.T) { s.Close() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := sqliteBackend(t)
			started := make(chan struct{}, 1)
			src := hookSource{memSource: threeDays(), channel: func(ctx context.Context, _ string) (chat.Channel, error) {
				started <- struct{}{}
				<-ctx.Done() // a slow platform
				return chat.Channel{}, ctx.Err()
			}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := chat.NewService(ctx, chat.ServiceConfig{
				Ingester: func(string) (*chat.Ingester, error) { return ingesterOn(b, src), nil },
				Admins:   admins(t),
			})
			defer s.Close()
			st := newStatusLog()
			if err := s.Ingest(context.Background(), admin, st); err != nil {
				t.Fatal(err)
			}
			<-started
			if err := s.Ingest(context.Background(), admin, newStatusLog()); !errors.Is(err, chat.ErrIngestRunning) {
				t.Errorf("a second run of the channel: %v, want ErrIngestRunning", err)
			}

			c.stop(cancel, s, st, t)
			texts := st.shown()
			if last := texts[len(texts)-1]; !strings.HasPrefix(last, "⏸ Ingesting stopped because I was restarted.") ||
				!strings.Contains(last, "ask again to go on from there") {
				t.Errorf("last status %q", last)
			}
			if st.dead > 0 {
				t.Errorf("%d statuses were shown with a context that had ended", st.dead)
			}
			if err := s.Ingest(context.Background(), admin, newStatusLog()); !errors.Is(err, chat.ErrClosed) {
				t.Errorf("an ingest after the stop: %v, want ErrClosed", err)
			}
		})
	}
}

// A run that fails, or panics, ends with a message saying why; the
// process carries on.
func TestServiceReportsFailures(t *testing.T) {
	for _, c := range []struct {
		name    string
		channel func(context.Context, string) (chat.Channel, error)
		want    string
	}{
		{"error", func(context.Context, string) (chat.Channel, error) { return chat.Channel{}, errors.New("boom") },
			"⚠️ Ingesting stopped: chat: channel C1: boom\n"},
		{"panic", func(context.Context, string) (chat.Channel, error) { panic("odd history") },
			"⚠️ Ingesting stopped: channel ingest: internal error\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := sqliteBackend(t)
			s := chat.NewService(context.Background(), chat.ServiceConfig{
				Ingester: func(string) (*chat.Ingester, error) {
					return ingesterOn(b, hookSource{memSource: threeDays(), channel: c.channel}), nil
				},
				Admins: admins(t),
			})
			defer s.Close()
			st := newStatusLog()
			if err := s.Ingest(context.Background(), admin, st); err != nil {
				t.Fatal(err)
			}
			texts := st.wait(t)
			if last := texts[len(texts)-1]; !strings.HasPrefix(last, c.want) || !strings.HasSuffix(last, "ask again to go on from there.") {
				t.Errorf("last status %q, want it to start with %q", last, c.want)
			}
		})
	}
}

// An Ingester that cannot be made is the caller's error, and made again
// next time.
func TestServiceIngesterErrors(t *testing.T) {
	b := sqliteBackend(t)
	fail := errors.New("no token")
	calls := 0
	s := chat.NewService(context.Background(), chat.ServiceConfig{
		Ingester: func(string) (*chat.Ingester, error) {
			calls++
			if calls == 1 {
				return nil, fail
			}
			return ingesterOn(b, threeDays()), nil
		},
		Admins: admins(t),
	})
	defer s.Close()
	if err := s.Ingest(context.Background(), admin, newStatusLog()); !errors.Is(err, fail) {
		t.Fatalf("%v, want the ingester's error", err)
	}
	st := newStatusLog()
	if err := s.Ingest(context.Background(), admin, st); err != nil {
		t.Fatal(err)
	}
	if texts := st.wait(t); !strings.HasPrefix(texts[len(texts)-1], "✅") {
		t.Errorf("%q", texts)
	}
}

// Live updates reach ingested channels; a Slack channel that was never
// ingested is passed over without asking Slack, and a panic is the
// update's error.
func TestServiceApply(t *testing.T) {
	ctx := context.Background()
	b := sqliteBackend(t)
	var asked atomic.Int64
	src := threeDays()
	slackIn := ingesterOn(b, hookSource{memSource: src, channel: func(ctx context.Context, id string) (chat.Channel, error) {
		asked.Add(1)
		return src.Channel(ctx, id)
	}})
	discordIn := ingesterOn(b, hookSource{memSource: threeDays(), channel: func(context.Context, string) (chat.Channel, error) {
		panic("odd event")
	}})
	s := chat.NewService(ctx, chat.ServiceConfig{
		Ingester: func(platform string) (*chat.Ingester, error) {
			if platform == "discord" {
				return discordIn, nil
			}
			return slackIn, nil
		},
	})
	defer s.Close()

	if err := s.Apply(ctx, "slack", "T1", chat.Change{Channel: "C9", Message: "1", Time: svcNow}); err != nil || asked.Load() != 0 {
		t.Errorf("a change in a channel never ingested: %v, Slack asked %d times", err, asked.Load())
	}

	if _, err := slackIn.Ingest(ctx, "C1", chat.Options{}); err != nil {
		t.Fatal(err)
	}
	at := svcNow.Add(-time.Hour)
	src.msgs = append(src.msgs, chat.Message{ID: "4", Author: "bob", Text: "the launch moved to Friday", Time: at, Permalink: "https://x/p4"})
	if err := s.Apply(ctx, "slack", "T1", chat.Change{Channel: "C1", Message: "4", Time: at}); err != nil {
		t.Fatal(err)
	}
	chunks, _ := b.chunks(t)
	if got := occurrences(chunks, []string{"the launch moved to Friday"}); got["the launch moved to Friday"] != 1 {
		t.Errorf("the new message is stored %d times", got["the launch moved to Friday"])
	}

	var pe *panics.Error
	if err := s.Apply(ctx, "discord", "G1", chat.Change{Channel: "C1", Message: "5", Time: at}); !errors.As(err, &pe) {
		t.Errorf("a panicking update: %v, want a *panics.Error", err)
	}
}

// fileSource is a memSource whose files hold data.
type fileSource struct {
	*memSource
	data []byte
}

func (s fileSource) Download(context.Context, chat.File, int64) ([]byte, error) { return s.data, nil }

// A file attached to a message posted in an ingested channel that cannot
// be indexed (here: more text than a file may give) is named in the log
// with the reason: a live update has no one else to tell, and before
// nothing was said.
func TestServiceApplyLogsFilesNotIndexed(t *testing.T) {
	ctx := context.Background()
	b := sqliteBackend(t)
	src := threeDays()
	in := ingesterOn(b, fileSource{memSource: src, data: bytes.Repeat([]byte("Acme Corp supplies Globex.\n"), ingest.MaxFileText/27+1)})
	var logged bytes.Buffer
	s := chat.NewService(ctx, chat.ServiceConfig{
		Ingester: func(string) (*chat.Ingester, error) { return in, nil },
		Log:      slog.New(slog.NewTextHandler(&logged, nil)),
	})
	defer s.Close()
	if _, err := in.Ingest(ctx, "C1", chat.Options{}); err != nil {
		t.Fatal(err)
	}
	at := svcNow.Add(-time.Hour)
	src.msgs = append(src.msgs, chat.Message{ID: "4", Author: "bob", Text: "the supplier list", Time: at, Permalink: "https://x/p4",
		Files: []chat.File{{ID: "F1", Name: "suppliers.txt", MIME: "text/plain", URL: "https://x/f1"}}})
	if err := s.Apply(ctx, "slack", "T1", chat.Change{Channel: "C1", Message: "4", Time: at}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"level=WARN", "suppliers.txt (in https://x/p4): more than 4 MB of text (the limit is 4 MB)"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logged.String())
		}
	}
	chunks, _ := b.chunks(t)
	for key := range chunks {
		if strings.Contains(key, "F1") {
			t.Errorf("the file was stored (%s)", key)
		}
	}
}
