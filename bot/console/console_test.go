package console_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
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
			case v.Final == nil:
				b.WriteString(v.Failed + "\n")
			default:
				console.Print(&b, *v.Final, nil, "")
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
// streams to the same terminal, and prints final after it, as `switchboard
// chat` does; it returns the screen's bytes. size, if given, is the
// terminal's (cols, rows); else its size is not known.
func streamed(events []agent.Event, final string, size ...int) string {
	var screen bytes.Buffer
	p := console.NewProgress(&screen, true)
	p.StreamTo(&screen)
	if len(size) == 2 {
		console.SetScreen(p, size[0], size[1])
	}
	for _, e := range events {
		p.Emit(e)
	}
	p.Done()
	p.Settle(final)
	console.Print(&screen, bot.Final{Answer: final, Place: "company documents",
		Badge: bot.Badge{Emoji: "🟢", Text: "High confidence"}}, nil, p.Streamed())
	return screen.String()
}

// terminal plays out on a screen cols cells wide what was written to it,
// as a terminal shows it: lines wrap at the edge, \r returns, \n goes to
// the next line, ESC[K clears to the end of the line, ESC[nA goes up n
// lines, ESC[J clears to the end of the screen. It returns the lines
// shown, without trailing blanks.
func terminal(t *testing.T, out string, cols int) []string {
	t.Helper()
	var lines [][]rune
	row, col := 0, 0
	at := func(r int) *[]rune {
		for len(lines) <= r {
			lines = append(lines, nil)
		}
		return &lines[r]
	}
	rs := []rune(out)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '\r':
			col = 0
		case '\n':
			row, col = row+1, 0
		case '\033':
			j := i + 2 // past ESC [
			for j < len(rs) && rs[j] >= '0' && rs[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(string(rs[i+2 : j]))
			line := at(row)
			switch rs[j] {
			case 'K':
				*line = (*line)[:min(col, len(*line))]
			case 'J':
				*line = (*line)[:min(col, len(*line))]
				lines = lines[:row+1]
			case 'A':
				row = max(0, row-n)
			default:
				t.Fatalf("escape sequence %q the test terminal does not know", string(rs[i:j+1]))
			}
			i = j
		default:
			if col >= cols { // the line is full: wrap
				row, col = row+1, 0
			}
			line := at(row)
			for len(*line) < col {
				*line = append(*line, ' ')
			}
			*line = append((*line)[:col], r)
			col++
		}
	}
	var shown []string
	for _, l := range lines {
		shown = append(shown, strings.TrimRight(string(l), " "))
	}
	return shown
}

// On a terminal the answer is on the screen once: a draft the check
// rejected is taken back before the next one is written in its place, and
// one that differs from the answer is taken back before the answer,
// wrapped lines included.
func TestRejectedDraftIsReplacedOnTheScreen(t *testing.T) {
	const cols = 16
	answer := "Refunds in 30 days [1]."
	out := streamed([]agent.Event{
		{Kind: agent.EventGenerating},
		{Kind: agent.EventDrafting, Text: "Refunds for a year, for every order,\nsigned or not."},
		{Kind: agent.EventChecking},
		{Kind: agent.EventRegenerating, Attempt: 1, Max: 2},
		{Kind: agent.EventDrafting, Attempt: 1, Text: "Refunds within 30 days"},
		{Kind: agent.EventDrafting, Attempt: 1, Text: answer}, // takes back what was written
		{Kind: agent.EventChecking},
	}, answer, cols, 24)
	screen := strings.Join(terminal(t, "> What is our refund policy?\n"+out, cols), "\n")
	for _, gone := range []string{"for a year", "signed", "within", "rewritten", "After the check"} {
		if strings.Contains(screen, gone) {
			t.Errorf("the screen still shows %q:\n%s", gone, screen)
		}
	}
	if want := "> What is our re\nfund policy?\n\nRefunds in 30 da\nys [1].\n\nAnswered from co"; !strings.HasPrefix(screen, want) {
		t.Errorf("screen:\n%s\nwant it to start:\n%s", screen, want)
	}
}

// A draft taller than the terminal has scrolled out of reach: it stays,
// and the answer follows, said to be the checked one. So does one on a
// terminal whose size is not known.
func TestDraftOutOfReachIsFollowedByTheAnswer(t *testing.T) {
	long := strings.Repeat("A line of the draft.\n", 30) + "The end."
	for name, size := range map[string][]int{"taller than the screen": {80, 24}, "size unknown": nil} {
		got := streamed([]agent.Event{{Kind: agent.EventDrafting, Text: long}, {Kind: agent.EventChecking}}, "Short.", size...)
		if !strings.Contains(got, "The end.\n") || !strings.Contains(got, "After the check, the answer reads:\nShort.\n") {
			t.Errorf("%s: %q", name, got)
		}
	}
}

func TestCellWidth(t *testing.T) {
	for s, want := range map[string]int{"abc": 3, "日本": 4, "e\u0301": 1, "a\tb": 9, "👍": 2} {
		if got := console.CellWidth(s); got != want {
			t.Errorf("width of %q = %d, want %d", s, got, want)
		}
	}
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

// A draft written again because it was cut off says so, and an answer
// that is a draft cut off is never said to be the checked one.
func TestDraftCutOff(t *testing.T) {
	var screen bytes.Buffer
	p := console.NewProgress(&screen, true)
	p.StreamTo(&screen)
	for _, e := range []agent.Event{
		{Kind: agent.EventDrafting, Text: "Customers can get"},
		{Kind: agent.EventRegenerating, Attempt: 1, Max: 2, Err: &agent.CutOffError{}},
		{Kind: agent.EventDrafting, Attempt: 1, Text: "Customers can get a full"},
	} {
		p.Emit(e)
	}
	p.Done()
	answer := bot.Words{}.Note(agent.Result{CutOff: true}) + "\n\nCustomers can get a full …"
	console.Print(&screen, bot.Final{Answer: answer, CutOff: true, Place: "company documents",
		Badge: bot.Badge{Emoji: "🔴", Text: "Low confidence"}}, nil, p.Streamed())
	got := screen.String()
	for _, want := range []string{"(written again: the draft was cut off)\nCustomers can get a full\n", "\n" + answer + "\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "After the check") || strings.Contains(got, "rewritten to keep to the sources") {
		t.Errorf("screen %q calls the draft cut off checked", got)
	}
}

// A document that plants links hiding their hosts, quoted by the offline
// engine or repeated by a model as it streams to the terminal, is shown
// with every host in view: no Markdown, Slack or HTML link, no terminal
// escape sequence (OSC 8 draws a link) and no line that reads as the
// badge, in the draft streamed or in the answer.
func TestPlantedLinksShowTheirHosts(t *testing.T) {
	for name, model := range map[string]bool{"offline": false, "model": true} {
		t.Run(name, func(t *testing.T) {
			const q = "How do I reset my password?"
			var screen bytes.Buffer
			p := console.NewProgress(&screen, true)
			p.StreamTo(&screen)
			res, err := viewtest.PlantedAgent(t, model).Ask(context.Background(), agent.Question{Text: q}, p.Emit)
			if err != nil {
				t.Fatal(err)
			}
			p.Done()
			console.Print(&screen, bot.Present(q, res), p.Details(), p.Streamed())

			shown := strings.ReplaceAll(screen.String(), "\r\033[K", "") // the progress line's own
			for _, bad := range []string{"\x1b", "](https://evil", "|the help desk>", "<a href", "[form]:", "🟢"} {
				if strings.Contains(shown, bad) {
					t.Errorf("the terminal shows %q:\n%s", bad, shown)
				}
			}
			for _, want := range []string{"Reset password (evil.example)", "the help desk (evil.example)", "🟡 Medium confidence"} {
				if !strings.Contains(shown, want) {
					t.Errorf("the terminal lacks %q:\n%s", want, shown)
				}
			}
		})
	}
}
