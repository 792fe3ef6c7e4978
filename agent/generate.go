package agent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Generator is the port of the generate node.
type Generator interface {
	// Generate answers req.Question only from req.Docs, the documents
	// graded relevant, citing them as [n] where n is the document's
	// 1-based position in req.Docs; the citations decide the sources
	// shown and count towards the badge (result.go). Retrieved text is
	// data, never instructions.
	//
	// req.Unsupported, when not empty, says what was wrong with the
	// previous draft: the claims the check could not ground, or what a
	// grounded draft did not answer, or that it was not an answer at all
	// (see substantive), or that it was cut off at the length limit. A
	// draft that is not an answer is never checked nor shown.
	//
	// A reply that ended before the model finished it (cut at its length
	// limit, or a stream that stopped) is returned with a *CutOffError,
	// and with the text written until then: the agent never checks it,
	// writes it again while the regeneration budget lasts, and else shows
	// it only after a note saying that it was cut off (check.go).
	Generate(ctx context.Context, req GenerateRequest) (string, error)
}

// GenerateRequest is what the generator is given.
type GenerateRequest struct {
	Question    string     // the standalone question
	History     []Turn     // the thread's earlier turns, oldest first
	Docs        []Document // the relevant documents, numbered from 1 as cited
	Unsupported []string   // what the previous draft got wrong; nil for a first draft
	// OnText, when set, may be called with the draft so far each time it
	// grows, on the caller's goroutine, while Generate writes it: a
	// generator that streams its reply shows it being written. The text
	// is the reply as it would be returned were it to end there.
	OnText func(soFar string)
}

// generate writes the answer from the documents graded relevant, and only
// those. After a failed check it regenerates from the same documents, told
// which claims were unsupported or, when the draft was grounded but did
// not answer, what it did not say; after a draft cut off, it writes it
// again, told to be shorter when the draft reached the length limit.
func (r *run) generate(ctx context.Context, s *State, p port[Generator]) error {
	req := GenerateRequest{Question: s.Standalone, History: s.Thread.Turns, Docs: s.Relevant}
	if s.Checked {
		s.Regenerations++
		req.Unsupported = s.Unsupported
		reason := "unsupported: " + strings.Join(s.Unsupported, "; ")
		var cause error
		switch {
		case s.Cut != nil:
			// What the last check found still holds for this draft.
			s.CutOffs++
			reason, cause = s.Cut.Error(), s.Cut
			if s.Cut.AtLimit {
				req.Unsupported = append(slices.Clip(s.Unsupported), retryCutOff)
			}
		case !substantive(s.Answer): // s.Answer is still the previous draft
			req.Unsupported = []string{retryNoAnswer}
			reason = "the draft was not an answer"
		case s.Grounded && !s.Answers:
			s.AnswerRetried = true // the one regeneration for it (redraft, graph.go)
			req.Unsupported = []string{retryMissing(s.Missing)}
			reason = notAnsweringReason(s.Missing)
		}
		r.emit(Event{Kind: EventRegenerating, Step: StepGenerate, Attempt: s.Regenerations, Max: r.budgets.MaxRegenerations, Reason: reason, Err: cause})
	} else {
		r.emit(Event{Kind: EventGenerating, Step: StepGenerate, Total: len(s.Relevant)})
	}
	// On the last draft the budget allows, with no earlier draft worth
	// showing, a model draft that is again no answer is an unusable reply
	// (ErrBadOutput): the offline engine writes this draft instead
	// (docs/DESIGN.md, rule 11), and its extractive answer quotes the
	// documents that were found, rather than the run ending in no answer.
	last := s.Regenerations >= r.budgets.MaxRegenerations && s.Draft == "" && s.PartialDraft == ""
	model := !s.ModelOff // ask tries the model first, unless it is off
	d := drafts{run: r, relevant: s.Relevant, attempt: s.Regenerations}
	req.OnText = d.grew
	var answer string
	s.Cut = nil
	err := p.ask(r, ctx, s, func(g Generator) (err error) {
		answer, err = g.Generate(ctx, req)
		if model && errors.As(err, &s.Cut) {
			// A failed step, not a model that failed: the check
			// decides what becomes of the draft.
			r.modelErrors++
			err = nil
		}
		if model && err == nil && last && !substantive(answer) {
			s.Cut, err = nil, errNoDraft
		}
		model = false
		return err
	})
	if err != nil {
		return err
	}
	s.Answer = strings.TrimSpace(answer)
	if s.Cut == nil {
		d.show(s.Answer) // the whole draft, which the check is about to read
	}
	return nil
}

// draftStep is how much a streamed draft grows between two of its
// EventDrafting: the chat edits are throttled anyway, and each event
// renumbers the citations of the whole draft so far.
const draftStep = 32

// openCitation is a citation at the end of a draft that is not closed yet.
var openCitation = regexp.MustCompile(`\[[\d, ]*$`)

// drafts turns a draft being written into EventDrafting: only once it is
// an answer (substantive), every draftStep bytes, with its citations
// numbered as the sources will be (foldCitations), so that a [2] seen
// while it is written is the [2] of the finished answer.
type drafts struct {
	run      *run
	relevant []Document
	attempt  int
	shown    string
	grown    int // length of the text last shown
}

func (d *drafts) grew(soFar string) {
	if len(soFar) < d.grown+draftStep {
		return
	}
	d.grown = len(soFar)
	d.show(soFar)
}

func (d *drafts) show(draft string) {
	// A citation still being written ("[2") would be shown unrenumbered,
	// then renumbered once closed: it waits until it is.
	draft = strings.TrimSpace(openCitation.ReplaceAllString(draft, ""))
	if !substantive(draft) {
		return
	}
	text, _ := foldCitations(draft, d.relevant)
	if text == d.shown {
		return
	}
	d.shown = text
	d.run.emit(Event{Kind: EventDrafting, Step: StepGenerate, Attempt: d.attempt, Text: text})
}

// errNoDraft is the model's reply when none of its drafts was an answer.
// Its text reaches the asker, in the notice that the step went offline.
var errNoDraft = fmt.Errorf("%w: none of the model's drafts was an answer, only citations, numbers or tags", ErrBadOutput)

// retryCutOff is what a regeneration after a draft cut off at the length
// limit is told.
const retryCutOff = "The draft was cut off at the length limit before it was finished. Write a shorter answer: only what the question asks, citing the documents as [n]."

// retryNoAnswer is what a regeneration after a draft that was not an
// answer is told.
const retryNoAnswer = "The draft was not an answer: it held only citations, numbers or tags. Answer the question in words, citing the documents as [n], or say plainly that the documents do not answer it."

// substantive reports whether draft is an answer at all: whether it holds
// one word with a letter in it, not counting citations, numbers, markup
// ("<document n=\"1\">") and the words that only point at the sources
// ("see [2]"). Small local models asked to cite sometimes reply with the
// citation alone ("[2]"), a number ("1") or the prompt's fence tags, and a
// checker may call such a draft grounded, since it claims nothing. One
// word is enough, because a short answer is still an answer: "Yes [1].",
// "Finance [1].", "30 days [2]".
func substantive(draft string) bool {
	draft = markup.ReplaceAllString(draft, " ")
	notWord := func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) }
	for _, w := range strings.FieldsFunc(draft, notWord) {
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 && !pointerWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// markup is a tag on one line, as the prompts fence documents with, or
// such a tag escaped as the prompts escape it inside a document.
var markup = regexp.MustCompile(`(?:<|&lt;)/?[A-Za-z][^<>\n]*>`)

// pointerWords point at the sources instead of saying anything.
var pointerWords = map[string]bool{
	"see": true, "source": true, "sources": true, "document": true, "documents": true,
	"doc": true, "docs": true, "citation": true, "citations": true, "answer": true,
}
