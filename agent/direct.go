package agent

import "context"

// direct answers without retrieval: general knowledge and arithmetic from
// the model, or the offline calculator. Nothing checks such an answer, and
// its badge says so.
func (r *run) direct(ctx context.Context, s *State) (Step, error) {
	var answer string
	var ok bool
	err := r.think(ctx, s, func(b Brain) (err error) {
		answer, ok, err = b.Direct(ctx, s.Standalone, s.Thread.Turns)
		return err
	})
	if err != nil {
		return "", err
	}
	s.Answer, s.DirectOK = answer, ok
	return StepEnd, nil
}
