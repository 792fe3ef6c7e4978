package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Report is what one run of the benchmarks measured: bench/results.json.
type Report struct {
	Machine      Machine        `json:"machine"`
	Command      string         `json:"command"`
	Quick        bool           `json:"quick"`
	Date         string         `json:"date"` // RFC 3339, when the run ended
	CriticalPath []CriticalPath `json:"critical_path,omitempty"`
	Overhead     []Overhead     `json:"overhead,omitempty"`
	Load         []Load         `json:"load,omitempty"`
	Stores       []Store        `json:"stores,omitempty"`
}

// Machine is where a run happened.
type Machine struct {
	CPUs      int     `json:"cpus"`
	CPUModel  string  `json:"cpu_model"`
	MemoryGiB float64 `json:"memory_gib"`
	OS        string  `json:"os"`
	Arch      string  `json:"arch"`
	Go        string  `json:"go"`
}

// CriticalPath is one route's questions answered against a model with a
// fixed delay, one at a time. Figures are per question.
type CriticalPath struct {
	Scenario     string  `json:"scenario"` // the route, or what makes the path special
	Question     string  `json:"question"`
	Questions    int     `json:"questions"`
	ModelDelayMS float64 `json:"model_delay_ms"`
	// Variant is the agent's configuration: "1 grader", "default" (every
	// document of a retrieval graded at once) or "speculative"
	// (SPECULATIVE_GRADING).
	Variant    string  `json:"variant"`
	ModelCalls float64 `json:"model_calls"` // chat requests
	Embeddings float64 `json:"embeddings"`  // embedding requests (the queries')
	// RoundTrips is the longest chain of model requests, chat and
	// embedding, of which each began after the previous one ended: the
	// requests a question waits for one after another.
	RoundTrips float64 `json:"round_trips"`
	// Discarded counts the chat requests begun to grade documents ahead
	// of a route the router did not choose, finished or cancelled.
	Discarded float64 `json:"discarded_calls"`
	// FirstWordsMS is when the first words of the answer could be shown
	// (the first agent.EventDrafting), from the question; 0 for a path
	// with no draft (a direct answer is not streamed).
	FirstWordsMS float64 `json:"first_words_ms"`
	WallMS       float64 `json:"wall_ms"`
	// Speedup is the wall time with one grader divided by this row's; 1
	// for the one-grader row itself.
	Speedup float64 `json:"speedup"`
}

// Overhead is the time and memory a question costs in Switchboard itself.
type Overhead struct {
	Scenario string `json:"scenario"`
	Engine   string `json:"engine"` // "model (0 ms, HTTP)" or "offline"
	// Route is the route the answer took, and "no answer" when it found
	// nothing: the offline engine takes its own path, not the scenario's.
	Route         string  `json:"route"`
	Questions     int     `json:"questions"`
	ModelCalls    float64 `json:"model_calls"`
	MSPerQuestion float64 `json:"ms_per_question"` // wall time, the fake model's answers included
	// CPUMSPerQuestion is this process's CPU time (user and system) per
	// question: Switchboard's own work, whatever it waited for.
	CPUMSPerQuestion  float64 `json:"cpu_ms_per_question"`
	AllocsPerQuestion float64 `json:"allocs_per_question"`
	KBPerQuestion     float64 `json:"kb_per_question"`
}

// Load is a burst of questions through one chat platform.
type Load struct {
	Platform     string  `json:"platform"`
	Questions    int     `json:"questions"`
	Workers      int     `json:"workers"` // MAX_CONCURRENT_QUESTIONS
	Queue        int     `json:"queue"`   // MAX_QUEUED_QUESTIONS
	ModelDelayMS float64 `json:"model_delay_ms"`
	// FirstReply is from sending a question to the first thing its asker
	// sees: the placeholder in Slack, the deferred "thinking…" in Discord.
	FirstReplyP50MS float64 `json:"first_reply_p50_ms"`
	FirstReplyP99MS float64 `json:"first_reply_p99_ms"`
	AnswerP50MS     float64 `json:"answer_p50_ms"` // from sending to the finished answer
	AnswerP99MS     float64 `json:"answer_p99_ms"`
	TotalS          float64 `json:"total_s"` // until the last answer
	Answered        int     `json:"answered"`
	AnsweredTwice   int     `json:"answered_twice"`
	Refused         int     `json:"refused"` // told to retry, or not taken at all
	BaseHeapMiB     float64 `json:"base_heap_mib"`
	PeakHeapMiB     float64 `json:"peak_heap_mib"`
	BaseGoroutines  int     `json:"base_goroutines"`
	PeakGoroutines  int     `json:"peak_goroutines"`
}

// Store is ingest and retrieval on one backend.
type Store struct {
	Backend    string  `json:"backend"`
	Skipped    string  `json:"skipped,omitempty"` // why it did not run
	Files      int     `json:"files"`
	Chunks     int     `json:"chunks"`
	IngestS    float64 `json:"ingest_s"`
	FilesPerS  float64 `json:"files_per_s"`
	ChunksPerS float64 `json:"chunks_per_s"`
	ReingestS  float64 `json:"reingest_unchanged_s"` // the same files again: hashes match, nothing embedded
	Queries    int     `json:"queries"`
	QueryP50MS float64 `json:"query_p50_ms"`
	QueryP95MS float64 `json:"query_p95_ms"`
}

// DetectMachine describes the computer the process runs on. The CPU model
// and memory come from /proc and are empty on systems without it.
func DetectMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH, Go: runtime.Version()}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	if kb, err := strconv.ParseFloat(strings.TrimSuffix(procField("/proc/meminfo", "MemTotal"), " kB"), 64); err == nil {
		m.MemoryGiB = float64(int(kb/(1<<20)*10+0.5)) / 10
	}
	return m
}

// procField returns the value of the first "key: value" line of a /proc
// file, or "" when there is none.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// String describes the machine in one line for the table.
func (m Machine) String() string {
	model := m.CPUModel
	if model == "" {
		model = "unknown CPU"
	}
	return fmt.Sprintf("%d CPUs (%s), %.1f GiB, %s/%s, %s", m.CPUs, model, m.MemoryGiB, m.OS, m.Arch, m.Go)
}

// WriteJSON writes r indented.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadReport reads what WriteJSON wrote.
func ReadReport(rd io.Reader) (Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return Report{}, fmt.Errorf("bench: read report: %w", err)
	}
	return r, nil
}

// WriteTable writes r as tables for people, one per benchmark that ran.
func (r Report) WriteTable(w io.Writer) error {
	mode := "full run"
	if r.Quick {
		mode = "QUICK run: small workloads and a 20 ms model, for checking the harness, not for figures"
	}
	fmt.Fprintf(w, "Switchboard benchmarks, %s\n%s\nMachine: %s\nCommand: %s\n", r.Date, mode, r.Machine, r.Command)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(cells ...any) {
		for _, c := range cells {
			fmt.Fprint(tw, c, "\t")
		}
		fmt.Fprintln(tw)
	}
	if len(r.CriticalPath) > 0 {
		fmt.Fprintf(tw, "\n1. Critical path: model answers after %.0f ms; per question\n", r.CriticalPath[0].ModelDelayMS)
		row("scenario", "agent", "model calls", "embeddings", "round trips", "discarded", "first words ms", "wall ms", "speed-up")
		for _, c := range r.CriticalPath {
			first := "–"
			if c.FirstWordsMS > 0 {
				first = f0(c.FirstWordsMS)
			}
			row(c.Scenario, c.Variant, f1(c.ModelCalls), f1(c.Embeddings), f1(c.RoundTrips), f1(c.Discarded), first, f0(c.WallMS), fmt.Sprintf("%.2fx", c.Speedup))
		}
	}
	if len(r.Overhead) > 0 {
		fmt.Fprintln(tw, "\n2. Orchestration overhead: per question, in this process (the fake model runs in another)")
		row("scenario", "engine", "route taken", "model calls", "wall ms", "CPU ms", "allocs", "KiB")
		for _, o := range r.Overhead {
			row(o.Scenario, o.Engine, o.Route, f1(o.ModelCalls), f2(o.MSPerQuestion), f2(o.CPUMSPerQuestion), f0(o.AllocsPerQuestion), f0(o.KBPerQuestion))
		}
	}
	if len(r.Load) > 0 {
		l0 := r.Load[0]
		fmt.Fprintf(tw, "\n3. Load: %d questions at once, %d workers, queue %d, model %.0f ms\n", l0.Questions, l0.Workers, l0.Queue, l0.ModelDelayMS)
		row("platform", "first reply p50/p99 ms", "answer p50/p99 s", "all done s", "answered", "twice", "refused", "heap MiB base/peak", "goroutines base/peak")
		for _, l := range r.Load {
			row(l.Platform, f0(l.FirstReplyP50MS)+" / "+f0(l.FirstReplyP99MS), f1(l.AnswerP50MS/1000)+" / "+f1(l.AnswerP99MS/1000),
				f1(l.TotalS), fmt.Sprintf("%d/%d", l.Answered, l.Questions), l.AnsweredTwice, l.Refused,
				f1(l.BaseHeapMiB)+" / "+f1(l.PeakHeapMiB), fmt.Sprintf("%d / %d", l.BaseGoroutines, l.PeakGoroutines))
		}
	}
	if len(r.Stores) > 0 {
		fmt.Fprintln(tw, "\n4. Stores: files ingest (split, embed locally, store) and hybrid retrieval")
		row("backend", "files", "chunks", "ingest s", "files/s", "chunks/s", "re-ingest s", "queries", "p50 ms", "p95 ms")
		for _, s := range r.Stores {
			if s.Skipped != "" {
				row(s.Backend, "skipped: "+s.Skipped, "", "", "", "", "", "", "", "")
				continue
			}
			row(s.Backend, s.Files, s.Chunks, f2(s.IngestS), f0(s.FilesPerS), f0(s.ChunksPerS), f2(s.ReingestS), s.Queries, f1(s.QueryP50MS), f1(s.QueryP95MS))
		}
	}
	return tw.Flush()
}

func f0(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }
func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
