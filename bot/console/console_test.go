package console_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot/console"
	"github.com/switchboard/switchboard/bot/viewtest"
)

// TestWords is the golden of the words: what people read of each view,
// as the terminal shows it. The Slack and Discord goldens check the shape.
func TestWords(t *testing.T) {
	for _, c := range viewtest.Views() {
		t.Run(c.Name, func(t *testing.T) {
			var b bytes.Buffer
			v := c.View
			switch {
			case !v.Done:
				b.WriteString(v.Progress + "\n")
			case v.Result == nil:
				b.WriteString(v.Failed + "\n")
			default:
				console.Print(&b, v.Final(), nil)
			}
			viewtest.Golden(t, filepath.Join("testdata", "words", c.Name+".txt"), b.Bytes())
		})
	}
}

func TestProgressReplacesItselfOnATerminal(t *testing.T) {
	var tty, pipe bytes.Buffer
	for _, w := range []struct {
		b   *bytes.Buffer
		tty bool
	}{{&tty, true}, {&pipe, false}} {
		p := console.NewProgress(w.b, w.tty)
		p.Emit(agent.Event{Kind: agent.EventRouted, Route: agent.RouteVector})
		p.Emit(agent.Event{Kind: agent.EventRouted, Route: agent.RouteVector}) // same line: not shown again
		p.Emit(agent.Event{Kind: agent.EventDegraded, Reason: "the language model isn't answering", Detail: "dial tcp 10.0.0.1:8080: connection refused"})
		p.Emit(agent.Event{Kind: agent.EventRetrieved}) // no line of its own
		p.Done()
		if got := p.Details(); len(got) != 1 || got[0] != "dial tcp 10.0.0.1:8080: connection refused" {
			t.Errorf("details = %q", got)
		}
	}
	if want := "\r\033[K  Searching company documents…\r\033[K  The language model isn't answering — carrying on offline…\r\033[K"; tty.String() != want {
		t.Errorf("terminal got %q, want %q", tty.String(), want)
	}
	if want := "  · Searching company documents…\n  · The language model isn't answering — carrying on offline…\n"; pipe.String() != want {
		t.Errorf("pipe got %q, want %q", pipe.String(), want)
	}
}
