package agent

import (
	"context"
	"strings"
)

// Checker is the port of the check node.
type Checker interface {
	// Check judges answer against docs (the documents the generator was
	// given) on two counts, in one judgement: grounded (every claim is
	// supported by docs) and answers (the supported statements address
	// what question asks: its entity, the number or date it asks for, its
	// yes or no — not merely a related topic). See Verdict.
	//
	// The verdict decides the badge (result.go), so a Checker that cannot
	// tell must say no: Grounded and Answers are claims, not defaults.
	Check(ctx context.Context, question, answer string, docs []Document) (Verdict, error)
}

// Verdict is the result of a check. Grounded and Answers are judged
// apart: an answer can quote its sources faithfully and still be about
// something else than what was asked ("Do we get paid leave for jury
// duty?" answered with the kinds of leave the handbook does describe).
// The badge needs both (agent/result.go); a grounded answer that does not
// answer is regenerated once, then shown as partial with a note built from
// Missing.
type Verdict struct {
	Grounded bool `json:"grounded"`
	// Unsupported, when Grounded is false, lists the claims docs do not
	// support; the regeneration is told them. Listed with Grounded true,
	// the verdict contradicts itself and the answer is uncertain (see
	// check).
	Unsupported []string `json:"unsupported"`
	// Answers is true when the answer addresses what the question asks. A
	// Brain that cannot tell must say false: true is a claim the badge
	// relies on. It counts only when Grounded is true.
	Answers bool `json:"answers"`
	// Missing, when Answers is false, names what the question asks that
	// the answer does not say, as words that complete "I found related
	// text but nothing that says …" (e.g. "whether jury duty is paid
	// leave"). It may be empty.
	Missing string `json:"missing,omitempty"`
}

// Finding is what the check made of the last draft. It decides whether
// another draft is written (redraft, graph.go) and, when none is, what
// the run shows (settle).
type Finding int

// The findings, one per way check can judge a draft.
const (
	FindingNone       Finding = iota // no draft was checked: a direct answer, or none
	FindingAnswers                   // grounded and answering: done
	FindingPartial                   // grounded, but not answering what was asked
	FindingUngrounded                // claims the documents do not support
	FindingUncertain                 // the verdict contradicts itself
	FindingCutOff                    // cut off before the model finished it: not checked
	FindingNotAnswer                 // not an answer at all (substantive): not checked
)

// check judges the answer on two counts (Verdict): grounded in its sources,
// and answering what was asked (docs/DESIGN.md, rule 10), and records its
// Finding, from which the edges (graph.go) and settle decide what follows.
//
//   - Grounded and answering: done.
//   - Not grounded: regenerated, told the unsupported claims, while the
//     budget lasts; after that the best draft is returned with its
//     unsupported claims, and the badge says low.
//   - Grounded but not answering (it quotes related text, not what was
//     asked): regenerated once from the same documents, told what is
//     missing; if that does not answer either, the grounded draft is shown
//     as partial, after a note that says what was not found. A grounded
//     partial answer is also preferred to an ungrounded last draft.
//   - Cut off before the model finished it (CutOffError): not checked,
//     since the half of an answer may be grounded where the whole is not;
//     regenerated while the budget lasts; shown only when no draft that
//     was checked is left, after a note saying that it was cut off, and
//     never badged as checked (low).
//   - Not an answer at all (substantive): not checked, regenerated while
//     the budget lasts, and never shown. When no draft was an answer the
//     run ends in no answer; with a model, generate has already handed
//     the last draft to the offline engine.
//   - Uncertain (the verdict contradicts itself): shown as it is, low.
//
// All regenerations come out of the one budget, MaxRegenerations.
func (r *run) check(ctx context.Context, s *State, p port[Checker]) error {
	s.Checked = true
	s.Missing = ""
	if s.Cut != nil {
		if s.Cut.AtLimit {
			e := Event{Kind: EventNotice, Step: StepCheck, Notice: NoticeCutAtLimit}
			if r.words != nil {
				e.Detail = r.words.Detail(e)
			}
			r.emit(e)
		}
		s.Grounded, s.Answers = false, false
		if substantive(s.Answer) {
			s.CutDraft, s.CutDraftAtLimit = s.Answer, s.Cut.AtLimit
		}
		s.Finding = FindingCutOff
		return nil
	}
	if !substantive(s.Answer) {
		// Nothing to check: a checker may call "[2]" grounded, as it
		// claims nothing. It is never kept as a draft.
		s.Grounded, s.Answers, s.Unsupported = false, false, nil
		s.Finding = FindingNotAnswer
		return nil
	}
	r.emit(Event{Kind: EventChecking, Step: StepCheck})
	var v Verdict
	err := p.ask(r, ctx, s, func(c Checker) (err error) {
		v, err = c.Check(ctx, s.Standalone, s.Answer, s.Relevant)
		return err
	})
	if err != nil {
		return err
	}
	if v.Grounded && len(v.Unsupported) > 0 {
		// The verdict contradicts itself: grounded, yet with claims
		// listed. Small models fill the list with the claims they
		// checked, so the list is no evidence against the answer, and
		// the flag none for it: the answer is uncertain. It is not
		// grounded for the badge (low, never high), it is not
		// regenerated (that would chase claims nobody showed to be
		// unsupported), and its "claims" are not shown as unverified.
		// A grounded partial draft is still preferred to it, as to any
		// draft that is not grounded (docs/DESIGN.md, "Confidence
		// badge"; settle).
		s.Grounded, s.Answers, s.Unsupported = false, false, nil
		s.Finding = FindingUncertain
		return nil
	}
	s.Grounded = v.Grounded
	s.Answers = s.Grounded && v.Answers
	if s.Grounded {
		s.Unsupported = nil
		if s.Answers {
			s.Finding = FindingAnswers
			return nil
		}
		s.Missing = cleanMissing(v.Missing)
		s.PartialDraft, s.PartialMissing = s.Answer, s.Missing
		s.Finding = FindingPartial
		return nil
	}
	s.Unsupported = v.Unsupported
	if len(s.Unsupported) == 0 {
		s.Unsupported = []string{"the checker found the answer unsupported without naming a claim"}
	}
	if s.Draft == "" || len(s.Unsupported) < len(s.DraftUnsupported) {
		s.Draft, s.DraftUnsupported = s.Answer, s.Unsupported
	}
	s.Finding = FindingUngrounded
	return nil
}

// settle is the end of a run whose last draft was checked and not
// accepted, once no other draft will be written (the check's END edge):
// it shows the best draft the run has. An uncertain draft is shown as it
// is, unless a grounded partial draft was kept. Otherwise, the last
// grounded draft that did not answer, as partial (related text that is
// true beats an answer that is not); else the ungrounded draft with the
// fewest unsupported claims, those claims listed; else the last draft cut
// off, saying so (a whole answer that was checked beats half of one that
// was not); else, when no draft was an answer at all, no answer.
func settle(s *State) {
	switch s.Finding {
	case FindingNone, FindingAnswers:
		return
	case FindingUncertain:
		if s.PartialDraft != "" {
			showPartial(s)
		}
		return
	}
	switch {
	case s.PartialDraft != "":
		showPartial(s)
	case s.Draft != "":
		s.Answer, s.Unsupported = s.Draft, s.DraftUnsupported
	case s.CutDraft != "":
		showCutOff(s)
	default:
		s.NoAnswer, s.Outcome, s.Answer, s.Unsupported = true, OutcomeNoDraft, "", nil
	}
}

// showCutOff makes the last draft cut off the answer, ended where it was
// cut: a citation left open is dropped and a code block left open is
// closed, so that the message renders. The note saying it was cut off is
// the presenter's (Words.Note), put before it by Ask.
func showCutOff(s *State) {
	draft := strings.TrimRight(openCitation.ReplaceAllString(s.CutDraft, ""), " \t\n")
	end := " …"
	if f, open := openFence(draft); open {
		end = "\n" + f.Marker + "\n…"
	}
	s.Answer = draft + end
	s.Grounded, s.Answers, s.Unsupported = false, false, nil
	s.CutOff = true
}

// showPartial makes the last grounded draft that did not answer the
// answer; the note saying what was not found is the presenter's
// (Words.Note), put before it by Ask.
func showPartial(s *State) {
	s.Answer = s.PartialDraft
	s.Missing = s.PartialMissing
	s.Grounded, s.Answers, s.Partial = true, false, true
	s.Unsupported = nil
}

// maxMissingRunes bounds what a note repeats of Verdict.Missing.
const maxMissingRunes = 200

// cleanMissing makes Verdict.Missing fit in the note: one line, bounded,
// without a final full stop.
func cleanMissing(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxMissingRunes {
		s = snippet(s, maxMissingRunes)
	}
	return strings.TrimRight(s, ".;:, ")
}

// notAnsweringReason is the Reason of the regenerating event after a
// grounded answer that did not answer: for people, not for the generator.
func notAnsweringReason(missing string) string {
	if missing == "" {
		return "the answer is about a related topic, not the question"
	}
	return "the answer does not say " + missing
}

// retryMissing is what a regeneration after a grounded answer that did not
// answer is told. It travels in GenerateRequest.Unsupported, the one
// channel the generator has for what was wrong with the previous draft.
func retryMissing(missing string) string {
	if missing == "" {
		return "The draft does not answer what the question asks; it is about a related topic. Answer the question itself if a document does, or say plainly that the documents do not."
	}
	return "The draft does not say " + missing + ". Say it if a document does, or say plainly that the documents do not."
}
