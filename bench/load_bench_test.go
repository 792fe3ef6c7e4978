package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/discord"
	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/bot/slack"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
)

// loadTimeout bounds a burst; the full one takes about half a minute.
const loadTimeout = 5 * time.Minute

// loadQuestion is the question number i of a burst: the ordinary
// scenarios in turn, so that every route is in the mix.
func loadQuestion(i int) string { return scenarios[i%4].question }

// newDispatcher is the dispatcher of `switchboard serve` with the default settings,
// except a queue that holds the whole burst: the point is to see every
// question answered, not the queue refusing some (with the default queue
// of 100, the rest of a 200-question burst is told to retry).
func newDispatcher(tb testing.TB, p params, log *slog.Logger) (*bot.Dispatcher, Load) {
	kb := newDemoKB(tb)
	a := newAgent(tb, kb, startModel(tb, p.delay), nil, variant{})
	d := bot.NewDispatcher(bot.Config{Agent: a, Workers: p.workers, Queue: p.load, Interval: time.Second, Timeout: 3 * time.Minute, Log: log})
	ctx, cancel := context.WithCancel(context.Background())
	d.Start(ctx)
	tb.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), time.Minute)
		defer scancel()
		if err := d.Shutdown(sctx); err != nil {
			tb.Errorf("dispatcher shutdown: %v", err)
		}
		cancel()
	})
	return d, Load{Questions: p.load, Workers: p.workers, Queue: p.load, ModelDelayMS: ms(p.delay)}
}

// sampler records the peak heap and goroutine count while a burst runs.
type sampler struct {
	stop chan struct{}
	done chan struct{}
	heap uint64
	gors int
}

// startSampler samples every 20 ms until stopped. It reads the base
// figures first, after a collection, so that they are comparable.
func startSampler(l *Load) *sampler {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	l.BaseHeapMiB, l.BaseGoroutines = mib(m.HeapAlloc), runtime.NumGoroutine()
	s := &sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			s.heap, s.gors = max(s.heap, m.HeapAlloc), max(s.gors, runtime.NumGoroutine())
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// finish stops the sampler and stores its peaks in l.
func (s *sampler) finish(l *Load) {
	close(s.stop)
	<-s.done
	l.PeakHeapMiB, l.PeakGoroutines = mib(s.heap), s.gors
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// fill computes the latency figures of l.
func fill(l *Load, first, answer []time.Duration, total time.Duration) {
	l.FirstReplyP50MS, l.FirstReplyP99MS = ms(pct(first, 0.50)), ms(pct(first, 0.99))
	l.AnswerP50MS, l.AnswerP99MS = ms(pct(answer, 0.50)), ms(pct(answer, 0.99))
	l.TotalS = total.Seconds()
}

// waitFor polls cond every 20 ms until it holds or the burst times out.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(loadTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s", loadTimeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// feedbackButton is in the blocks of a finished Slack answer only.
var feedbackButton = []byte(`"` + slack.ActionFeedbackUp + `"`)

// loadSlack sends p.load mentions at once to the Events API endpoint of
// the real Slack adapter, each in a thread of its own, and watches the
// fake Slack until every thread has its answer.
func loadSlack(tb testing.TB, p params) Load {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	fake := slacktest.NewServer()
	tb.Cleanup(fake.Close)
	d, l := newDispatcher(tb, p, log)
	l.Platform = "slack (Events API)"
	a, err := slack.New(slack.Config{BotToken: fake.BotToken, SigningSecret: fake.SigningSecret, APIURL: fake.APIURL(), Log: log}, d)
	if err != nil {
		tb.Fatal(err)
	}
	if err := a.Init(context.Background()); err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	tb.Cleanup(func() { srv.Close(); a.Wait() })

	events := make([]slacktest.MessageEvent, p.load)
	for i := range events {
		events[i] = fake.Mention("C0LOAD", fmt.Sprintf("U%04d", i), loadQuestion(i))
	}
	// Written by the senders while the watcher below reads them.
	sent := make([]atomic.Int64, p.load)
	var refused atomic.Int32
	s := startSampler(&l)
	start := time.Now()
	var wg sync.WaitGroup
	for i, ev := range events {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fake.EventCallback("", ev)
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/slack/events", bytes.NewReader(body))
			if err != nil {
				refused.Add(1)
				return
			}
			now := time.Now()
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Slack-Request-Timestamp", fmt.Sprint(now.Unix()))
			req.Header.Set("X-Slack-Signature", slacktest.Sign(fake.SigningSecret, now, body))
			sent[i].Store(now.UnixNano())
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				refused.Add(1)
			}
			if resp != nil {
				resp.Body.Close()
			}
		}()
	}

	// The placeholder is the first message in the thread; the answer is the
	// message with the feedback buttons.
	index := map[string]int{}
	for i, ev := range events {
		index[ev.TS] = i
	}
	first := map[string]time.Duration{}
	answered := map[string]time.Duration{}
	var twice int
	waitFor(tb, "every Slack thread's answer", func() bool {
		now := time.Now()
		perThread := map[string]int{}
		for _, m := range fake.AllMessages() {
			i, ok := index[m.ThreadTS]
			if !ok {
				continue
			}
			perThread[m.ThreadTS]++
			at := time.Unix(0, sent[i].Load())
			if _, seen := first[m.ThreadTS]; !seen {
				first[m.ThreadTS] = now.Sub(at)
			}
			// The raw blocks are searched rather than decoded: the watcher
			// must not take the CPU the bot is being measured on.
			if _, seen := answered[m.ThreadTS]; !seen && bytes.Contains(m.Blocks, feedbackButton) {
				answered[m.ThreadTS] = now.Sub(at)
			}
		}
		twice = 0
		for _, n := range perThread {
			if n > 1 {
				twice++
			}
		}
		return len(answered)+int(refused.Load()) >= p.load
	})
	total := time.Since(start)
	wg.Wait()
	s.finish(&l)
	l.Answered, l.AnsweredTwice, l.Refused = len(answered), twice, int(refused.Load())
	fill(&l, values(first), values(answered), total)
	return l
}

// loadDiscord delivers p.load /ask interactions at once to the real
// Discord adapter's HTTP endpoint, each in a channel of its own. Discord
// shows "thinking…" as soon as the endpoint answers, so that is the first
// visible reply; the answer is the original response edited to carry the
// feedback buttons.
func loadDiscord(tb testing.TB, p params) Load {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	fake := discordtest.New(tb)
	d, l := newDispatcher(tb, p, log)
	l.Platform = "discord (HTTP interactions)"
	a, err := discord.New(discord.Config{Mode: discord.ModeHTTP, BotToken: fake.Token, AppID: fake.AppID,
		PublicKey: fake.PublicKey(), APIURL: fake.APIURL, Log: log}, d)
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	tb.Cleanup(srv.Close)
	url := srv.URL + "/discord/interactions"

	asks := make([]*discordtest.Interaction, p.load)
	for i := range asks {
		asks[i] = fake.Ask("900000000000000001", fmt.Sprintf("%d", 910000000000000000+i), fmt.Sprintf("%d", 920000000000000000+i), loadQuestion(i))
	}
	sent := make([]time.Time, p.load)
	first := make([]time.Duration, p.load)
	var refused atomic.Int32
	s := startSampler(&l)
	start := time.Now()
	var wg sync.WaitGroup
	for i, ia := range asks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent[i] = time.Now()
			resp, err := fake.Deliver(url, ia)
			first[i] = time.Since(sent[i])
			if err != nil || resp.Status != http.StatusOK {
				refused.Add(1)
			}
		}()
	}
	wg.Wait() // every "thinking…" is shown before any answer is looked for

	answered := map[int]time.Duration{}
	waitFor(tb, "every Discord answer", func() bool {
		now := time.Now()
		for i, ia := range asks {
			if _, seen := answered[i]; seen {
				continue
			}
			if m, ok := fake.Original(ia.Token); ok && len(m.Buttons()) > 0 {
				answered[i] = now.Sub(sent[i])
			}
		}
		return len(answered)+int(refused.Load()) >= p.load
	})
	total := time.Since(start)
	s.finish(&l)
	twice := 0
	for _, ia := range asks {
		if len(fake.Callbacks(ia.Token)) > 1 || len(fake.Followups(ia.Token)) > 0 {
			twice++
		}
	}
	var answers []time.Duration
	for _, a := range answered {
		answers = append(answers, a)
	}
	l.Answered, l.AnsweredTwice, l.Refused = len(answered), twice, int(refused.Load())
	fill(&l, first, answers, total)
	return l
}

func values(m map[string]time.Duration) []time.Duration {
	out := make([]time.Duration, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// BenchmarkLoad: see the package documentation, item 3.
func BenchmarkLoad(b *testing.B) {
	p := paramsFor(testing.Short())
	for b.Loop() {
		rows := []Load{loadSlack(b, p), loadDiscord(b, p)}
		collect(func(r *Report) { r.Load = rows })
		for _, l := range rows {
			name := strings.Fields(l.Platform)[0]
			b.ReportMetric(l.FirstReplyP99MS, "first-reply-p99-ms-"+name)
			b.ReportMetric(l.AnswerP99MS, "answer-p99-ms-"+name)
			b.ReportMetric(l.PeakHeapMiB, "peak-heap-MiB-"+name)
		}
	}
}
