package agent

import (
	"context"
	"strings"
)

// generate writes the answer from the documents graded relevant, and only
// those. After a failed check it regenerates, told which claims were
// unsupported.
func (r *run) generate(ctx context.Context, s *State) (Step, error) {
	req := GenerateRequest{Question: s.Standalone, History: s.Thread.Turns, Docs: s.Relevant}
	if s.Checked {
		s.Regenerations++
		req.Unsupported = s.Unsupported
		r.emit(Event{Kind: EventRegenerating, Step: StepGenerate, Attempt: s.Regenerations, Max: r.budgets.MaxRegenerations, Reason: strings.Join(s.Unsupported, "; ")})
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
