package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard/switchboard/eval"
	"github.com/switchboard/switchboard/eval/northwind"
	"github.com/switchboard/switchboard/ingest"
)

const evalSynopsis = `eval [flags] CASES.jsonl
       switchboard eval export-feedback [--out FILE]

Runs every case of CASES.jsonl through the agent and scores the route, the
answer and the sources (the format is described in eval/doc.go), and how
far each confidence badge can be trusted: for each badge, how many of its
answers were right, and how many answers were confidently wrong (a high
badge on a wrong answer, or a high or medium badge on an answer where none
exists; see eval/doc.go). The
knowledge base is loaded into a fresh temporary store with the normal ingest
and graph import; the model and web search come from the usual settings, so
with none configured this measures the offline engine.

  switchboard eval --kb examples eval/demo.jsonl
  switchboard eval --docs ../shared/eval-data/handbook --northwind ../shared/eval-data/northwind eval/handbook-northwind.jsonl
  switchboard eval --kb examples --max-confidently-wrong 0 eval/heldout-demo.jsonl

export-feedback writes the 👍/👎 votes people gave in chat as cases.

Flags:`

// eval scores the agent on a set of cases. It wires its own App: a
// temporary embedded store unless --use-configured-stores, never the demo.
func (m *Main) eval(ctx context.Context, args []string) error {
	var err error
	if len(args) > 0 && args[0] == "export-feedback" {
		err = m.exportFeedback(ctx, args[1:])
	} else {
		err = m.evalCases(ctx, args)
	}
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

// evalCases is `switchboard eval [flags] CASES.jsonl`.
func (m *Main) evalCases(ctx context.Context, args []string) error {
	fs := m.newFlags("eval", evalSynopsis)
	kbDir := fs.String("kb", "", "knowledge base `DIR`: documents in DIR/docs (or DIR), graph in DIR/graph/nodes.csv and edges.csv")
	var docs multiFlag
	fs.Var(&docs, "docs", "documents to ingest: a file or `folder` (repeatable)")
	nodes := fs.String("nodes", "", "graph nodes `CSV` to import (with --edges, instead of the graph of --kb)")
	edges := fs.String("edges", "", "graph edges `CSV` to import")
	nwDir := fs.String("northwind", "", "`folder` of the Northwind CSVs, converted to a graph and imported")
	configured := fs.Bool("use-configured-stores", false, "use DATABASE_URL, NEO4J_URI or SWITCHBOARD_DATA_DIR as configured instead of a temporary store (a knowledge base given is loaded into them)")
	parallel := fs.Int("parallel", 4, "cases answered at once (at most OPENAI_MAX_CONCURRENT with a model, when that is set)")
	asJSON := fs.Bool("json", false, "print one JSON object: the summary and every case")
	var minRoute, minAnswer fraction
	fs.Var(&minRoute, "min-route-accuracy", "fail unless route accuracy reaches this `fraction` (0.9 or 90%)")
	fs.Var(&minAnswer, "min-answer-rate", "fail unless the answer hit-rate reaches this `fraction` (0.8 or 80%)")
	var maxWrong limit
	fs.Var(&maxWrong, "max-confidently-wrong", "fail when more than `N` answers are confidently wrong (0: none may be)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	if *parallel < 1 || *parallel > 64 {
		return fmt.Errorf("--parallel %d: use 1 to 64", *parallel)
	}
	if *kbDir != "" {
		kdocs, knodes, kedges, err := kbLayout(*kbDir)
		if err != nil {
			return err
		}
		docs = append(docs, kdocs...)
		if *nodes == "" && *edges == "" {
			*nodes, *edges = knodes, kedges
		}
	}
	if !*configured && len(docs) == 0 && *nodes == "" && *edges == "" && *nwDir == "" {
		return fmt.Errorf("no knowledge base: give --kb, --docs, --nodes/--edges or --northwind (or --use-configured-stores to evaluate what the configured stores hold)")
	}

	// The cases first: a broken file should not wait for an ingest.
	cases, bad, err := eval.ReadFile(pos[0])
	if err != nil {
		return err
	}
	for _, e := range bad {
		fmt.Fprintf(m.Stderr, "%s %v\n", pos[0], e)
	}
	if len(cases) == 0 {
		return fmt.Errorf("%s holds no valid case", pos[0])
	}

	app, closeApp, err := m.openForEval(ctx, *configured)
	if err != nil {
		return err
	}
	defer closeApp()
	if err := m.loadKB(ctx, app, docs, *nodes, *edges, *nwDir); err != nil {
		return err
	}

	engine := "offline engine"
	if app.Model != nil {
		engine = "model " + app.Config.ChatModel
		// Cases beyond what the server takes at once would only wait in
		// the client, each with its answer timeout running.
		if n := app.Config.ModelConcurrent; n > 0 && *parallel > n {
			*parallel = n
		}
	}
	fmt.Fprintf(m.Stderr, "Evaluating %d cases of %s (%s, %d at a time)…\n", len(cases), pos[0], engine, *parallel)
	start := time.Now()
	// A line at every tenth of the set: a run with a model takes minutes.
	progress := func(done, total int) {
		if done*10/total != (done-1)*10/total {
			fmt.Fprintf(m.Stderr, "  %d of %d cases done\n", done, total)
		}
	}
	outcomes, err := eval.Run(ctx, app.Agent, cases, eval.Options{Parallel: *parallel, Timeout: app.Config.AnswerTimeout, Done: progress})
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stderr, "Done in %s.\n\n", time.Since(start).Round(10*time.Millisecond))
	sum := eval.Summarize(outcomes)
	if *asJSON {
		err = eval.WriteJSON(m.Stdout, sum, outcomes)
	} else {
		err = eval.WriteText(m.Stdout, sum, outcomes)
	}
	if err != nil {
		return err
	}
	th := eval.Thresholds{MinRouteAccuracy: float64(minRoute), MinAnswerRate: float64(minAnswer)}
	if maxWrong.set {
		th.MaxConfidentlyWrong = &maxWrong.n
	}
	if err := th.Check(sum); err != nil {
		return err
	}
	switch len(bad) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("1 line of %s is not a valid case (see above); the other cases were evaluated", pos[0])
	}
	return fmt.Errorf("%d lines of %s are not valid cases (see above); the other cases were evaluated", len(bad), pos[0])
}

// openForEval wires the App an evaluation runs on: the usual settings, but
// never the demo, and a temporary embedded store unless configured is
// set. closeApp releases it and removes the temporary store.
func (m *Main) openForEval(ctx context.Context, configured bool) (app *App, closeApp func(), err error) {
	cfg, err := LoadConfig(m.Getenv)
	if err != nil {
		return nil, nil, err
	}
	cfg.Demo = "false"
	tmp := ""
	if !configured {
		if tmp, err = os.MkdirTemp("", "switchboard-eval-*"); err != nil {
			return nil, nil, fmt.Errorf("eval: temporary store: %w", err)
		}
		cfg.DataDir, cfg.DatabaseURL, cfg.Neo4jURI = tmp, "", ""
	}
	cleanup := func() {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}
	if app, err = Open(ctx, cfg, m.Stderr); err != nil {
		cleanup()
		return nil, nil, err
	}
	return app, func() { app.Close(); cleanup() }, nil
}

// kbLayout finds the parts of a knowledge base folder laid out as
// examples/ is: documents in docs/ (or the folder itself when there is no
// docs/), the graph in graph/nodes.csv and graph/edges.csv when present.
func kbLayout(dir string) (docs []string, nodes, edges string, err error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, "", "", fmt.Errorf("--kb: %w", err)
	}
	if !info.IsDir() {
		return nil, "", "", fmt.Errorf("--kb %s: not a folder", dir)
	}
	docs = []string{dir}
	if d := filepath.Join(dir, "docs"); isDir(d) {
		docs = []string{d}
	}
	if f := filepath.Join(dir, "graph", "nodes.csv"); isFile(f) {
		nodes = f
	}
	if f := filepath.Join(dir, "graph", "edges.csv"); isFile(f) {
		edges = f
	}
	return docs, nodes, edges, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// loadKB ingests the documents and imports the graphs with the normal
// code paths, reporting each step on stderr. Any file that fails to load
// fails the evaluation: its figures would describe another knowledge base.
func (m *Main) loadKB(ctx context.Context, app *App, docs []string, nodes, edges, nwDir string) error {
	if len(docs) > 0 {
		rep, err := app.Ingest.IngestFiles(ctx, docs)
		fmt.Fprintf(m.Stderr, "Documents: %s\n", rep)
		if err == nil {
			err = rep.Err()
		}
		if err != nil {
			return fmt.Errorf("eval: ingest: %w", err)
		}
	}
	imp := func(nodes, edges string) error {
		rep, err := ingest.ImportGraph(ctx, app.Graph, nodes, edges)
		fmt.Fprintf(m.Stderr, "Graph: %s\n", rep)
		if err == nil && len(rep.NodeErrors)+len(rep.EdgeErrors) > 0 {
			err = errors.New("some rows were not imported (listed above)")
		}
		if err != nil {
			return fmt.Errorf("eval: graph import: %w", err)
		}
		return nil
	}
	if nodes != "" || edges != "" {
		if err := imp(nodes, edges); err != nil {
			return err
		}
	}
	if nwDir != "" {
		tmp, err := os.MkdirTemp("", "switchboard-northwind-*")
		if err != nil {
			return fmt.Errorf("eval: northwind: %w", err)
		}
		defer os.RemoveAll(tmp)
		n, e, st, err := northwind.Convert(nwDir, tmp)
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		fmt.Fprintf(m.Stderr, "Northwind: %s\n", st)
		for _, s := range st.Skipped {
			fmt.Fprintf(m.Stderr, "  skipped %s\n", s)
		}
		if err := imp(n, e); err != nil {
			return err
		}
	}
	return nil
}

// exportFeedback writes the votes of the configured feedback store as
// eval cases (see eval.FromVotes for what a vote becomes).
func (m *Main) exportFeedback(ctx context.Context, args []string) error {
	fs := m.newFlags("eval export-feedback", "eval export-feedback [--out FILE]")
	out := fs.String("out", "", "write the cases to `FILE` instead of standard output")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	cfg, err := LoadConfig(m.Getenv)
	if err != nil {
		return err
	}
	cfg.Demo = "false" // reading votes must not load anything
	app, err := Open(ctx, cfg, m.Stderr)
	if err != nil {
		return err
	}
	defer app.Close()
	votes, err := app.Feedback.Votes(ctx)
	if err != nil {
		return err
	}
	cases, notes := eval.FromVotes(votes)
	for _, n := range notes {
		fmt.Fprintln(m.Stderr, "note:", n)
	}
	if *out == "" {
		err = writeCases(m.Stdout, cases)
	} else {
		err = writeCasesFile(*out, cases)
	}
	if err != nil {
		return fmt.Errorf("export-feedback: %w", err)
	}
	fmt.Fprintf(m.Stderr, "Exported %d cases from %d votes.\n", len(cases), len(votes))
	return nil
}

// writeCases writes cases as JSON Lines.
func writeCases(w io.Writer, cases []eval.Case) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, c := range cases {
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	return nil
}

// writeCasesFile writes cases as JSON Lines to a new file at path.
func writeCasesFile(path string, cases []eval.Case) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeCases(f, cases); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parseInterleaved parses flags that may come before or after the
// positional arguments ("switchboard eval cases.jsonl --json"), which the flag
// package alone stops at. Each round consumes at least one argument.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// multiFlag is a flag that may be given several times.
type multiFlag []string

// String lists the values, as flag.Value requires.
func (f *multiFlag) String() string { return strings.Join(*f, ",") }

// Set adds one value.
func (f *multiFlag) Set(v string) error {
	*f = append(*f, v)
	return nil
}

// fraction is a flag for a rate: "0.9", "90%" or "90".
type fraction float64

// String writes the fraction, as flag.Value requires.
func (f *fraction) String() string { return strconv.FormatFloat(float64(*f), 'g', -1, 64) }

// Set reads "0.9", "90%" or "90" (a number above 1 is a percentage).
func (f *fraction) Set(v string) error {
	pct := strings.HasSuffix(v, "%")
	x, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
	if err != nil {
		return fmt.Errorf("%q is not a fraction such as 0.9 or 90%%", v)
	}
	if pct || x > 1 {
		x /= 100
	}
	if x < 0 || x > 1 {
		return fmt.Errorf("%q is outside 0..1 (0%%..100%%)", v)
	}
	*f = fraction(x)
	return nil
}

// limit is a flag for a count that is unchecked unless given: 0 is a limit.
type limit struct {
	n   int
	set bool
}

// String writes the count, or nothing when unset, as flag.Value requires.
func (l *limit) String() string {
	if l == nil || !l.set {
		return ""
	}
	return strconv.Itoa(l.n)
}

// Set reads a whole number, 0 or more.
func (l *limit) Set(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a count such as 0 or 3", v)
	}
	l.n, l.set = n, true
	return nil
}
