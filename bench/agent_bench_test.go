package bench

import (
	"context"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
)

// criticalPath answers each scenario's question p.questions times, one at
// a time, with one grader and with the default four, against a model
// that answers after p.delay.
func criticalPath(tb testing.TB, p params) []CriticalPath {
	kb := newDemoKB(tb)
	url := startModel(tb, p.delay)
	var rows []CriticalPath
	for _, sc := range scenarios {
		var one float64
		for _, graders := range []int{1, 4} {
			rec := newRecorder()
			a := newAgent(tb, kb, url, &http.Client{Transport: rec}, graders)
			row := CriticalPath{Scenario: sc.name, Question: sc.question, Questions: p.questions, ModelDelayMS: ms(p.delay), Graders: graders}
			for range p.questions {
				start := time.Now()
				res, err := a.Ask(context.Background(), agent.Question{Text: sc.question}, nil)
				wall := time.Since(start)
				if err != nil {
					tb.Fatalf("%s: %v", sc.name, err)
				}
				if res.Offline {
					tb.Fatalf("%s: the run went offline: %s", sc.name, res.OfflineReason)
				}
				calls := rec.take()
				row.ModelCalls += float64(len(calls))
				row.RoundTrips += float64(roundTrips(calls))
				row.WallMS += ms(wall)
			}
			n := float64(p.questions)
			row.ModelCalls, row.RoundTrips, row.WallMS = row.ModelCalls/n, row.RoundTrips/n, row.WallMS/n
			if graders == 1 {
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
		a := newAgent(tb, kb, modelURL, nil, 0)
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
			start := time.Now()
			for range p.overhead {
				res, err := a.Ask(context.Background(), q, nil)
				if err != nil {
					tb.Fatal(err)
				}
				calls += res.LLMCalls
			}
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			n := float64(p.overhead)
			rows = append(rows, Overhead{
				Scenario: sc.name, Engine: engine, Route: route, Questions: p.overhead, ModelCalls: float64(calls) / n,
				MSPerQuestion:     ms(elapsed) / n,
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
			if r.Graders == 4 {
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
