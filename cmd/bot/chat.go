package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
)

// chat is a console conversation: every question goes to the same thread,
// so follow-ups are understood. Empty input is ignored; "exit" or EOF ends.
func (m *Main) chat(ctx context.Context, app *App, args []string) error {
	fs := m.newFlags("chat", "chat [--thread NAME]")
	thread := fs.String("thread", "", "continue the stored conversation NAME (default: a new one)")
	if err := parse(fs, args); err != nil {
		return err
	}
	id := *thread
	if id == "" {
		id = "console-" + time.Now().UTC().Format("20060102-150405")
	}
	fmt.Fprintf(m.Stdout, "Switchboard (thread %s). Ask a question; \"exit\" or Ctrl-D ends.\n", id)
	p := m.progress(m.Stdout)
	in := bufio.NewScanner(m.Stdin)
	in.Buffer(make([]byte, 64*1024), 1024*1024) // long pasted questions get the agent's message, not a scanner error
	for {
		fmt.Fprint(m.Stdout, "\n> ")
		if !in.Scan() {
			fmt.Fprintln(m.Stdout)
			return in.Err()
		}
		text := strings.TrimSpace(in.Text())
		switch text {
		case "":
			continue
		case "exit", "quit":
			return nil
		}
		p.Reset()
		res, err := app.Agent.Ask(ctx, agent.Question{ThreadID: "cli:" + id, Text: text}, bot.Follow(p.Show))
		p.Done()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			fmt.Fprintln(m.Stdout, "!", userError(err))
			continue
		}
		m.printAnswer(p, text, res)
	}
}
