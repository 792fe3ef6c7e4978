package agent

import (
	"context"
	"strings"
)

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
