package agent

import "context"

// port is the one judgement a node asks for, from both engines: P is one
// of the one-method ports (Router, Grader, …), model is the model-backed
// Brain's (nil without a model) and offline the offline engine's. A node
// receives its own port and nothing else of the Brains, so that what a
// node may ask is its signature.
type port[P any] struct {
	model, offline P
}

// with gives f the port pick takes from the run's Brains: the table
// wires each node to its port (graph.go).
func with[P any](pick func(Brain) P, f func(*run, context.Context, *State, port[P]) error) node {
	return func(r *run, ctx context.Context, s *State) error {
		// Without a model, pick(nil) is a nil port, which ask never calls.
		return f(r, ctx, s, port[P]{model: pick(r.modelBrain), offline: pick(r.offlineBrain)})
	}
}

// The ports' pickers, one per port a node uses.
func condenser(b Brain) Condenser           { return b }
func router(b Brain) Router                 { return b }
func grader(b Brain) Grader                 { return b }
func rewriter(b Brain) Rewriter             { return b }
func generator(b Brain) Generator           { return b }
func checker(b Brain) Checker               { return b }
func directAnswerer(b Brain) DirectAnswerer { return b }

// ask calls f with the model's port, unless the model is off for this
// run. When the model fails (after the client's own retries) f is retried
// with the offline port. A server that failed, or a budget that refused a
// call, takes the rest of the run offline, and says so once
// (docs/DESIGN.md, rule 11); a reply that could not be used
// (ErrBadOutput) costs only this call, since the server works and the
// next call may well be fine. Either way the run counts as offline for
// its badge: a run that mixed engines claims no more than the offline
// engine supports.
func (p port[P]) ask(r *run, ctx context.Context, s *State, f func(P) error) error {
	if !s.ModelOff {
		err := f(p.model)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.failed(s, err)
	}
	return f(p.offline)
}
