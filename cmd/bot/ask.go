package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/console"
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
	if *asJSON {
		details := console.NewProgress(io.Discard, false) // only the details
		res, err := app.Agent.Ask(ctx, q, bot.Follow(details.Show))
		if err != nil {
			return userError(err)
		}
		return writeJSON(m.Stdout, res, details.Details())
	}
	p := m.progress(m.Stderr)
	res, err := app.Agent.Ask(ctx, q, bot.Follow(p.Show))
	p.Done()
	if err != nil {
		return userError(err)
	}
	m.printAnswer(p, q.Text, res)
	return nil
}

// progress shows a run's progress on w and, on a terminal, its answer on
// standard output as it is written.
func (m *Main) progress(w io.Writer) *console.Progress {
	p := console.NewProgress(w, console.IsTerminal(w))
	if console.IsTerminal(m.Stdout) {
		p.StreamTo(m.Stdout) // people read the answer as it is written
	}
	return p
}

// printAnswer prints what people read of res, the answer to question,
// after what p showed of the run.
func (m *Main) printAnswer(p *console.Progress, question string, res agent.Result) {
	final := bot.Present(question, res)
	p.Settle(final.Answer) // a draft the check rewrote gives way to the answer
	console.Print(m.Stdout, final, p.Details(), p.Streamed())
}

// jsonResult is the --json shape promised by docs/usage.md.
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
	// Details are what went wrong on the way (a server's error, a setting
	// to set), which chat shows the asker privately.
	Details []string `json:"details,omitempty"`
}

type jsonSource struct {
	N        int    `json:"n"`
	Title    string `json:"title"`
	Location string `json:"location"`
	Snippet  string `json:"snippet"`
	Section  string `json:"section,omitempty"`
	URL      string `json:"url,omitempty"`
}

func writeJSON(w io.Writer, r agent.Result, details []string) error {
	out := jsonResult{
		Route: string(r.Route), RouteReason: r.RouteReason, Rewrites: r.Rewrites, Answer: r.Answer,
		Sources: []jsonSource{}, Confidence: string(r.Confidence), Offline: r.Offline, LLMCalls: r.LLMCalls,
		Question: r.Question, Regenerations: r.Regenerations, Unsupported: r.Unsupported,
		OfflineReason: r.OfflineReason, Tokens: r.Tokens, Details: details,
	}
	if r.Standalone != r.Question {
		out.Standalone = r.Standalone
	}
	for _, s := range r.Sources {
		out.Sources = append(out.Sources, jsonSource{s.N, s.Title, s.Location, s.Snippet, s.Section, s.URL})
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
