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
	"unicode"

	"golang.org/x/term"
	"golang.org/x/text/width"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/text"
)

// Progress shows a run's progress on w (see Show), and collects
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
	// growing as written (then it is not written further), how many
	// drafts were begun, and why the current one is written again.
	out      io.Writer
	streamed string
	open     bool
	broken   bool
	drafts   int
	cut      bool
	// screen is the terminal's size in character cells (out's, or w's
	// without StreamTo), to keep the progress line to one line and take
	// back a draft (erase); ok is false when it is not known.
	screen func() (cols, rows int, ok bool)
}

// NewProgress returns a Progress for w; tty says whether w is a terminal
// where a line can be replaced (see IsTerminal).
func NewProgress(w io.Writer, tty bool) *Progress {
	return &Progress{w: w, tty: tty, screen: func() (int, int, bool) { return terminalSize(w) }}
}

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
// A draft the check rejects is taken back from the terminal (Emit, Settle),
// so that the answer is on the screen once.
func (p *Progress) StreamTo(out io.Writer) {
	p.out = out
	p.screen = func() (int, int, bool) { return terminalSize(out) }
}

// terminalSize is the size of the terminal w is, in character cells.
func terminalSize(w io.Writer) (cols, rows int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile {
		return 0, 0, false
	}
	cols, rows, err := term.GetSize(int(f.Fd()))
	return cols, rows, err == nil && cols > 0 && rows > 0
}

// Show shows a step's progress line, if it has one, and with StreamTo
// the drafts. bot.Follow(p.Show) is the run's emitter.
func (p *Progress) Show(st bot.Step) {
	if st.Detail != "" && len(p.details) < 5 && !contains(p.details, st.Detail) {
		p.details = append(p.details, st.Detail)
	}
	switch {
	case p.out == nil:
	case st.Drafting:
		p.draft(st.Draft) // the draft as the presenter shows it
		return
	case st.Rewriting:
		// The check rejected the draft: the next one takes its place.
		p.erase()
		p.streamed, p.broken = "", false
		p.cut = st.CutOff
	}
	line, ok := st.Line, st.HasLine
	if !ok || line == p.last {
		return
	}
	p.endDraft()
	p.last = line
	if p.tty {
		// Kept to one line: ESC[K clears one, and erase counts on it.
		if cols, _, ok := p.screen(); ok {
			line = fit(line, cols-3)
		}
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
		switch {
		case p.drafts > 1 && p.cut:
			// An earlier draft stayed on the screen (erase could not
			// take it back): say why this one replaces it.
			fmt.Fprintln(p.out, bot.RewrittenCutLabel)
		case p.drafts > 1:
			fmt.Fprintln(p.out, bot.RewrittenLabel)
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

// Settle makes the screen show answer once: a draft written that is not
// the answer (the check rewrote it, or the generator took words back) is
// taken back from the terminal, so that Print writes the answer in its
// place instead of after it. Call it after Done, before Print.
func (p *Progress) Settle(answer string) {
	if s := strings.TrimSpace(p.streamed); s != "" && s != answer {
		p.erase()
	}
}

// erase takes the draft written back from the terminal: it moves the
// cursor up over the rows the draft and the blank line before it take,
// wrapped at the terminal's width, and clears from there down. It does
// nothing when the size of the terminal is not known or the draft has
// scrolled out of sight (its top could not be reached); the draft then
// stays, and what follows says that it was replaced.
func (p *Progress) erase() {
	if p.streamed == "" || p.screen == nil {
		return
	}
	cols, rows, ok := p.screen()
	if !ok {
		return
	}
	p.clearLine()
	p.endDraft()
	up := 1 + screenRows(p.streamed, cols) // the blank line, then the draft
	if up >= rows {
		return
	}
	fmt.Fprintf(p.out, "\r\033[%dA\033[J", up)
	p.streamed, p.broken = "", false
	p.drafts--
}

// fit cuts s to at most cols cells, ending it with "…" when cut.
func fit(s string, cols int) string {
	if cellWidth(s) <= cols {
		return s
	}
	rs := []rune(s)
	for len(rs) > 0 && cellWidth(string(rs))+1 > cols {
		rs = rs[:len(rs)-1]
	}
	return string(rs) + "…"
}

// screenRows is how many rows of a terminal cols cells wide text takes.
func screenRows(text string, cols int) int {
	n := 0
	for line := range strings.SplitSeq(text, "\n") {
		n += max(1, (cellWidth(line)+cols-1)/cols)
	}
	return n
}

// cellWidth is how many cells of a terminal s takes: two for wide
// characters (CJK, most emoji), none for combining marks and other
// zero-width characters, tabs to the next multiple of eight.
func cellWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case r == '\t':
			w += 8 - w%8
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) || unicode.IsControl(r):
		default:
			switch width.LookupRune(r).Kind() {
			case width.EastAsianWide, width.EastAsianFullwidth:
				w += 2
			default:
				w++
			}
		}
	}
	return w
}

// Streamed is what was written of the last draft to StreamTo's writer,
// and is still on the screen; "" if nothing. Print takes it.
func (p *Progress) Streamed() string { return p.streamed }

// Details are what the run told the asker alone (a server's error, a
// setting to set), since the last Reset.
func (p *Progress) Details() []string { return p.details }

// Reset forgets the details and the drafts, for the next question.
func (p *Progress) Reset() {
	p.details, p.last = nil, ""
	p.streamed, p.open, p.broken, p.drafts, p.cut = "", false, false, 0, false
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
	case s == "" || f.CutOff: // a draft cut off was not checked: its note says so
		fmt.Fprintln(w)
		fmt.Fprintln(w, f.Answer)
	case s != f.Answer:
		fmt.Fprintln(w)
		fmt.Fprintln(w, bot.CheckedAnswerLabel)
		fmt.Fprintln(w, f.Answer)
	}
	fmt.Fprintln(w)
	if len(f.Sources) > 0 {
		fmt.Fprintln(w, bot.SourcesLabel+":")
		for _, s := range f.Sources {
			fmt.Fprintln(w, "  "+sourceLine(s))
		}
		fmt.Fprintln(w)
	}
	if len(f.Unverified) > 0 {
		fmt.Fprintln(w, bot.UnverifiedLabel+":")
		for _, c := range f.Unverified {
			fmt.Fprintln(w, "  -", c)
		}
		fmt.Fprintln(w)
	}
	from := bot.AnsweredFromLabel + " " + f.Place
	if f.Why != "" {
		from += " — " + f.Why
	}
	fmt.Fprintln(w, from)
	if f.Understood != "" {
		fmt.Fprintln(w, capitalize(bot.UnderstoodAs(f.Understood)))
	}
	fmt.Fprintln(w, f.Badge.String())
	for _, d := range details {
		fmt.Fprintln(w, bot.NoteLabel, text.OneLine(d))
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

// capitalize starts a label that begins a line with a capital letter.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
