package bench

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/examples"
	"github.com/switchboard/switchboard/hashembed"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/internal/retrieval"
	"github.com/switchboard/switchboard/llm"
	"github.com/switchboard/switchboard/llm/llmtest"
	"github.com/switchboard/switchboard/llm/offline"
	"github.com/switchboard/switchboard/sqlite"
)

// params sizes the workloads: the full run, or the quick one that checks
// the harness in seconds.
type params struct {
	quick     bool
	delay     time.Duration // the model's answer time
	questions int           // per critical-path scenario and grader setting
	overhead  int           // questions per overhead row
	load      int           // questions in a load burst
	workers   int           // dispatcher workers (MAX_CONCURRENT_QUESTIONS)
	files     int           // generated files ingested
	queries   int           // retrievals timed
}

func paramsFor(quick bool) params {
	if quick {
		return params{quick: true, delay: 20 * time.Millisecond, questions: 1, overhead: 5, load: 20, workers: 8, files: 12, queries: 10}
	}
	return params{delay: 200 * time.Millisecond, questions: 3, overhead: 100, load: 200, workers: 8, files: 300, queries: 200}
}

// scenario is a question whose path through the agent is known: the fake
// model routes it and grades its documents as the scenario says.
type scenario struct {
	name     string
	route    agent.Route
	question string
	relevant bool // the model grades every document relevant, or none
}

// scenarios cover each route's ordinary path, and the longest bounded
// path: nothing relevant, three rewrites, the web fallback, no answer.
var scenarios = []scenario{
	{"vector", agent.RouteVector, "What is our refund policy?", true},
	{"graph", agent.RouteGraph, "Which suppliers are connected to our top 3 customers?", true},
	{"web", agent.RouteWeb, "What did the Fed announce this morning?", true},
	{"direct", agent.RouteDirect, "What is the capital of France?", true},
	{"vector, nothing relevant", agent.RouteVector, "What is our policy on sabbaticals for interns?", false},
}

// modelReply is the fake model: it answers each task of llm.Brain the way
// the scenario of the question in the prompt needs. Prompts carry the
// question, so concurrent requests of different questions do not mix.
func modelReply(req openai.ChatCompletionRequest) (string, int) {
	prompt := llmtest.Prompt(req)
	sc := scenarios[0]
	for _, s := range scenarios {
		if strings.Contains(prompt, s.question) {
			sc = s
		}
	}
	switch llmtest.Task(req) {
	case "route":
		return fmt.Sprintf(`{"route":%q,"reason":"benchmark"}`, sc.route), 0
	case "grade":
		if !sc.relevant {
			return `{"evidence":"","relevant":false}`, 0
		}
		// A relevant grade quotes the document, as llm.Brain requires.
		return fmt.Sprintf(`{"evidence":%q,"relevant":true}`, longestLine(prompt)), 0
	case "rewrite":
		// A new query each time: the prompt holds the previous one, which
		// the llm client refuses to see again.
		h := fnv.New32a()
		h.Write([]byte(prompt))
		return fmt.Sprintf(`{"query":"sabbatical leave interns %x","route":%q,"reason":""}`, h.Sum32(), sc.route), 0
	case "generate":
		return "The answer, from the first document [1] and the second [2].", 0
	case "check":
		return `{"grounded":true,"unsupported":[],"answers":true,"missing":""}`, 0
	case "direct":
		return "Paris.", 0
	case "condense":
		return fmt.Sprintf(`{"question":%q}`, sc.question), 0
	}
	return "benchmark: unexpected task " + llmtest.Task(req), 500
}

// Environment of the model server's child process.
const (
	modelServerEnv = "SWITCHBOARD_BENCH_MODEL_SERVER"
	modelDelayEnv  = "SWITCHBOARD_BENCH_MODEL_DELAY"
	modelURLPrefix = "MODEL_URL="
)

// TestModelServer is not a test. Run by startModel as a child process of
// the benchmarks, it serves the fake model until its standard input
// closes, so that the model's own CPU time and allocations stay out of
// the figures of the process being measured.
func TestModelServer(t *testing.T) {
	if os.Getenv(modelServerEnv) == "" {
		t.Skip("the benchmarks' fake model; runs only as their child process")
	}
	delay, err := time.ParseDuration(os.Getenv(modelDelayEnv))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t).Delay(delay).Handle(modelReply)
	fmt.Println(modelURLPrefix + srv.URL())
	_, _ = io.Copy(io.Discard, os.Stdin) // returns when the parent closes it
}

// startModel runs the fake model with delay in a child process and returns
// its API URL. The child stops when the benchmark ends.
func startModel(tb testing.TB, delay time.Duration) string {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestModelServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), modelServerEnv+"=1", modelDelayEnv+"="+delay.String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start the fake model: %v", err)
	}
	drained := make(chan struct{})
	tb.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { <-drained; done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	urls := make(chan string, 1)
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), modelURLPrefix); ok {
				urls <- u
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-drained:
		tb.Fatal("the fake model exited before serving")
	case <-time.After(30 * time.Second):
		tb.Fatal("the fake model did not start within 30s")
	}
	return ""
}

// interval is one model request, as the client saw it.
type interval struct {
	start, end time.Time
	embedding  bool // an embedding request, not a chat one
	cancelled  bool // it failed: a grading done ahead that the route made pointless
}

// recorder is an http.RoundTripper that notes when each chat or
// embedding request went out and when its answer came back.
type recorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	got  []interval
}

func newRecorder() *recorder {
	return &recorder{base: http.DefaultTransport.(*http.Transport).Clone()}
}

// RoundTrip sends req and records its interval.
func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := r.base.RoundTrip(req)
	if chat, emb := strings.HasSuffix(req.URL.Path, "/chat/completions"), strings.HasSuffix(req.URL.Path, "/embeddings"); chat || emb {
		r.mu.Lock()
		r.got = append(r.got, interval{start, time.Now(), emb, err != nil})
		r.mu.Unlock()
	}
	return resp, err
}

// take returns the intervals recorded since the last take.
func (r *recorder) take() []interval {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.got
	r.got = nil
	return out
}

// roundTrips is the longest chain of requests of which each began after
// the previous one ended: the largest set of pairwise disjoint intervals,
// found greedily by earliest end. Requests in flight together count once;
// a request cancelled midway delayed nothing, and does not count.
func roundTrips(calls []interval) int {
	calls = slices.DeleteFunc(slices.Clone(calls), func(c interval) bool { return c.cancelled })
	slices.SortFunc(calls, func(a, b interval) int { return a.end.Compare(b.end) })
	n := 0
	var last time.Time
	for _, c := range calls {
		if n == 0 || !c.start.Before(last) {
			n++
			last = c.end
		}
	}
	return n
}

// demoKB is the demo knowledge base in a temporary SQLite store, loaded
// with the normal ingest and graph import.
type demoKB struct {
	graph      *sqlite.GraphStore
	retrievers map[agent.Route]agent.Retriever
}

func newDemoKB(tb testing.TB) *demoKB {
	return newDemoKBWith(tb, hashembed.New(384), "local-hash-384")
}

// newDemoKBWith is newDemoKB with the embedder emb, recorded in the store
// as name.
func newDemoKBWith(tb testing.TB, emb retrieval.Embedder, name string) *demoKB {
	tb.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), "bench.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	p := &ingest.Pipeline{Store: sqlite.NewDocumentStore(db, name), Embedder: emb, Tidy: db.Optimize} // as cmd/bot wires it
	rep, err := p.IngestFS(ctx, examples.FS, examples.Prefix, examples.Docs())
	if err == nil {
		err = rep.Err()
	}
	if err != nil {
		tb.Fatal(err)
	}
	gs := sqlite.NewGraphStore(db)
	if _, err := ingest.ImportGraphFS(ctx, gs, examples.FS, examples.NodesCSV, examples.EdgesCSV); err != nil {
		tb.Fatal(err)
	}
	return &demoKB{graph: gs, retrievers: map[agent.Route]agent.Retriever{
		agent.RouteVector: sqlite.NewRetriever(db, emb),
		agent.RouteGraph:  sqlite.NewGraphRetriever(gs),
		agent.RouteWeb:    webStub{},
	}}
}

// webStub stands in for Tavily: five results for any query, so that the
// web route has documents to grade.
type webStub struct{}

func (webStub) Retrieve(_ context.Context, req agent.Request) ([]agent.Document, error) {
	docs := make([]agent.Document, 5)
	for i := range docs {
		docs[i] = agent.Document{
			ID: fmt.Sprintf("web-%d", i), Title: fmt.Sprintf("Result %d", i+1), Route: agent.RouteWeb,
			Location: fmt.Sprintf("https://news.example.com/%d", i+1),
			Content:  "Reported today about " + req.Query + ": the announcement, the reactions and what comes next.",
		}
	}
	return docs, nil
}

// newAgent wires the real agent over kb. With modelURL it asks the model
// through llm.Brain (over hc when not nil); without, the offline engine
// answers.
func newAgent(tb testing.TB, kb *demoKB, modelURL string, hc *http.Client, v variant) *agent.Agent {
	tb.Helper()
	cfg := agent.Config{
		Offline:    offline.New(kb.graph),
		Retrievers: kb.retrievers,
		Budgets:    agent.Budgets{GradeWorkers: v.graders},
		Speculate:  v.speculate,
	}
	if modelURL != "" {
		c, err := llm.New(llm.Config{APIKey: "bench", BaseURL: modelURL, ChatModel: "bench", Timeout: time.Minute, MaxRetries: -1, HTTPClient: hc})
		if err != nil {
			tb.Fatal(err)
		}
		cfg.Model = llm.NewBrain(c)
	}
	a, err := agent.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// variant is how the agent under measure is configured.
type variant struct {
	name            string
	graders         int // agent.Budgets.GradeWorkers; 0: the default, every document of a retrieval at once
	speculate       bool
	localEmbeddings bool // the knowledge base embeds locally, not through the model's API
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pct is the p-th percentile (0 < p ≤ 1) of ds by nearest rank; ds is
// sorted in place.
func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(p*float64(len(ds))+0.999999) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

// longestLine is the longest line of the text of the document in a grade
// prompt, which the fake model quotes as its evidence (its first line may
// be a title of the question's own words, which the grader does not take).
func longestLine(prompt string) string {
	_, doc, _ := strings.Cut(prompt, "<document n=")
	_, body, _ := strings.Cut(doc, ">\n")
	body, _, _ = strings.Cut(body, "</document>")
	best := ""
	for _, line := range strings.Split(body, "\n") {
		if line = strings.TrimSpace(line); len(line) > len(best) {
			best = line
		}
	}
	return best
}
