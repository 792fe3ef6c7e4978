package agent

import "context"

// check verifies that the answer is grounded in its sources. An ungrounded
// answer is regenerated while the budget lasts; after that the best draft
// is returned with its unsupported claims, and the badge says low.
func (r *run) check(ctx context.Context, s *State) (Step, error) {
	r.emit(Event{Kind: EventChecking, Step: StepCheck})
	var v Verdict
	err := r.think(ctx, s, func(b Brain) (err error) {
		v, err = b.Check(ctx, s.Standalone, s.Answer, s.Relevant)
		return err
	})
	if err != nil {
		return "", err
	}
	s.Checked = true
	s.Grounded = v.Grounded && s.Answer != ""
	if s.Grounded {
		s.Unsupported = nil
		return StepEnd, nil
	}
	s.Unsupported = v.Unsupported
	if len(s.Unsupported) == 0 {
		s.Unsupported = []string{"the checker found the answer unsupported without naming a claim"}
	}
	if s.Draft == "" || len(s.Unsupported) < len(s.DraftUnsupported) {
		s.Draft, s.DraftUnsupported = s.Answer, s.Unsupported
	}
	if s.Regenerations < r.budgets.MaxRegenerations {
		return StepGenerate, nil
	}
	s.Answer, s.Unsupported = s.Draft, s.DraftUnsupported
	return StepEnd, nil
}
