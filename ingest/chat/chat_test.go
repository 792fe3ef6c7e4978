package chat_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/ingest/slackhist"
)

var march = time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)

// A channel of 1,000 messages with 50 threads is ingested completely by
// one run, and a second run adds nothing and embeds nothing.
func TestIngestSlackChannelCompletelyAndOnce(t *testing.T) {
	backends(t, func(t *testing.T, open func(testing.TB) *backend) {
		fake := slacktest.NewServer()
		defer fake.Close()
		g := generate(fake, channelSpec{id: "C1", name: "general", messages: 1000, threads: 50, days: 20, start: march})
		b := open(t)
		emb := &hashEmbedder{}
		in := newIngester(t, fake, b, emb)
		var prog progressLog
		ctx := context.Background()

		rep, err := in.Ingest(ctx, "C1", chat.Options{Progress: prog.add})
		if err != nil {
			t.Fatalf("%v\n%s", err, rep)
		}
		if rep.Messages != 1000 || rep.Threads != 50 || !rep.Complete || rep.Added != rep.Documents() || rep.Err() != nil {
			t.Errorf("first run: %s", rep)
		}
		chunks, scope := b.chunks(t)
		checkEachOnce(t, chunks, g.texts)
		if len(chunks) != rep.Added {
			t.Errorf("%d documents stored, %d reported added", len(chunks), rep.Added)
		}
		for key, s := range scope {
			if s != "C1 private=false" {
				t.Errorf("%s: scope %s", key, s)
			}
		}
		// A thread is one document: its messages in order.
		thread := chunks[chat.ThreadKey(chat.Channel{Platform: "slack", ID: "C1"}, g.threads[3])]
		if len(thread) == 0 || !strings.HasPrefix(thread[0], "Carol: general thread 3 starts") && !strings.Contains(thread[0], "thread 3 starts") {
			t.Errorf("thread 3: %q", thread)
		}
		if strings.Index(strings.Join(thread, "\n"), "reply 1 in thread 3") > strings.Index(strings.Join(thread, "\n"), "reply 2 in thread 3") {
			t.Errorf("thread 3 out of order: %q", thread)
		}
		if n := len(prog.calls); n < 20 || prog.calls[n-1].Messages != 1000 || prog.calls[n-1].Fraction <= 0.5 {
			t.Errorf("progress: %d calls, last %+v", n, prog.calls[max(n-1, 0)])
		}

		before := emb.calls.Load()
		rep, err = in.Ingest(ctx, "C1", chat.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Added != 0 || rep.Updated != 0 || rep.Chunks != 0 || emb.calls.Load() != before || !rep.Complete {
			t.Errorf("second run stored something: %s (%d embed calls)", rep, emb.calls.Load()-before)
		}
		again, _ := b.chunks(t)
		checkEachOnce(t, again, g.texts)
	})
}

// A run cancelled in the middle (as by kill -9: nothing is cleaned up) is
// finished by the next one, which stores what was missing and nothing
// twice.
func TestIngestSlackResumesAnInterruptedRun(t *testing.T) {
	backends(t, func(t *testing.T, open func(testing.TB) *backend) {
		fake := slacktest.NewServer()
		defer fake.Close()
		g := generate(fake, channelSpec{id: "C1", name: "general", messages: 600, threads: 30, days: 12, start: march})
		b := open(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		emb := &hashEmbedder{cancel: cancel, cancelAt: 25}
		rep, err := newIngester(t, fake, b, emb).Ingest(ctx, "C1", chat.Options{})
		if !errors.Is(err, context.Canceled) || rep.Complete {
			t.Fatalf("interrupted run: %v\n%s", err, rep)
		}
		partial, _ := b.chunks(t)
		if n := len(partial); n == 0 || n >= 40 {
			t.Fatalf("the interrupted run stored %d documents; the test wants it stopped midway", n)
		}

		// A new process: a new ingester on the same database.
		b2 := b.reopen(t)
		emb2 := &hashEmbedder{}
		rep, err = newIngester(t, fake, b2, emb2).Ingest(context.Background(), "C1", chat.Options{})
		if err != nil || !rep.Complete {
			t.Fatalf("resumed run: %v\n%s", err, rep)
		}
		chunks, _ := b2.chunks(t)
		checkEachOnce(t, chunks, g.texts)
		if rep.Added+len(partial) < len(chunks) {
			t.Errorf("resumed run added %d documents to %d, now %d", rep.Added, len(partial), len(chunks))
		}
		// And a third run has nothing to do.
		calls := emb2.calls.Load()
		if rep, err := newIngester(t, fake, b2, emb2).Ingest(context.Background(), "C1", chat.Options{}); err != nil || rep.Added+rep.Updated != 0 || emb2.calls.Load() != calls {
			t.Errorf("third run: %v %s", err, rep)
		}
	})
}

// Slack's 429 in the middle of a backfill is waited out, for the time its
// Retry-After names, and the run completes.
func TestIngestSlackWaitsOutRateLimits(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	g := generate(fake, channelSpec{id: "C1", name: "general", messages: 600, threads: 10, days: 3, start: march})
	b := sqliteBackend(t)
	in := newIngester(t, fake, b, &hashEmbedder{})
	// The waits are recorded, not spent.
	var mu sync.Mutex
	var waits []time.Duration
	src, err := slackhist.New(slackhist.Config{BotToken: fake.BotToken, APIURL: fake.APIURL(),
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			waits = append(waits, d)
			mu.Unlock()
			return ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	in.Source = src
	// The history's first page goes through; then both methods are limited.
	ctx := context.Background()
	calls := 0
	rep, err := in.Ingest(ctx, "C1", chat.Options{Progress: func(chat.Progress) {
		if calls++; calls == 1 {
			fake.RateLimit("conversations.history", 1, 1)
			fake.RateLimit("conversations.replies", 1, 1)
		}
	}})
	if err != nil || !rep.Complete {
		t.Fatalf("%v\n%s", err, rep)
	}
	mu.Lock()
	// At least the Retry-After each time (plus a random tenth at most).
	if len(waits) != 2 || waits[0] < time.Second || waits[1] < time.Second {
		t.Errorf("waited %v: want the Retry-After of 1s waited out twice", waits)
	}
	mu.Unlock()
	chunks, _ := b.chunks(t)
	checkEachOnce(t, chunks, g.texts)
}
