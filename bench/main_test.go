package bench

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Flags of the test binary, after go test's -args.
var (
	resultsPath = flag.String("results", "", "write the report here (default: results.json in this folder; in -short mode, the temporary folder)")
	command     = flag.String("command", "", "the command to record in the report (default: the go test command)")
)

// collected is the report the benchmarks of this run fill in.
var (
	collectMu sync.Mutex
	collected Report
	anything  bool
)

// collect lets a benchmark put its rows into the run's report.
func collect(f func(*Report)) {
	collectMu.Lock()
	defer collectMu.Unlock()
	f(&collected)
	anything = true
}

// TestMain runs the tests and benchmarks, then, if any benchmark ran,
// prints the report and writes it as JSON.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if anything && code == 0 {
		if err := finish(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func finish() error {
	collectMu.Lock()
	defer collectMu.Unlock()
	r := collected
	r.Machine = DetectMachine()
	r.Quick = testing.Short()
	r.Date = time.Now().UTC().Format(time.RFC3339)
	r.Command = "go test ./bench -run '^$' -bench . -benchtime 1x"
	if r.Quick {
		r.Command += " -short"
	}
	if *command != "" {
		r.Command = *command
	}
	path := *resultsPath
	if path == "" {
		path = "results.json"
		if r.Quick {
			path = filepath.Join(os.TempDir(), "switchboard-bench-quick.json")
		}
	}
	fmt.Println()
	if err := r.WriteTable(os.Stdout); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	fmt.Println("\nWrote", abs)
	return nil
}

// metricName turns a row name into a go test metric unit: no spaces.
func metricName(s string) string {
	return strings.NewReplacer(" ", "-", ",", "", "(", "", ")", "").Replace(s)
}

// The quick mode of every benchmark, as the harness runs it: each
// produces its rows, and the report renders as a table and as JSON that
// reads back. Timings are not checked; that every question was answered
// and the counts add up is.
func TestHarnessQuick(t *testing.T) {
	p := paramsFor(true)
	r := Report{Machine: DetectMachine(), Quick: true, Date: time.Now().UTC().Format(time.RFC3339), Command: "test"}
	r.CriticalPath = criticalPath(t, p)
	r.Overhead = overhead(t, p)
	r.Load = []Load{loadSlack(t, p), loadDiscord(t, p)}
	r.Stores = stores(t, p)

	if len(r.CriticalPath) != len(variants)*len(scenarios) {
		t.Errorf("%d critical-path rows", len(r.CriticalPath))
	}
	for _, c := range r.CriticalPath {
		if c.ModelCalls < 2 || c.RoundTrips < 2 || c.RoundTrips > c.ModelCalls+c.Embeddings || c.WallMS <= 0 {
			t.Errorf("critical path row %+v", c)
		}
		// One grader makes the chat calls sequential: each is a round
		// trip of its own (a query's embedding may overlap the router's).
		if c.Variant == "1 grader" && c.RoundTrips < c.ModelCalls {
			t.Errorf("one grader, yet %v round trips for %v calls: %+v", c.RoundTrips, c.ModelCalls, c)
		}
		// A question the documents answer embeds its query through the API
		// (ahead or not); on other routes the search made ahead may be
		// cancelled before its embedding went out, so they are not counted
		// on.
		if strings.HasPrefix(c.Scenario, "vector") && !strings.Contains(c.Variant, "local") && c.Embeddings < 1 {
			t.Errorf("critical path row %+v: the query was not embedded", c)
		}
		if !strings.HasPrefix(c.Variant, "speculative") && c.Discarded != 0 {
			t.Errorf("critical path row %+v: calls discarded without speculation", c)
		}
	}
	for _, l := range r.Load {
		if l.Answered != p.load || l.AnsweredTwice != 0 || l.Refused != 0 || l.PeakGoroutines < l.BaseGoroutines {
			t.Errorf("load row %+v", l)
		}
	}
	if len(r.Overhead) != 2*len(scenarios) || len(r.Stores) != 2 || r.Stores[0].Chunks == 0 {
		t.Errorf("overhead %d rows, stores %+v", len(r.Overhead), r.Stores)
	}

	var table bytes.Buffer
	if err := r.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"QUICK run", "Machine: ", "1. Critical path", "vector, nothing relevant", "2. Orchestration overhead",
		"3. Load", "slack", "discord", "4. Stores", "sqlite"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(js.Bytes()) {
		t.Fatalf("invalid JSON:\n%s", js.String())
	}
	back, err := ReadReport(&js)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.CriticalPath) != len(r.CriticalPath) || len(back.Load) != 2 || back.Machine.CPUs == 0 {
		t.Errorf("report did not survive JSON: %+v", back)
	}
	t.Logf("\n%s", table.String())
}
