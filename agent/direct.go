package agent

import "context"

// DirectAnswerer is the port of the direct node.
type DirectAnswerer interface {
	// Direct answers question without retrieval: arithmetic, unit
	// conversions, general knowledge, small talk; history is the
	// thread's earlier turns, oldest first. Nothing checks the answer, and
	// its badge says so (general).
	//
	// ok is false when the Brain cannot answer without a language model
	// (the offline engine for anything but arithmetic, unit conversions
	// and greetings); answer is then ignored, the run's outcome is
	// OutcomeNoModel, which the presenter words, and the badge is none.
	Direct(ctx context.Context, question string, history []Turn) (answer string, ok bool, err error)
}

// direct answers without retrieval: general knowledge and arithmetic from
// the model, or the offline calculator. Nothing checks such an answer, and
// its badge says so.
func (r *run) direct(ctx context.Context, s *State, p port[DirectAnswerer]) error {
	var answer string
	var ok bool
	err := p.ask(r, ctx, s, func(d DirectAnswerer) (err error) {
		answer, ok, err = d.Direct(ctx, s.Standalone, s.Thread.Turns)
		return err
	})
	if err != nil {
		return err
	}
	s.Answer, s.DirectOK = answer, ok
	if !ok {
		s.Answer, s.Outcome = "", OutcomeNoModel
	}
	return nil
}
