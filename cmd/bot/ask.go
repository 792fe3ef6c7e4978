package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/text"
)

// ask answers one question and prints the route, progress, answer, sources
// and badge, or one JSON object with --json.
func (m *Main) ask(ctx context.Context, app *App, args []string) error {
	fs := m.newFlags("ask", "ask [--json] [--thread NAME] QUESTION")
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	thread := fs.String("thread", "", "continue the stored conversation NAME (follow-ups use its history)")
	if err := parse(fs, args); err != nil {
		return err
	}
	q := agent.Question{Text: strings.Join(fs.Args(), " ")}
	if *thread != "" {
		q.ThreadID = "cli:" + *thread
	}
	var emit agent.Emitter
	if !*asJSON {
		emit = progressPrinter(m.Stderr)
	}
	res, err := app.Agent.Ask(ctx, q, emit)
	if err != nil {
		return userError(err)
	}
	if *asJSON {
		return writeJSON(m.Stdout, res)
	}
	printResult(m.Stdout, res)
	return nil
}

// progressPrinter prints each visible event as a dim progress line.
func progressPrinter(w io.Writer) agent.Emitter {
	return func(e agent.Event) {
		if line, ok := bot.Status(e); ok {
			fmt.Fprintln(w, "  ·", line)
		}
	}
}

// printResult writes the finished answer for a terminal.
func printResult(w io.Writer, r agent.Result) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, r.Answer)
	fmt.Fprintln(w)
	if len(r.Sources) > 0 {
		fmt.Fprintln(w, "Sources:")
		for _, s := range r.Sources {
			fmt.Fprintf(w, "  [%d] %s — %s\n", s.N, s.Title, text.OneLine(s.Location)) // a Cypher query spans lines
		}
		fmt.Fprintln(w)
	}
	if r.Confidence == agent.ConfidenceLow && len(r.Unsupported) > 0 {
		fmt.Fprintln(w, "Not supported by the sources:")
		for _, u := range r.Unsupported {
			fmt.Fprintln(w, "  -", u)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, bot.RouteLine(r))
	fmt.Fprintln(w, bot.Badge(r))
	if r.Offline && r.OfflineReason != "" {
		fmt.Fprintln(w, "Offline because", r.OfflineReason+".")
	}
}

// jsonResult is the --json shape promised by the README.
type jsonResult struct {
	Route       string       `json:"route"`
	RouteReason string       `json:"route_reason"`
	Rewrites    int          `json:"rewrites"`
	Answer      string       `json:"answer"`
	Sources     []jsonSource `json:"sources"`
	Confidence  string       `json:"confidence"`
	Offline     bool         `json:"offline"`
	LLMCalls    int          `json:"llm_calls"`
	Trace       []string     `json:"trace"`
	// Beyond the promised fields, what helps a script judge the answer.
	Question      string   `json:"question"`
	Standalone    string   `json:"standalone_question,omitempty"`
	Regenerations int      `json:"regenerations"`
	Unsupported   []string `json:"unsupported,omitempty"`
	OfflineReason string   `json:"offline_reason,omitempty"`
	Tokens        int      `json:"tokens"`
}

type jsonSource struct {
	N        int    `json:"n"`
	Title    string `json:"title"`
	Location string `json:"location"`
	Snippet  string `json:"snippet"`
}

func writeJSON(w io.Writer, r agent.Result) error {
	out := jsonResult{
		Route: string(r.Route), RouteReason: r.RouteReason, Rewrites: r.Rewrites, Answer: r.Answer,
		Sources: []jsonSource{}, Confidence: string(r.Confidence), Offline: r.Offline, LLMCalls: r.LLMCalls,
		Question: r.Question, Regenerations: r.Regenerations, Unsupported: r.Unsupported,
		OfflineReason: r.OfflineReason, Tokens: r.Tokens,
	}
	if r.Standalone != r.Question {
		out.Standalone = r.Standalone
	}
	for _, s := range r.Sources {
		out.Sources = append(out.Sources, jsonSource{s.N, s.Title, s.Location, s.Snippet})
	}
	for _, s := range r.Trace {
		out.Trace = append(out.Trace, string(s))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// userError turns an agent error into one line for the terminal: the
// message for bad questions, the full error otherwise (it is the user's own
// terminal, so details help).
func userError(err error) error {
	if agent.ErrorCode(err) == agent.EINVALID {
		return fmt.Errorf("%s", agent.ErrorMessage(err))
	}
	return err
}
