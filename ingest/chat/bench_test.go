package chat_test

import (
	"context"
	"flag"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/ingest/chat"
)

// benchMessages sizes the generated channel of BenchmarkIngestChannel:
//
//	go test ./ingest/chat -run '^$' -bench IngestChannel -benchtime 1x -messages 20000
var benchMessages = flag.Int("messages", 20000, "messages in the channel BenchmarkIngestChannel ingests")

// BenchmarkIngestChannel ingests a generated Slack channel end to end:
// the fake Slack's Web API over HTTP (history pages, every thread's
// replies, users), chunking, a local hashing embedder in batches, and the
// store, with rule-based graph extraction on SQLite. It reports messages
// per second, the peak of the Go heap during the run, and the heap before
// it (base: mostly the fake Slack's copy of the channel), so that the
// run's own memory is the difference.
func BenchmarkIngestChannel(b *testing.B) {
	for _, store := range []struct {
		name string
		open func(testing.TB) *backend
	}{{"sqlite", sqliteBackend}, {"postgres", postgresBackend}} {
		b.Run(store.name, func(b *testing.B) {
			n := *benchMessages
			fake := slacktest.NewServer()
			defer fake.Close()
			generate(fake, channelSpec{id: "C1", name: "general", messages: n, threads: max(n/20, 1),
				days: max(n/300, 1), start: time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC)})
			var peak, base uint64
			var elapsed time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				bk := store.open(b)
				in := newIngester(b, fake, bk, &hashEmbedder{})
				runtime.GC()
				base = heapBytes() // the fake Slack's channel, the stores' pools
				stop := samplePeakHeap(&peak)
				b.StartTimer()
				start := time.Now()
				rep, err := in.Ingest(context.Background(), "C1", chat.Options{})
				elapsed += time.Since(start)
				b.StopTimer()
				stop()
				if err != nil || rep.Messages != n {
					b.Fatalf("%v\n%s", err, rep)
				}
			}
			b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "msgs/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(base)/(1<<20), "base-heap-MB")
		})
	}
}

// heapBytes is the size of the live and not yet swept heap objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// samplePeakHeap records the largest heap seen, every 5ms, until stop.
func samplePeakHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if v := heapBytes(); v > *peak {
				*peak = v
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
