package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/bench"
)

// fakeGo replaces the go tool for a test: it records the arguments and
// writes the report the benchmarks would, to the -results path.
func fakeGo(t *testing.T, rep bench.Report, fail error) *[]string {
	t.Helper()
	var got []string
	orig := goCommand
	t.Cleanup(func() { goCommand = orig })
	goCommand = func(_ context.Context, dir string, args []string, stdout, _ io.Writer) error {
		got = args
		if _, err := os.Stat(filepath.Join(dir, "bench", "doc.go")); err != nil {
			return fmt.Errorf("not run in the source tree: %s", dir)
		}
		fmt.Fprintln(stdout, "BenchmarkCriticalPath-2   1   1000 ns/op")
		if fail != nil {
			return fail
		}
		i := slices.Index(args, "-results")
		if i < 0 || i+1 == len(args) {
			return errors.New("no -results")
		}
		f, err := os.Create(args[i+1])
		if err != nil {
			return err
		}
		defer f.Close()
		return rep.WriteJSON(f)
	}
	return &got
}

func TestBench(t *testing.T) {
	rep := bench.Report{Machine: bench.Machine{CPUs: 2, CPUModel: "Test CPU"}, Quick: true, Date: "2025-01-01T00:00:00Z",
		CriticalPath: []bench.CriticalPath{{Scenario: "vector", Graders: 4, ModelCalls: 9, RoundTrips: 5, WallMS: 1010, Speedup: 1.8, ModelDelayMS: 200}},
		Load:         []bench.Load{{Platform: "slack", Questions: 200, Answered: 200}},
	}
	args := fakeGo(t, rep, nil)
	out := filepath.Join(t.TempDir(), "results.json")
	stdout, stderr, err := run(t, map[string]string{}, "bench", "--quick", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	joined := strings.Join(*args, " ")
	for _, want := range []string{"test ./bench -run ^$ -bench . -benchtime 1x", "-short", "-args -results " + out, "-table=false"} {
		if !strings.Contains(joined, want) {
			t.Errorf("go %s lacks %q", joined, want)
		}
	}
	for _, want := range []string{"1. Critical path", "vector", "1.80x", "3. Load", "2 CPUs (Test CPU)", "Report: " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "BenchmarkCriticalPath") {
		t.Errorf("go test's output was not passed on:\n%s", stderr)
	}

	// A full run writes to bench/results.json unless told otherwise; here
	// only the arguments are checked, the fake writes where it is told.
	args = fakeGo(t, rep, nil)
	if _, _, err := run(t, map[string]string{}, "bench", "--run", "Load", "--out", out); err != nil {
		t.Fatal(err)
	}
	if joined := strings.Join(*args, " "); strings.Contains(joined, "-short") || !strings.Contains(joined, "-bench Load") {
		t.Errorf("go %s", joined)
	}
}

func TestBenchFails(t *testing.T) {
	fakeGo(t, bench.Report{}, errors.New("exit status 1"))
	_, _, err := run(t, map[string]string{}, "bench", "--quick", "--out", filepath.Join(t.TempDir(), "r.json"))
	if err == nil || !strings.Contains(err.Error(), "go test ./bench failed") {
		t.Errorf("err = %v", err)
	}
	if _, _, err := run(t, map[string]string{}, "bench", "extra"); !errors.Is(err, errUsage) {
		t.Errorf("extra argument: err = %v", err)
	}
	if _, _, err := run(t, map[string]string{}, "bench", "-h"); err != nil {
		t.Errorf("-h: err = %v", err)
	}
}
