// Package console renders the bot's words for a terminal: `switchboard ask` and
// `switchboard chat`. Like the Slack and Discord renderers it only translates what
// package bot decides; on a terminal the progress line replaces itself,
// elsewhere (a pipe, a log) each line is kept.
package console

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/text"
)

// Progress is an agent.Emitter that shows progress on w, and collects
// the details meant for the asker alone, which on one's own terminal are
// shown (Details) once the answer is printed.
type Progress struct {
	w       io.Writer
	tty     bool
	last    string
	shown   bool // a line is on screen, to be cleared
	details []string

	// The draft streamed to out (see StreamTo): the text written of the
	// current draft, whether the cursor is at its end, whether it stopped
	// growing as written (then it is not written further), and how many
	// drafts were begun.
	out      io.Writer
	streamed string
	open     bool
	broken   bool
	drafts   int
}

// NewProgress returns a Progress for w; tty says whether w is a terminal
// where a line can be replaced (see IsTerminal).
func NewProgress(w io.Writer, tty bool) *Progress { return &Progress{w: w, tty: tty} }

// IsTerminal reports whether w is a character device, such as a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// StreamTo makes Emit write the answer's drafts to out as they are
// written; out is where the answer is printed (Print), and a terminal,
// where people read the answer as it comes rather than wait for the check.
func (p *Progress) StreamTo(out io.Writer) { p.out = out }

// Emit shows e's progress line, if it has one, and with StreamTo the
// drafts.
func (p *Progress) Emit(e agent.Event) {
	if e.Detail != "" && len(p.details) < 5 && !contains(p.details, e.Detail) {
		p.details = append(p.details, e.Detail)
	}
	switch {
	case p.out == nil:
	case e.Kind == agent.EventDrafting:
		p.draft(e.Text)
		return
	case e.Kind == agent.EventRegenerating:
		p.streamed, p.broken = "", false
	}
	line, ok := bot.Progress(e)
	if !ok || line == p.last {
		return
	}
	p.endDraft()
	p.last = line
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K  %s", line)
		p.shown = true
		return
	}
	fmt.Fprintln(p.w, "  ·", line)
}

// draft writes what text adds to the draft written so far. A draft that
// does not extend what was written (the generator took something back)
// is not written further: Print then prints the answer whole.
func (p *Progress) draft(text string) {
	if p.broken {
		return
	}
	if p.streamed == "" {
		p.clearLine()
		p.drafts++
		fmt.Fprintln(p.out)
		if p.drafts > 1 {
			fmt.Fprintln(p.out, "(rewritten to keep to the sources)")
		}
	}
	if !strings.HasPrefix(text, p.streamed) {
		p.broken = true
		return
	}
	fmt.Fprint(p.out, text[len(p.streamed):])
	p.streamed, p.open, p.last = text, true, ""
}

// endDraft ends the line a draft ends on, so that what follows starts on
// its own line.
func (p *Progress) endDraft() {
	if p.open {
		fmt.Fprintln(p.out)
		p.open = false
	}
}

func (p *Progress) clearLine() {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// Done clears the progress line from a terminal, before the answer.
func (p *Progress) Done() {
	p.clearLine()
	p.endDraft()
	p.last = ""
}

// Streamed is what was written of the last draft to StreamTo's writer,
// "" if nothing. Print takes it.
func (p *Progress) Streamed() string { return p.streamed }

// Details are what the run told the asker alone (a server's error, a
// setting to set), since the last Reset.
func (p *Progress) Details() []string { return p.details }

// Reset forgets the details and the drafts, for the next question.
func (p *Progress) Reset() {
	p.details, p.last = nil, ""
	p.streamed, p.open, p.broken, p.drafts = "", false, false, 0
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Print writes a finished answer: the answer, its sources, any claims the
// check could not find, where it came from and the badge, then the
// details for the asker. streamed is the draft already written to w
// (Progress.Streamed): when the check left it as it was, it is not
// written again; when the answer differs, the answer follows, said to be
// the checked one.
func Print(w io.Writer, f bot.Final, details []string, streamed string) {
	switch s := strings.TrimSpace(streamed); {
	case s == "":
		fmt.Fprintln(w)
		fmt.Fprintln(w, f.Answer)
	case s != f.Answer:
		fmt.Fprintln(w)
		fmt.Fprintln(w, "After the check, the answer reads:")
		fmt.Fprintln(w, f.Answer)
	}
	fmt.Fprintln(w)
	if len(f.Sources) > 0 {
		fmt.Fprintln(w, "Sources:")
		for _, s := range f.Sources {
			fmt.Fprintln(w, "  "+sourceLine(s))
		}
		fmt.Fprintln(w)
	}
	if len(f.Unverified) > 0 {
		fmt.Fprintln(w, "Not found in the sources:")
		for _, c := range f.Unverified {
			fmt.Fprintln(w, "  -", c)
		}
		fmt.Fprintln(w)
	}
	from := "Answered from " + f.Place
	if f.Why != "" {
		from += " — " + f.Why
	}
	fmt.Fprintln(w, from)
	if f.Understood != "" {
		fmt.Fprintf(w, "Understood as “%s”\n", f.Understood)
	}
	fmt.Fprintln(w, f.Badge.String())
	for _, d := range details {
		fmt.Fprintln(w, "Note:", text.OneLine(d))
	}
}

// sourceLine is one source on one line (a Cypher query is folded onto
// it).
func sourceLine(s bot.SourceLine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s", s.N, s.Title)
	if s.Section != "" {
		b.WriteString(" · " + s.Section)
	}
	switch {
	case s.URL != "":
		b.WriteString(" — " + s.URL)
	case s.Query != "":
		b.WriteString(" — " + text.OneLine(s.Query))
	case s.Where != "" && s.Where != s.Title:
		b.WriteString(" — " + s.Where)
	}
	return b.String()
}
