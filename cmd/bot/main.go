// Command bot is Switchboard: a Slack and Discord bot that answers a team's
// questions from the right place. Its binary is named switchboard
// (scripts/build.sh, the Dockerfile), never bot, which would collide with
// the repository's bot/ folder. Subcommands:
//
//	switchboard serve                                   answer in Slack and Discord
//	switchboard ask [--json] [--thread NAME] QUESTION   answer one question
//	switchboard chat                                    a console conversation
//	switchboard ingest PATH...                          load documents
//	switchboard ingest slack|discord --channel ID       load a chat channel's history
//	switchboard graph import NODES.csv EDGES.csv        load a knowledge graph
//	switchboard migrate                                 apply database migrations
//	switchboard channels set|show [CHANNEL] [flags]     per-channel settings
//	switchboard eval [flags] CASES.jsonl                score answers on a set of cases
//	switchboard config [--docs]                         the settings in effect, or what each means
//	switchboard version                                 print the build
//	switchboard healthcheck                             exit 0 if the local switchboard serve is alive
//
// All wiring and configuration live in this package; nothing below cmd/
// reads the environment.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=... -X main.date=...".
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	err := m.Run(ctx, os.Args[1:])
	stop()
	if err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, "switchboard:", err)
		}
		os.Exit(exitCode(err))
	}
}

// Main is the program, separated from os so that tests run it end to end.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string

	// listening, if set, is told the address `serve` listens on once it
	// takes events, its platforms connected (tests use
	// HTTP_ADDR=127.0.0.1:0); healthUp, as soon as the health checks
	// answer there, before the platforms connect.
	listening, healthUp func(addr string)
	// now and terminal, if set, replace the clock and make progress be
	// drawn as on a terminal (tests); sleep, if set, replaces the timers
	// of the App's waits (see Clock) and of the chat platforms' retries.
	now      func() time.Time
	sleep    func(ctx context.Context, d time.Duration) error
	terminal bool
}

// appClock is the Clock the App runs on.
func (m *Main) appClock() Clock { return Clock{Now: m.now, Sleep: m.sleep} }

// errUsage marks errors whose message was already printed with the usage;
// errHelp, a request for help that was answered.
var (
	errUsage = errors.New("usage")
	errHelp  = errors.New("help")
)

func exitCode(err error) int {
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

const usage = `Switchboard answers questions from your documents, knowledge graph and the web.

Usage:
  switchboard serve                                   answer in Slack and Discord (see README: Slack set-up, Discord set-up)
  switchboard ask [--json] [--thread NAME] QUESTION   answer one question
  switchboard chat [--thread NAME]                    a console conversation with follow-ups
  switchboard ingest PATH...                          load Markdown, text, HTML and PDF files and folders
  switchboard ingest slack --channel ID [--since DAY] load a Slack channel's history (again: only what is new)
  switchboard ingest discord --channel ID [--since DAY]  the same for a Discord channel and its threads
  switchboard graph import NODES.csv EDGES.csv        load a knowledge graph (see examples/graph)
  switchboard migrate                                 apply the database migrations (also done at start-up)
  switchboard channels set CHANNEL [flags]            a channel's sources, replies, privacy and experts (README: Channel settings)
  switchboard channels show [CHANNEL]                 every channel's settings and who changed them; a channel's changes
  switchboard eval [flags] CASES.jsonl                score answers on a set of cases (switchboard eval -h; eval/doc.go)
  switchboard eval export-feedback [--out FILE]       write the 👍/👎 votes from chat as eval cases
  switchboard eval export [--out FILE]                those and the replies saved as answers, as eval cases
  switchboard config [--docs]                         the settings in effect and their source (--docs: what each means)
  switchboard version                                 print the version
  switchboard healthcheck                             exit 0 if the local 'switchboard serve' answers /healthz

With nothing configured, Switchboard uses an embedded store and an offline
engine, and ask and chat answer from a demo knowledge base (a fictional company)
until you ingest your own; serve never answers from the demo unless
SWITCHBOARD_DEMO=true. Set OPENAI_API_KEY (or OPENAI_BASE_URL) for a model and
TAVILY_API_KEY for web search; 'switchboard config' shows every setting.
`

// Run executes one subcommand.
func (m *Main) Run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(m.Stderr, usage)
		return errUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "version", "--version", "-v":
		fmt.Fprintf(m.Stdout, "switchboard %s (commit %s, built %s)\n", version, commit, date)
		return nil
	case "config":
		return m.config(rest)
	case "eval":
		// Before Open: eval wires its own stores (a temporary one by default).
		return m.eval(ctx, rest)
	case "healthcheck":
		// Before Open: a health probe must not connect to the stores.
		if len(rest) > 0 {
			return m.noArguments(cmd, rest)
		}
		return m.healthcheck(ctx, rest)
	case "help", "-h", "--help":
		fmt.Fprint(m.Stdout, usage)
		return nil
	}
	run, ok := map[string]func(context.Context, *App, []string) error{
		"ask":      m.ask,
		"chat":     m.chat,
		"ingest":   m.ingestAny,
		"graph":    m.graph,
		"migrate":  m.migrate,
		"serve":    m.serve,
		"channels": m.channelsCmd,
	}[cmd]
	if !ok {
		fmt.Fprintf(m.Stderr, "switchboard: unknown command %q%s\n\n%s", cmd, didYouMean(cmd, commands), usage)
		return errUsage
	}
	if (cmd == "serve" || cmd == "migrate") && len(rest) > 0 {
		// Before Open: a mistyped flag needs no database.
		return m.noArguments(cmd, rest)
	}
	cfg, err := LoadConfig(m.Getenv)
	if err != nil {
		return err
	}
	// From here on Demo says whether this command uses the demo: "true"
	// or "false" (Config.DemoFor, demo.go).
	cfg.Demo = strconv.FormatBool(cfg.DemoFor(cmd))
	app, err := Open(ctx, cfg, m.Stderr, m.appClock())
	if err != nil {
		return err
	}
	defer app.Close()
	if err := run(ctx, app, rest); !errors.Is(err, errHelp) {
		return err
	}
	return nil
}

// commands are the subcommands, for "did you mean".
var commands = []string{"serve", "ask", "chat", "ingest", "graph", "migrate", "channels", "eval", "config", "version", "healthcheck", "help"}

// noArgSettings says, for the commands that take no flags or arguments,
// which settings (environment variables, by prefix) configure them.
var noArgSettings = map[string][]string{
	"serve":       {"HTTP_ADDR", "SLACK_", "DISCORD_", "SWITCHBOARD_DEMO", "MAX_CONCURRENT_QUESTIONS", "MAX_QUEUED_QUESTIONS", "ANSWER_TIMEOUT", "SHUTDOWN_TIMEOUT"},
	"migrate":     {"DATABASE_URL", "NEO4J_URI", "SWITCHBOARD_DATA_DIR"},
	"healthcheck": {"HTTP_ADDR"},
}

// noArguments answers `switchboard serve --bogus`: what was wrong, that the command
// takes no flags, and the settings that configure it instead.
func (m *Main) noArguments(cmd string, args []string) error {
	what := "argument"
	if strings.HasPrefix(args[0], "-") {
		what = "flag"
	}
	fmt.Fprintf(m.Stderr, "switchboard %s: unknown %s %s\nUsage: switchboard %s\n\n", cmd, what, args[0], cmd)
	fmt.Fprintf(m.Stderr, "switchboard %s takes no flags or arguments: it is configured by environment variables (switchboard config shows the values in effect), among them:\n", cmd)
	for _, s := range settingsDocs() {
		for _, p := range noArgSettings[cmd] {
			if s.name == p || (strings.HasSuffix(p, "_") && strings.HasPrefix(s.name, p)) {
				fmt.Fprintf(m.Stderr, "  %s\n    \t%s\n", s.name, s.help)
				break
			}
		}
	}
	return errUsage
}

// newFlags returns a FlagSet that prints its errors to m.Stderr.
func (m *Main) newFlags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(m.Stderr, "Usage: switchboard %s\n", synopsis)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 && !strings.HasSuffix(synopsis, "Flags:") {
			fmt.Fprintln(m.Stderr, "\nFlags:")
		}
		fs.PrintDefaults()
	}
	return fs
}

// parse parses fs, turning flag errors into errUsage (already printed):
// the flag that was wrong, the nearest defined flag if one is close, then
// the command's usage with every flag and its help.
func parse(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard) // the flag package's own message is replaced below
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		usage()
		return errHelp
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg = "unknown flag --" + name
		if s := nearest(name, names); s != "" {
			msg += " (did you mean --" + s + "?)"
		}
	}
	fmt.Fprintf(out, "switchboard %s: %s\n", fs.Name(), msg)
	usage()
	return errUsage
}

// didYouMean is " (did you mean \"x\"?)" for the candidate nearest to s,
// or "" when none is close.
func didYouMean(s string, candidates []string) string {
	if c := nearest(s, candidates); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// nearest returns the candidate at the smallest edit distance from s, if
// that distance is small: at most 2, and less than half the candidate's
// length, so that short words do not match everything.
func nearest(s string, candidates []string) string {
	s = strings.ToLower(s)
	best, bestD := "", 3
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted) // ties go to the first in order, whatever the caller's order
	for _, c := range sorted {
		d := editDistance(s, c)
		if d < bestD && 2*d < len([]rune(c)) {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of adjacent letters that
// turn one into the other ("ingset" → "ingest" is 1).
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
