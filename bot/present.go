// Package bot turns an agent run into what people see, independent of the
// chat platform: one plain progress line while the answer is made, and a
// finished answer (Final) with where it came from, its sources and the
// confidence badge. Every word people read is decided here; the Slack,
// Discord and console renderers only translate these values into their
// platform's shapes (Block Kit, embeds, terminal lines).
package bot

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/internal/cite"
	"github.com/switchboard/switchboard/internal/links"
	"github.com/switchboard/switchboard/internal/markdown"
	"github.com/switchboard/switchboard/internal/text"
)

// Public texts of a question that got no answer. They never carry an
// error's text: that goes to the asker privately, and to the log.
const (
	FailedMessage  = "I couldn't answer this one."
	TimeoutMessage = "I ran out of time answering this one."
	// InternalMessage tells the asker, privately, that something broke on
	// our side while taking the question.
	InternalMessage = "Something went wrong while taking your question; please ask again."
	// ThinkingLine is the first progress line of a question.
	ThinkingLine = "Thinking…"
	// StoreWaitLine is the progress line of a question taken while the
	// question store is down, kept until it is back.
	StoreWaitLine = "My database isn't answering; I'll answer as soon as it's back…"
	// StoreDownMessage ends a question the store stayed down for.
	StoreDownMessage = "My database was down for too long to take this question. Please ask again in a few minutes."
	// AnsweredElsewhereMessage ends a second placeholder of one question,
	// which another reply in the thread answers.
	AnsweredElsewhereMessage = "This question is answered in another reply in this thread."
)

// Progress returns the progress line for e, which replaces the previous
// one, and false for events that change nothing people need to see.
func Progress(e agent.Event) (string, bool) {
	switch e.Kind {
	case agent.EventRouted:
		if e.Route == agent.RouteDirect {
			return ThinkingLine, true
		}
		return "Searching " + Place(e.Route) + "…", true
	case agent.EventGraded:
		if e.Count == 0 {
			return "", false // a rewrite or the end follows and says so
		}
		return fmt.Sprintf("Found %d relevant passage%s…", e.Count, plural(e.Count)), true
	case agent.EventRewriting:
		if e.From != "" && e.Route != "" { // the rewriter switched route
			return fmt.Sprintf("Nothing relevant yet — trying %s instead (%d of %d)…", Place(e.Route), e.Attempt, e.Max), true
		}
		return fmt.Sprintf("Nothing relevant yet — trying other words (%d of %d)…", e.Attempt, e.Max), true
	case agent.EventWebFallback:
		return "Nothing relevant inside — searching the web…", true
	case agent.EventGenerating:
		return "Writing the answer…", true
	case agent.EventChecking:
		return "Checking it against the sources…", true
	case agent.EventRegenerating:
		if cutOff(e) {
			return fmt.Sprintf("The answer was cut off — writing it again (%d of %d)…", e.Attempt, e.Max), true
		}
		return fmt.Sprintf("Rewriting the answer to keep to the sources (%d of %d)…", e.Attempt, e.Max), true
	case agent.EventDegraded:
		why := strings.TrimSuffix(text.OneLine(e.Reason), ".")
		if why == "" {
			why = "the language model isn't answering"
		}
		return capitalize(why) + " — carrying on offline…", true
	case agent.EventNotice:
		if e.Skipped != "" {
			return capitalize(skipped(e.Skipped)) + ".", true
		}
		if strings.TrimSpace(e.Reason) == "" {
			return "", false // a detail for the asker alone
		}
		return capitalize(e.Reason) + ".", true
	}
	return "", false
}

// cutOff reports whether e is the regeneration of a draft cut off before
// the model finished it.
func cutOff(e agent.Event) bool {
	var cut *agent.CutOffError
	return e.Kind == agent.EventRegenerating && errors.As(e.Err, &cut)
}

// DraftNote marks a draft shown while the answer is written and checked:
// it may yet be rewritten, and it has no badge.
const DraftNote = "Draft — not yet checked against the sources"

// Draft returns the draft to show after e, given the one shown (see
// View.Draft): the new draft of an EventDrafting, its links showing their
// hosts as the answer's do (see Present); none once the draft is being
// rewritten, since the check found it wanting; else the one shown.
func Draft(e agent.Event, shown string) string {
	switch e.Kind {
	case agent.EventDrafting:
		return unmask(e.Text, true)
	case agent.EventRegenerating:
		return ""
	}
	return shown
}

// Step is what one event of a run changes of what the asker sees, for a
// renderer that follows the run itself (the console) rather than a View.
type Step struct {
	// Line is the new progress line, when HasLine (see Progress).
	Line    string
	HasLine bool
	// Drafting says that Draft is the draft so far (see Draft).
	Drafting bool
	Draft    string
	// Rewriting says that the draft shown is being written again, and
	// CutOff that it is because it was cut off.
	Rewriting, CutOff bool
	// Detail is for the asker alone: a server's error, a setting to set.
	Detail string
}

// Follow turns a run's events into Steps for show.
func Follow(show func(Step)) agent.Emitter {
	return func(e agent.Event) {
		st := Step{Detail: e.Detail}
		st.Line, st.HasLine = Progress(e)
		switch e.Kind {
		case agent.EventDrafting:
			st.Drafting, st.Draft = true, Draft(e, "")
		case agent.EventRegenerating:
			st.Rewriting, st.CutOff = true, cutOff(e)
		}
		show(st)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func capitalize(s string) string {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// Final is a finished answer as people read it.
type Final struct {
	Question string
	// Answer is the model's Markdown; its [n] cite Sources by N. It has
	// no links: one the model or a document wrote reads as its words and
	// its host, "Reset password (evil.example)", and no line of it reads
	// as the badge (see unmask). Renderers may link the citations
	// (Links), and nothing else in it.
	Answer string
	// Text is Answer read: its lines, each in a code block or not, and its
	// citations. Renderers translate it line by line and link its
	// citations (Text.Link, Line.Link) rather than read Answer again.
	Text cite.Text
	// Place is where the answer came from, in people's words ("company
	// documents"), and Why the router's reason for looking there.
	Place, Why string
	// Understood is the question as the bot understood it, set only when
	// that is not what was asked (a follow-up made standalone).
	Understood string
	Sources    []SourceLine
	// Links are the URLs the citations link to: [n] to Links[n], for the
	// sources that have a link. A renderer that can link text passes them
	// to Text.Link with its platform's link syntax.
	Links map[int]string
	// Unverified are the claims the check could not find in the sources,
	// listed under a low-confidence answer.
	Unverified []string
	// CutOff says that the answer is a draft the model did not finish,
	// never checked; it begins with a note saying so.
	CutOff bool
	Badge  Badge
	// AskExpert says that the answer carries an Ask an expert button: its
	// badge is low or says no answer was found (issue 26). A 👎 offers
	// the button on any answer.
	AskExpert bool
	// Summary is the answer on one line of plain text, for where no
	// markup is shown: a notification, a screen reader's summary.
	Summary string
}

// SourceLine is one numbered source, once per document.
type SourceLine struct {
	N       int
	Title   string
	Section string // the part of the document the cited text is in
	URL     string // where people can open it; "" when there is no link
	// Where says where the source is when there is no link: a file's
	// path, a graph walk's description.
	Where string
	// Query is the Cypher that ran, the evidence of a graph answer.
	Query string
}

// Level is how far an answer can be trusted, as the badge shows it:
// renderers may colour it, and read nothing else into it.
type Level string

// The levels of the badge, one for each of the agent's confidences.
const (
	LevelHigh    Level = "high"
	LevelMedium  Level = "medium"
	LevelLow     Level = "low"
	LevelGeneral Level = "general"
	LevelNone    Level = "none"
)

// Badge is the confidence line under an answer.
type Badge struct {
	Level Level
	Emoji string
	Text  string // "High confidence — checked against 3 documents"
	// Offline says, in plain words, that the offline engine answered and
	// why; "" when the model did.
	Offline string
}

// String is the badge on one line.
func (b Badge) String() string {
	s := b.Emoji + " " + b.Text
	if b.Offline != "" {
		s += " · " + b.Offline
	}
	return s
}

// Present decides what people read of a finished run.
func Present(question string, r agent.Result) Final {
	if r.Outcome != agent.OutcomeAnswered && r.Answer == "" {
		r.Answer = Words{}.Outcome(r) // an agent without Words: the sentences without names
	}
	answer := strings.TrimSpace(unmask(r.Answer, false))
	read := cite.Read(answer) // once, for the renderers and the summary
	f := Final{
		Question:   question,
		Answer:     answer,
		Text:       read,
		Place:      Place(r.Route),
		Why:        oneLine(r.RouteReason),
		Sources:    sourceLines(r.Sources),
		Unverified: nil,
		CutOff:     r.CutOff,
		Badge:      badge(r),
		Summary:    plain(read),
	}
	for _, s := range f.Sources {
		if s.URL != "" {
			if f.Links == nil {
				f.Links = map[int]string{}
			}
			f.Links[s.N] = s.URL
		}
	}
	f.AskExpert = f.Badge.Level == LevelLow || f.Badge.Level == LevelNone
	if q := strings.TrimSpace(r.Standalone); q != "" && !sameQuestion(q, r.Question) {
		f.Understood = oneLine(q)
	}
	if r.Confidence == agent.ConfidenceLow {
		for _, c := range r.Unsupported {
			if c = oneLine(c); c != "" {
				f.Unverified = append(f.Unverified, c)
			}
		}
	}
	if r.Route == agent.RouteDirect || r.Confidence == agent.ConfidenceNone {
		f.Why = "" // where it looked is in the answer itself
	}
	return f
}

// sameQuestion reports whether two questions differ only in case, spaces
// and the final punctuation: the condenser's "understood as" is worth
// showing only when it changed the words.
func sameQuestion(a, b string) bool {
	norm := func(s string) string {
		return strings.ToLower(strings.TrimRight(text.OneLine(s), "?!. "))
	}
	return norm(a) == norm(b)
}

// sourceLines lists the sources once per document: the agent numbers them
// so already, but an older stored answer may repeat one, and the list must
// not.
func sourceLines(sources []agent.Source) []SourceLine {
	var out []SourceLine
	seen := map[string]bool{}
	for _, s := range sources {
		line := SourceLine{N: s.N, Title: oneLine(s.Title), Section: oneLine(s.Section), URL: linkOf(s)}
		loc := strings.TrimSpace(s.Location)
		graph := cmpOr(s.Kind, s.Route.Kind()) == agent.KindGraph
		switch {
		case line.URL != "":
		case graph && s.Walk != "":
			// A graph walk describes itself; that is its "section".
			line.Section = cmpOr(line.Section, oneLine(s.Walk))
		case graph && loc != "":
			line.Query = withoutControls(loc) // the Cypher that ran
		default:
			line.Where = oneLine(loc)
		}
		if line.Title == "" {
			line.Title = text.Clip(cmpOr(line.Where, line.URL, "source"), 120)
		}
		key := line.URL + "\x00" + line.Title + "\x00" + line.Where + "\x00" + line.Query
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, line)
	}
	return out
}

// oneLine is text from a model or a document on one line, without the
// control characters a terminal would act on (see withoutControls).
func oneLine(s string) string { return text.OneLine(withoutControls(s)) }

func cmpOr[S ~string](ss ...S) S {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// linkOf is the source's link: its URL, or a location that is one.
func linkOf(s agent.Source) string {
	for _, u := range []string{s.URL, strings.TrimSpace(s.Location)} {
		if l := links.HTTP(u); l != "" {
			return l
		}
	}
	return ""
}

// levels are the badge's emoji and name for each confidence level; an
// answer's line that starts with emoji and one of the names loses the
// emoji (see unmask), so that only the badge reads as one.
var levels = []struct {
	confidence  agent.Confidence
	level       Level
	emoji, name string
}{
	{agent.ConfidenceHigh, LevelHigh, "🟢", "High confidence"},
	{agent.ConfidenceMedium, LevelMedium, "🟡", "Medium confidence"},
	{agent.ConfidenceLow, LevelLow, "🔴", "Low confidence"},
	{agent.ConfidenceGeneral, LevelGeneral, "⚪", "General knowledge"},
	{agent.ConfidenceNone, LevelNone, "⚫", "No answer found"},
}

// badge says how far the answer can be trusted, from the checks that ran
// (agent/result.go decides the level; these are its words).
func badge(r agent.Result) Badge {
	docs := documents(r.Sources)
	level := levels[len(levels)-1] // no answer
	for _, l := range levels {
		if l.confidence == r.Confidence {
			level = l
		}
	}
	var why string
	switch level.confidence {
	case agent.ConfidenceHigh:
		why = fmt.Sprintf("checked against %d documents", docs)
	case agent.ConfidenceMedium:
		why = mediumWhy(r, docs)
	case agent.ConfidenceLow:
		switch {
		case r.Partial:
			why = "the sources are related but don't answer the question"
		case r.CutOff:
			why = "the answer was cut off and wasn't checked against the sources"
		default:
			why = "some of it couldn't be checked against the sources"
		}
	case agent.ConfidenceGeneral:
		why = "not checked against any source"
	}
	b := Badge{Level: level.level, Emoji: level.emoji, Text: level.name}
	if why != "" {
		b.Text += " — " + why
	}
	if r.Offline {
		b.Offline = "answered offline"
		if why := strings.TrimSuffix(oneLine(r.OfflineReason), "."); why != "" {
			b.Offline += ": " + why
		}
	}
	return b
}

func mediumWhy(r agent.Result, docs int) string {
	var why []string
	if docs == 1 {
		why = append(why, "checked against a single document")
	} else {
		why = append(why, fmt.Sprintf("checked against %d documents", docs))
	}
	if r.Rewrites > 0 {
		why = append(why, fmt.Sprintf("found after trying other words %s", times(r.Rewrites)))
	}
	// A draft written again because it was cut off was not found
	// wanting: only the rewrites after a check are a caveat.
	if n := r.Regenerations - r.CutOffs; n > 0 {
		why = append(why, fmt.Sprintf("rewritten %s to keep to them", times(n)))
	}
	return strings.Join(why, ", ")
}

func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return strconv.Itoa(n) + " times"
}

// documents counts the distinct documents among the sources.
func documents(sources []agent.Source) int {
	return len(sourceLines(sources))
}

var (
	plainMarks = strings.NewReplacer("**", "", "__", "", "~~", "", "`", "")
	plainHead  = regexp.MustCompile(`(?m)^\s{0,3}#{1,6}\s+`)
	plainItem  = regexp.MustCompile(`(?m)^\s*[-*+]\s+`)
)

// Plain is Markdown as plain text, for where no markup is shown: a
// notification, a screen reader's summary. Its links read as Present
// shows them, words and host.
func Plain(md string) string {
	return plain(cite.Read(unmask(md, false)))
}

// plain is Plain of Markdown already unmasked and read: its fences go,
// the lines of code stay.
func plain(md cite.Text) string {
	var kept []string
	for _, line := range md.Lines {
		if line.Kind == markdown.Open || line.Kind == markdown.Close {
			continue
		}
		kept = append(kept, line.String())
	}
	s := strings.Join(kept, "\n")
	s = plainHead.ReplaceAllString(s, "")
	s = plainItem.ReplaceAllString(s, "• ")
	return text.OneLine(plainMarks.Replace(s))
}

// Finished is the final view of a saved answer, as its question was
// answered: presented again from the run kept with it, in the same words
// (a private answer shared later, after a restart too). ok is false for
// an answer saved without its run.
func Finished(a feedback.Answer) (v View, ok bool) {
	if a.Result == nil {
		return View{}, false
	}
	f := Present(a.Question, *a.Result)
	return View{AnswerID: a.ID, Question: a.Question, Done: true, Final: &f}, true
}
