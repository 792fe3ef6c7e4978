package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/switchboard/switchboard/bot/console"
	"github.com/switchboard/switchboard/ingest/chat"
)

// progressBar shows a run's progress on a terminal: a bar with the
// messages done, the rate and the time left, redrawn in place at most
// ten times a second. When the output is not a terminal it logs a line
// every logEvery instead.
type progressBar struct {
	w    io.Writer
	tty  bool
	log  *slog.Logger
	last time.Time
	drew bool
}

// logEvery is how often progress is logged when the output is no terminal.
const logEvery = 10 * time.Second

func newProgressBar(w io.Writer, log *slog.Logger) *progressBar {
	return &progressBar{w: w, tty: console.IsTerminal(w), log: log}
}

func (b *progressBar) update(p chat.Progress) {
	now := time.Now()
	if !b.tty {
		if now.Sub(b.last) >= logEvery {
			b.last = now
			args := []any{"channel", p.Channel.Name, "messages", p.Messages, "documents", p.Documents,
				"rate", fmt.Sprintf("%.0f/s", p.Rate()), "day", p.Day.Format("2006-01-02")}
			if eta, ok := p.ETA(); ok {
				args = append(args, "eta", eta.Round(time.Second).String())
			}
			b.log.Info("ingesting", args...)
		}
		return
	}
	if now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	b.drew = true
	fmt.Fprint(b.w, "\r"+barLine(p)+"\x1b[K")
}

// done ends the bar's line, so that what is printed next starts afresh.
func (b *progressBar) done() {
	if b.drew {
		fmt.Fprintln(b.w)
	}
}

// barLine is one line of the bar:
//
//	#general ▕██████░░░░░░░░▏ 43% · 8,600 messages · 1,750/s · ETA 7s
func barLine(p chat.Progress) string {
	const width = 24
	var b strings.Builder
	b.WriteString("#" + p.Channel.Name + " ")
	if p.Fraction >= 0 {
		n := int(p.Fraction*width + 0.5)
		b.WriteString("▕" + strings.Repeat("█", n) + strings.Repeat("░", width-n) + "▏")
		fmt.Fprintf(&b, " %3d%% · ", int(p.Fraction*100))
	}
	fmt.Fprintf(&b, "%s messages · %.0f/s", thousands(p.Messages), p.Rate())
	if eta, ok := p.ETA(); ok {
		fmt.Fprintf(&b, " · ETA %s", eta.Round(time.Second))
	}
	fmt.Fprintf(&b, " · %s", p.Day.Format("2 Jan 2006"))
	return b.String()
}

// thousands writes n with thousands separators: 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
