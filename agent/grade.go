package agent

import (
	"context"

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
// keeps only the relevant ones for the generator. Its edges (graph.go) go
// on to generate when anything is relevant; otherwise to rewrite (the
// query, and perhaps the route) while the budget lasts, then to one web
// fallback, then to no answer.
func (r *run) grade(ctx context.Context, s *State, p port[Grader]) error {
	if err := r.gradeAll(ctx, s, p); err != nil {
		return err
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
	return nil
}

// gradeAll grades s.Docs concurrently with at most GradeWorkers calls in
// flight, or takes the grades made ahead of the route (ahead.go). The
// documents the model could not grade are graded offline; a server that
// failed, or a budget that refused a call, takes the rest of the run
// offline (see port.ask).
func (r *run) gradeAll(ctx context.Context, s *State, p port[Grader]) error {
	if len(s.Docs) == 0 {
		return nil
	}
	offline := s.ModelOff
	g := p.model
	if offline {
		g = p.offline
	}
	grades, errs := r.takeGrades(s)
	if grades == nil {
		docs := make([]Document, len(s.Docs))
		for i, d := range s.Docs {
			docs[i] = d.Document
		}
		grades, errs = r.gradeEach(ctx, g, s.Standalone, docs)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		if offline {
			return err
		}
		r.failed(s, err)
		if grades[i], err = p.offline.Grade(ctx, s.Standalone, s.Docs[i].Document); err != nil {
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
func gradeOne(ctx context.Context, grader Grader, question string, doc Document, g *Grade) error {
	return panics.Catch(nil, "grade", func() (err error) {
		*g, err = grader.Grade(ctx, question, doc)
		return err
	})
}
