package agent

import (
	"context"
	"strconv"

	"github.com/switchboard/switchboard/internal/panics"
)

// Grader is the port of the grade node.
type Grader interface {
	// Grade judges whether one document helps answer question (the
	// standalone question), on its own: only documents graded relevant
	// reach the generator. Reason is a short phrase for traces.
	//
	// Grade is called for several documents at once (Budgets.GradeWorkers)
	// and must be safe for that. When the model's Grade fails for a
	// document, that document is graded offline, the others keep their
	// grades, and the run goes offline.
	Grade(ctx context.Context, question string, doc Document) (Grade, error)
}

// Grade is the verdict on one document.
type Grade struct {
	Relevant bool   `json:"relevant"`
	Reason   string `json:"reason"`
}

// grade judges every retrieved document on its own, several at a time, and
// keeps only the relevant ones for the generator. It then decides the next
// step: generate when anything is relevant; otherwise rewrite (the query,
// and perhaps the route) while the budget lasts, then one web fallback,
// then no answer.
func (r *run) grade(ctx context.Context, s *State) (Step, error) {
	if err := r.gradeAll(ctx, s); err != nil {
		return "", err
	}
	s.Relevant = s.Relevant[:0]
	for _, d := range s.Docs {
		if d.Relevant {
			s.Relevant = append(s.Relevant, d.Document)
		}
	}
	if n := len(s.Attempts); n > 0 {
		s.Attempts[n-1].Relevant = len(s.Relevant)
	}
	r.emit(Event{Kind: EventGraded, Step: StepGrade, Count: len(s.Relevant), Total: len(s.Docs)})

	switch {
	case len(s.Relevant) > 0:
		return StepGenerate, nil
	case s.Fallback:
		// The web fallback was the last resort.
		return StepNoAnswer, nil
	case s.Rewrites < r.budgets.MaxRewrites:
		return StepRewrite, nil
	default:
		return r.fallback(s, StepGrade, "nothing relevant after "+strconv.Itoa(s.Rewrites)+" rewrites"), nil
	}
}

// fallback is where a run goes when rewriting is over (the budget is spent,
// or the rewriter has no new search): one web search for the question,
// unless the web was already searched or is not configured, then no answer.
func (r *run) fallback(s *State, from Step, why string) Step {
	switch {
	case r.webAvailable(s):
		s.Fallback = true
		s.Query = s.Standalone // the web gets the question, not the last rewrite
		r.emit(Event{Kind: EventWebFallback, Step: from, Reason: why})
		return StepWeb
	case !s.WebTried:
		s.Attempts = append(s.Attempts, Attempt{Route: RouteWeb, Note: "no web fallback: " + webNotSetUp})
	}
	return StepNoAnswer
}

// gradeAll grades s.Docs concurrently with at most GradeWorkers calls in
// flight, or takes the grades made ahead of the route (ahead.go). The
// documents the model could not grade are graded offline; a server that
// failed, or a budget that refused a call, takes the rest of the run
// offline (see think).
func (r *run) gradeAll(ctx context.Context, s *State) error {
	if len(s.Docs) == 0 {
		return nil
	}
	brain := r.offline
	if !s.ModelOff {
		brain = r.model
	}
	grades, errs := r.takeGrades(s)
	if grades == nil {
		docs := make([]Document, len(s.Docs))
		for i, d := range s.Docs {
			docs[i] = d.Document
		}
		grades, errs = r.gradeEach(ctx, brain, s.Standalone, docs)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		if brain == r.offline {
			return err
		}
		r.failed(s, err)
		if grades[i], err = r.offline.Grade(ctx, s.Standalone, s.Docs[i].Document); err != nil {
			return err
		}
	}
	for i := range s.Docs {
		s.Docs[i].Relevant, s.Docs[i].Reason = grades[i].Relevant, grades[i].Reason
	}
	return nil
}

// gradeOne grades doc into g. A panic on odd model output costs this
// grade, not the process: it is handled as the model's failure.
func gradeOne(ctx context.Context, brain Brain, question string, doc Document, g *Grade) error {
	return panics.Catch(nil, "grade", func() (err error) {
		*g, err = brain.Grade(ctx, question, doc)
		return err
	})
}
