package agent

import (
	"context"
	"strings"
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
	// grounded draft did not answer. A blank answer is checked as
	// ungrounded.
	Generate(ctx context.Context, req GenerateRequest) (string, error)
}

// GenerateRequest is what the generator is given.
type GenerateRequest struct {
	Question    string     // the standalone question
	History     []Turn     // the thread's earlier turns, oldest first
	Docs        []Document // the relevant documents, numbered from 1 as cited
	Unsupported []string   // what the previous draft got wrong; nil for a first draft
}

// generate writes the answer from the documents graded relevant, and only
// those. After a failed check it regenerates from the same documents, told
// which claims were unsupported or, when the draft was grounded but did
// not answer, what it did not say.
func (r *run) generate(ctx context.Context, s *State) (Step, error) {
	req := GenerateRequest{Question: s.Standalone, History: s.Thread.Turns, Docs: s.Relevant}
	if s.Checked {
		s.Regenerations++
		req.Unsupported = s.Unsupported
		reason := "unsupported: " + strings.Join(s.Unsupported, "; ")
		if s.Grounded && !s.Answers {
			req.Unsupported = []string{retryMissing(s.Missing)}
			reason = notAnsweringReason(s.Missing)
		}
		r.emit(Event{Kind: EventRegenerating, Step: StepGenerate, Attempt: s.Regenerations, Max: r.budgets.MaxRegenerations, Reason: reason})
	} else {
		r.emit(Event{Kind: EventGenerating, Step: StepGenerate, Total: len(s.Relevant)})
	}
	var answer string
	err := r.think(ctx, s, func(b Brain) (err error) {
		answer, err = b.Generate(ctx, req)
		return err
	})
	if err != nil {
		return "", err
	}
	s.Answer = strings.TrimSpace(answer)
	return StepCheck, nil
}
