package console_test

import (
	"bytes"
	"github.com/switchboard/switchboard/bot"
	"path/filepath"
	"strings"
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
				console.Print(&b, v.Final(), nil, "")
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

// streamed runs a question's events through a Progress on a terminal that
// streams to the same terminal, and prints final after it, as `switchboard chat`
// does; it returns the screen's bytes.
func streamed(events []agent.Event, final string) string {
	var screen bytes.Buffer
	p := console.NewProgress(&screen, true)
	p.StreamTo(&screen)
	for _, e := range events {
		p.Emit(e)
	}
	p.Done()
	console.Print(&screen, bot.Final{Answer: final, Place: "company documents",
		Badge: bot.Badge{Emoji: "🟢", Text: "High confidence"}}, nil, p.Streamed())
	return screen.String()
}

// On a terminal the answer is written as it comes, on its own lines: the
// progress line is cleared before it and starts on a line after it, and
// an answer the check left as it was is not written twice.
func TestDraftStreamsOnATerminal(t *testing.T) {
	const answer = "Full refund within 30 days [1]."
	got := streamed([]agent.Event{
		{Kind: agent.EventGenerating},
		{Kind: agent.EventDrafting, Text: "Full refund"},
		{Kind: agent.EventDrafting, Text: answer},
		{Kind: agent.EventChecking},
	}, answer)
	want := "\r\033[K  Writing the answer…\r\033[K\nFull refund within 30 days [1].\n\r\033[K  Checking it against the sources…\r\033[K\n" +
		"Answered from company documents\n🟢 High confidence\n"
	if got != want {
		t.Errorf("screen:\n%q\nwant:\n%q", got, want)
	}
}

// An answer that differs from the draft written (rewritten after the
// check, or a draft the generator took back) is printed whole, said to be
// the checked one; a regeneration's draft says it is one.
func TestDraftThatChangedIsFollowedByTheAnswer(t *testing.T) {
	got := streamed([]agent.Event{
		{Kind: agent.EventDrafting, Text: "Refunds for a year"},
		{Kind: agent.EventChecking},
		{Kind: agent.EventRegenerating, Attempt: 1, Max: 2},
		{Kind: agent.EventDrafting, Attempt: 1, Text: "Refunds within 30 days"},
		{Kind: agent.EventDrafting, Attempt: 1, Text: "Refunds in 30 days [1]."}, // takes back what was written
	}, "Refunds in 30 days [1].")
	for _, want := range []string{"\nRefunds for a year\n", "(rewritten to keep to the sources)\nRefunds within 30 days\n",
		"After the check, the answer reads:\nRefunds in 30 days [1].\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen %q lacks %q", got, want)
		}
	}
}
