// Command bot is Switchboard: a Slack and Discord bot that answers a team's
// questions from the right place. Subcommands:
//
//	bot serve                                   answer in Slack and Discord
//	bot ask [--json] [--thread NAME] QUESTION   answer one question
//	bot chat                                    a console conversation
//	bot ingest PATH...                          load documents
//	bot ingest slack|discord --channel ID       load a chat channel's history
//	bot graph import NODES.csv EDGES.csv        load a knowledge graph
//	bot migrate                                 apply database migrations
//	bot eval [flags] CASES.jsonl                score answers on a set of cases
//	bot bench [--quick]                         run the benchmarks
//	bot version                                 print the build
//	bot healthcheck                             exit 0 if the local bot serve is alive
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
	"syscall"
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
			fmt.Fprintln(os.Stderr, "bot:", err)
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

	// listening, if set, is told the address `serve` listens on (tests use
	// HTTP_ADDR=127.0.0.1:0).
	listening func(addr string)
}

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
  bot serve                                   answer in Slack and Discord (see README: Slack, Discord)
  bot ask [--json] [--thread NAME] QUESTION   answer one question
  bot chat [--thread NAME]                    a console conversation with follow-ups
  bot ingest PATH...                          load Markdown, text, HTML and PDF files and folders
  bot ingest slack --channel ID [--since DAY] load a Slack channel's history (again: only what is new)
  bot ingest discord --channel ID [--since DAY]  the same for a Discord channel and its threads
  bot graph import NODES.csv EDGES.csv        load a knowledge graph (see examples/graph)
  bot migrate                                 apply the database migrations (also done at start-up)
  bot eval [flags] CASES.jsonl                score answers on a set of cases (bot eval -h; eval/doc.go)
  bot eval export-feedback [--out FILE]       write the 👍/👎 votes from chat as eval cases
  bot bench [--quick]                         run the benchmarks, write bench/results.json (needs Go)
  bot config                                  list the settings (environment variables)
  bot version                                 print the version
  bot healthcheck                             exit 0 if the local 'bot serve' answers /healthz

With nothing configured, Switchboard uses an embedded store, a demo knowledge
base and an offline engine. Set OPENAI_API_KEY (or OPENAI_BASE_URL) for a model
and TAVILY_API_KEY for web search; 'bot config' lists every setting.
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
		return m.printConfig()
	case "eval":
		// Before Open: eval wires its own stores (a temporary one by default).
		return m.eval(ctx, rest)
	case "bench":
		return m.bench(ctx, rest)
	case "healthcheck":
		// Before Open: a health probe must not connect to the stores.
		return m.healthcheck(ctx, rest)
	case "help", "-h", "--help":
		fmt.Fprint(m.Stdout, usage)
		return nil
	}
	run, ok := map[string]func(context.Context, *App, []string) error{
		"ask":     m.ask,
		"chat":    m.chat,
		"ingest":  m.ingestAny,
		"graph":   m.graph,
		"migrate": m.migrate,
		"serve":   m.serve,
	}[cmd]
	if !ok {
		fmt.Fprintf(m.Stderr, "bot: unknown command %q\n\n%s", cmd, usage)
		return errUsage
	}
	cfg, err := LoadConfig(m.Getenv)
	if err != nil {
		return err
	}
	app, err := Open(ctx, cfg, m.Stderr)
	if err != nil {
		return err
	}
	defer app.Close()
	if err := run(ctx, app, rest); !errors.Is(err, errHelp) {
		return err
	}
	return nil
}

// newFlags returns a FlagSet that prints its errors to m.Stderr.
func (m *Main) newFlags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(m.Stderr, "Usage: bot %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses fs, turning flag errors into errUsage (already printed).
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return errUsage
	}
	return nil
}
