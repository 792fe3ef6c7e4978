package bench

import (
	"context"
	"net/http"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/llm"
)

// The agents the critical path compares: one grader at a time (every
// call a round trip), the default (one grading wave), and speculative
// grading (Config.Speculate), with the query embedded by the model's API
// or locally (EMBEDDER=local, the default).
var variants = []variant{
	{name: "1 grader", graders: 1},
	{name: "default"},
	{name: "speculative", speculate: true},
	{name: "speculative, local embeddings", speculate: true, localEmbeddings: true},
}

// criticalPath answers each scenario's question p.questions times, one at
// a time, with each variant, against a model that answers after p.delay
// and embeds the documents and the queries (as EMBEDDER=openai does) after
// p.delay too, so that the query's embedding is a round trip of its own.
func criticalPath(tb testing.TB, p params) []CriticalPath {
	url := startModel(tb, p.delay)
	rec := newRecorder()
	emb, err := llm.New(llm.Config{APIKey: "bench", BaseURL: url, ChatModel: "bench", EmbeddingModel: "bench-embed",
		Timeout: time.Minute, MaxRetries: -1, HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		tb.Fatal(err)
	}
	apiKB := newDemoKBWith(tb, emb, "openai:bench-embed")
	rec.take() // the ingest's embeddings
	localKB := newDemoKB(tb)
	var rows []CriticalPath
	for _, sc := range scenarios {
		var one float64
		for _, v := range variants {
			kb := apiKB
			if v.localEmbeddings {
				kb = localKB
			}
			a := newAgent(tb, kb, url, &http.Client{Transport: rec}, v)
			row := CriticalPath{Scenario: sc.name, Question: sc.question, Questions: p.questions, ModelDelayMS: ms(p.delay), Variant: v.name}
			for range p.questions {
				start := time.Now()
				var first time.Duration
				res, err := a.Ask(context.Background(), agent.Question{Text: sc.question}, func(e agent.Event) {
					if e.Kind == agent.EventDrafting && first == 0 {
						first = time.Since(start)
					}
				})
				wall := time.Since(start)
				row.FirstWordsMS += ms(first)
				if err != nil {
					tb.Fatalf("%s, %s: %v", sc.name, v.name, err)
				}
				if res.Offline {
					tb.Fatalf("%s: the run went offline: %s", sc.name, res.OfflineReason)
				}
				calls := rec.take()
				for _, c := range calls {
					if c.embedding {
						row.Embeddings++
					} else {
						row.ModelCalls++
					}
				}
				row.RoundTrips += float64(roundTrips(calls))
				row.Discarded += float64(res.DiscardedCalls)
				row.WallMS += ms(wall)
			}
			n := float64(p.questions)
			row.ModelCalls, row.Embeddings, row.RoundTrips, row.Discarded, row.FirstWordsMS, row.WallMS =
				row.ModelCalls/n, row.Embeddings/n, row.RoundTrips/n, row.Discarded/n, row.FirstWordsMS/n, row.WallMS/n
			if v.graders == 1 {
				one = row.WallMS
			}
			row.Speedup = one / row.WallMS
			rows = append(rows, row)
		}
	}
	return rows
}

// overhead answers each scenario's question p.overhead times with a model
// that answers at once, and with the offline engine, measuring the time
// and the allocations of this process per question.
func overhead(tb testing.TB, p params) []Overhead {
	kb := newDemoKB(tb)
	url := startModel(tb, 0)
	var rows []Overhead
	for _, engine := range []string{"model (0 ms, HTTP)", "offline"} {
		modelURL := url
		if engine == "offline" {
			modelURL = ""
		}
		a := newAgent(tb, kb, modelURL, nil, variant{})
		for _, sc := range scenarios {
			q := agent.Question{Text: sc.question}
			warm, err := a.Ask(context.Background(), q, nil) // warms caches and connections
			if err != nil {
				tb.Fatal(err)
			}
			route := string(warm.Route)
			if warm.Confidence == agent.ConfidenceNone {
				route += ", no answer"
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			calls := 0
			cpu0 := cpuTime()
			start := time.Now()
			for range p.overhead {
				res, err := a.Ask(context.Background(), q, nil)
				if err != nil {
					tb.Fatal(err)
				}
				calls += res.LLMCalls
			}
			elapsed := time.Since(start)
			cpu := cpuTime() - cpu0
			runtime.ReadMemStats(&after)
			n := float64(p.overhead)
			rows = append(rows, Overhead{
				Scenario: sc.name, Engine: engine, Route: route, Questions: p.overhead, ModelCalls: float64(calls) / n,
				MSPerQuestion:     ms(elapsed) / n,
				CPUMSPerQuestion:  ms(cpu) / n,
				AllocsPerQuestion: float64(after.Mallocs-before.Mallocs) / n,
				KBPerQuestion:     float64(after.TotalAlloc-before.TotalAlloc) / 1024 / n,
			})
		}
	}
	return rows
}

// BenchmarkCriticalPath: see the package documentation, item 1.
func BenchmarkCriticalPath(b *testing.B) {
	p := paramsFor(testing.Short())
	for b.Loop() {
		rows := criticalPath(b, p)
		collect(func(r *Report) { r.CriticalPath = rows })
		for _, r := range rows {
			if r.Variant == "default" {
				b.ReportMetric(r.WallMS, "ms/q-"+metricName(r.Scenario))
			}
		}
	}
}

// BenchmarkOverhead: see the package documentation, item 2.
func BenchmarkOverhead(b *testing.B) {
	p := paramsFor(testing.Short())
	b.ReportAllocs()
	for b.Loop() {
		rows := overhead(b, p)
		collect(func(r *Report) { r.Overhead = rows })
		for _, r := range rows {
			if r.Scenario == "vector" {
				b.ReportMetric(r.MSPerQuestion, "ms/q-vector-"+metricName(r.Engine))
				b.ReportMetric(r.AllocsPerQuestion, "allocs/q-vector-"+metricName(r.Engine))
			}
		}
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
