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
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/ingest"
)

const evalSynopsis = `eval [flags] CASES.jsonl
       switchboard eval --corpus DIR [--corpus DIR…] [--split NAME] [flags]
       switchboard eval export-feedback [--out FILE]
       switchboard eval export [--out FILE]

Runs every case of CASES.jsonl through the agent and scores the route, the
answer and the sources (the format is described in eval/doc.go), and how
far each confidence badge can be trusted: for each badge, how many of its
answers were right, and how many answers were confidently wrong (a high
badge on a wrong answer, or a high or medium badge on an answer where none
exists; see eval/doc.go). The
knowledge base is loaded into a fresh temporary store with the normal ingest
and graph import; the model and web search come from the usual settings, so
with none configured this measures the offline engine.

With --corpus, each corpus folder (laid out as eval/corpora/NAME: documents
in DIR/docs, cases in DIR/frozen.jsonl, or DIR/NAME.jsonl with --split) is
evaluated on its own documents in a store of its own, and a table gives one
row per corpus: route accuracy, right answers, right answers shown hedged,
the precision of the high and medium badges, those badges on answers where
none exists, and the confidently wrong. Thresholds hold for every corpus.

  switchboard eval --kb examples eval/demo.jsonl
  switchboard eval --docs ../shared/eval-data/handbook --northwind ../shared/eval-data/northwind eval/handbook-northwind.jsonl
  switchboard eval --kb examples --max-confidently-wrong 0 eval/heldout-demo.jsonl
  switchboard eval --corpus eval/corpora/go-docs --corpus eval/corpora/pagerduty-ir --corpus eval/corpora/18f-handbook

export-feedback writes the 👍/👎 votes people gave in chat as cases;
export writes those and the replies people saved as answers ("Save as
answer"): the question, words of the reply the answer must contain, and
the saved reply to cite.

Flags:`

// eval scores the agent on a set of cases. It wires its own App: a
// temporary embedded store unless --use-configured-stores, never the demo.
func (m *Main) eval(ctx context.Context, args []string) error {
	var err error
	switch {
	case len(args) > 0 && args[0] == "export-feedback":
		err = m.exportFeedback(ctx, args[1:], false)
	case len(args) > 0 && args[0] == "export":
		err = m.exportFeedback(ctx, args[1:], true)
	default:
		err = m.evalCases(ctx, args)
	}
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

// evalSet is one evaluation: the cases of a file, asked of an App loaded
// with a knowledge base.
type evalSet struct {
	file                string
	docs                []string
	nodes, edges, nwDir string
	configured          bool // the configured stores, not a temporary one
	parallel            int
}

// evalCases is `switchboard eval [flags] CASES.jsonl` and `switchboard eval --corpus DIR…`.
func (m *Main) evalCases(ctx context.Context, args []string) error {
	fs := m.newFlags("eval", evalSynopsis)
	kbDir := fs.String("kb", "", "knowledge base `DIR`: documents in DIR/docs (or DIR), graph in DIR/graph/nodes.csv and edges.csv")
	var docs, corpora multiFlag
	fs.Var(&docs, "docs", "documents to ingest: a file or `folder` (repeatable)")
	fs.Var(&corpora, "corpus", "corpus `DIR` laid out as eval/corpora/NAME, evaluated in a store of its own; one table row each (repeatable)")
	split := fs.String("split", "", "with --corpus: the set of each corpus to run, DIR/`NAME`.jsonl (default frozen; dev for the development split)")
	details := fs.Bool("details", false, "with --corpus: print each corpus's full report before the table")
	nodes := fs.String("nodes", "", "graph nodes `CSV` to import (with --edges, instead of the graph of --kb)")
	edges := fs.String("edges", "", "graph edges `CSV` to import")
	nwDir := fs.String("northwind", "", "`folder` of the Northwind CSVs, converted to a graph and imported")
	configured := fs.Bool("use-configured-stores", false, "use DATABASE_URL, NEO4J_URI or SWITCHBOARD_DATA_DIR as configured instead of a temporary store (a knowledge base given is loaded into them)")
	parallel := fs.Int("parallel", 4, "cases answered at once (at most OPENAI_MAX_CONCURRENT with a model, when that is set)")
	asJSON := fs.Bool("json", false, "print one JSON object: the summary and every case (with --corpus, {\"corpora\": [...]}, one such report each)")
	var minRoute, minAnswer fraction
	fs.Var(&minRoute, "min-route-accuracy", "fail unless route accuracy reaches this `fraction` (0.9 or 90%)")
	fs.Var(&minAnswer, "min-answer-rate", "fail unless the answer hit-rate reaches this `fraction` (0.8 or 80%)")
	var maxWrong limit
	fs.Var(&maxWrong, "max-confidently-wrong", "fail when more than `N` answers are confidently wrong (0: none may be)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *parallel < 1 || *parallel > 64 {
		return fmt.Errorf("--parallel %d: use 1 to 64", *parallel)
	}
	th := eval.Thresholds{MinRouteAccuracy: float64(minRoute), MinAnswerRate: float64(minAnswer)}
	if maxWrong.set {
		th.MaxConfidentlyWrong = &maxWrong.n
	}
	if len(corpora) > 0 {
		if len(pos) > 0 || *kbDir != "" || len(docs) > 0 || *nodes != "" || *edges != "" || *nwDir != "" || *configured {
			return errors.New("--corpus reads each corpus's documents and cases from its folder: give no CASES.jsonl, --kb, --docs, --nodes, --edges, --northwind or --use-configured-stores with it")
		}
		return m.evalCorpora(ctx, corpora, *split, *details, *asJSON, *parallel, th)
	}
	if *split != "" || *details {
		return errors.New("--split goes with --corpus, and so does --details")
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	set := evalSet{file: pos[0], docs: docs, nodes: *nodes, edges: *edges, nwDir: *nwDir, configured: *configured, parallel: *parallel}
	if *kbDir != "" {
		kdocs, knodes, kedges, err := kbLayout(*kbDir)
		if err != nil {
			return err
		}
		set.docs = append(set.docs, kdocs...)
		if set.nodes == "" && set.edges == "" {
			set.nodes, set.edges = knodes, kedges
		}
	}
	if !set.configured && len(set.docs) == 0 && set.nodes == "" && set.edges == "" && set.nwDir == "" {
		return fmt.Errorf("no knowledge base: give --kb, --docs, --nodes/--edges or --northwind (or --use-configured-stores to evaluate what the configured stores hold)")
	}

	outcomes, bad, err := m.runSet(ctx, set)
	if err != nil {
		return err
	}
	sum := eval.Summarize(outcomes)
	if *asJSON {
		err = eval.WriteJSON(m.Stdout, sum, outcomes)
	} else {
		err = eval.WriteText(m.Stdout, sum, outcomes)
	}
	if err != nil {
		return err
	}
	if err := th.Check(sum); err != nil {
		return err
	}
	return badLines(set.file, bad)
}

// evalCorpora is `bot eval --corpus DIR…`: each corpus's set on its own
// documents, in a store of its own, and one table row per corpus. Every
// folder and set is checked before the first corpus runs, so that a typo
// does not wait for the corpora before it.
func (m *Main) evalCorpora(ctx context.Context, dirs []string, split string, details, asJSON bool, parallel int, th eval.Thresholds) error {
	if split == "" {
		split = "frozen"
	}
	if strings.ContainsAny(split, `/\`) || split == "." || split == ".." {
		return fmt.Errorf("--split %q: give the name of a set, such as frozen or dev", split)
	}
	sets := make([]evalSet, len(dirs))
	for i, dir := range dirs {
		if !isDir(dir) {
			return fmt.Errorf("--corpus %s: not a folder", dir)
		}
		kdocs, knodes, kedges, err := kbLayout(dir)
		if err != nil {
			return err
		}
		if !isDir(filepath.Join(dir, "docs")) {
			return fmt.Errorf("--corpus %s: no docs/ folder of documents", dir)
		}
		file := filepath.Join(dir, split+".jsonl")
		if !isFile(file) {
			return fmt.Errorf("--corpus %s: no set %s", dir, file)
		}
		sets[i] = evalSet{file: file, docs: kdocs, nodes: knodes, edges: kedges, parallel: parallel}
	}
	reports := make([]eval.CorpusReport, 0, len(sets))
	var failed, bad []string
	for i, set := range sets {
		name := filepath.Base(filepath.Clean(dirs[i]))
		outcomes, badCases, err := m.runSet(ctx, set)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		sum := eval.Summarize(outcomes)
		if details && !asJSON {
			fmt.Fprintf(m.Stdout, "== %s (%s) ==\n", name, set.file)
			if err := eval.WriteText(m.Stdout, sum, outcomes); err != nil {
				return err
			}
			fmt.Fprintln(m.Stdout)
		}
		reports = append(reports, eval.CorpusReport{Corpus: name, File: set.file, Report: eval.NewReport(sum, outcomes)})
		if err := th.Check(sum); err != nil {
			failed = append(failed, name+": "+strings.TrimPrefix(err.Error(), eval.ErrThreshold.Error()+": "))
		}
		if err := badLines(set.file, badCases); err != nil {
			bad = append(bad, err.Error())
		}
	}
	var err error
	if asJSON {
		err = eval.WriteCorporaJSON(m.Stdout, reports)
	} else {
		err = eval.WriteCorpusTable(m.Stdout, reports)
	}
	switch {
	case err != nil:
		return err
	case len(failed) > 0:
		return fmt.Errorf("%w: %s", eval.ErrThreshold, strings.Join(failed, "; "))
	case len(bad) > 0:
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// runSet reads set's cases (a broken file should not wait for an ingest),
// loads its knowledge base into a fresh App and asks every case, reporting
// progress on stderr. The lines that are not valid cases are printed and
// returned; a file without any valid case is an error.
func (m *Main) runSet(ctx context.Context, set evalSet) ([]eval.Outcome, []eval.LineError, error) {
	cases, bad, err := eval.ReadFile(set.file)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range bad {
		fmt.Fprintf(m.Stderr, "%s %v\n", set.file, e)
	}
	if len(cases) == 0 {
		return nil, bad, fmt.Errorf("%s holds no valid case", set.file)
	}

	app, closeApp, err := m.openForEval(ctx, set.configured)
	if err != nil {
		return nil, bad, err
	}
	defer closeApp()
	if err := m.loadKB(ctx, app, set.docs, set.nodes, set.edges, set.nwDir); err != nil {
		return nil, bad, err
	}

	engine, parallel := "offline engine", set.parallel
	if app.Model != nil {
		engine = "model " + app.Config.ChatModel
		// Cases beyond what the server takes at once would only wait in
		// the client, each with its answer timeout running.
		if n := app.Config.ModelConcurrent; n > 0 && parallel > n {
			parallel = n
		}
	}
	fmt.Fprintf(m.Stderr, "Evaluating %d cases of %s (%s, %d at a time)…\n", len(cases), set.file, engine, parallel)
	start := time.Now()
	// A line at every tenth of the set: a run with a model takes minutes.
	progress := func(done, total int) {
		if done*10/total != (done-1)*10/total {
			fmt.Fprintf(m.Stderr, "  %d of %d cases done\n", done, total)
		}
	}
	outcomes, err := eval.Run(ctx, app.Agent, cases, eval.Options{Parallel: parallel, Timeout: app.Config.AnswerTimeout, Done: progress})
	if err != nil {
		return nil, bad, err
	}
	fmt.Fprintf(m.Stderr, "Done in %s.\n\n", time.Since(start).Round(10*time.Millisecond))
	return outcomes, bad, nil
}

// badLines is the error of a run whose file had lines that are not valid
// cases (printed as they were read), or nil.
func badLines(file string, bad []eval.LineError) error {
	switch len(bad) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("1 line of %s is not a valid case (see above); the other cases were evaluated", file)
	}
	return fmt.Errorf("%d lines of %s are not valid cases (see above); the other cases were evaluated", len(bad), file)
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
	if app, err = Open(ctx, cfg, m.Stderr, m.appClock()); err != nil {
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
// eval cases (see eval.FromVotes for what a vote becomes) and, with
// human, the replies saved as answers (eval.FromHumanAnswers).
func (m *Main) exportFeedback(ctx context.Context, args []string, human bool) error {
	name := "export-feedback"
	if human {
		name = "export"
	}
	fs := m.newFlags("eval "+name, "eval "+name+" [--out FILE]")
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
	app, err := Open(ctx, cfg, m.Stderr, m.appClock())
	if err != nil {
		return err
	}
	defer app.Close()
	votes, err := app.Feedback.Votes(ctx)
	if err != nil {
		return err
	}
	cases, notes := eval.FromVotes(votes)
	var saved []feedback.Answer
	if human {
		if saved, err = app.Feedback.HumanAnswers(ctx); err != nil {
			return err
		}
		more, moreNotes := eval.FromHumanAnswers(saved)
		cases, notes = append(cases, more...), append(notes, moreNotes...)
	}
	for _, n := range notes {
		fmt.Fprintln(m.Stderr, "note:", n)
	}
	if *out == "" {
		err = writeCases(m.Stdout, cases)
	} else {
		err = writeCasesFile(*out, cases)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if human {
		fmt.Fprintf(m.Stderr, "Exported %d cases from %d votes and %d saved answers.\n", len(cases), len(votes), len(saved))
		return nil
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
