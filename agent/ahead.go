package agent

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// The router's call is the first model round trip of every run, and most
// questions go to the documents. So while the router is asked, the run
// searches the documents for the question already (the query's embedding,
// with an embedding API, is one more round trip that no longer follows
// the router's), and with Config.Speculate it grades what it found too.
// When the router chooses the documents, the vector and grade nodes take
// what is ready instead of asking again: a vector question waits for four
// round trips (route ‖ search, grade, generate, check), and with
// Speculate and a local embedder for three (route ‖ grade, generate,
// check). When it chooses another route, the work is cancelled and the
// grading calls begun are counted as discarded (Usage.Discarded).

// ahead is the work a run does while its router thinks. It belongs to the
// run: started by the loop with the route node (StepAhead runs alongside
// it in the table, graph.go), dropped by the loop when the router chooses
// another route, taken by the vector and grade nodes, and stopped by
// dropAhead, which the run calls before it returns.
type ahead struct {
	query  string
	cancel context.CancelFunc
	done   chan struct{}
	meter  *meter // the model calls made ahead, added to the run's when taken or dropped

	// Set by the goroutine before done closes.
	docs       []Document
	err        error
	graders    atomic.Int32 // grading calls begun ahead, finished or not
	graded     bool         // grades and errs hold a grade of each of gradedDocs
	gradedDocs []Document   // docs as the vector node takes them (unique)
	grades     []Grade
	errs       []error
}

// searchAhead, the node of StepAhead, starts the search (and, with
// Speculate, the model's grading) that the documents' route would make
// first, unless the run cannot use it: offline, the router is instant;
// without a vector retriever there is nothing to search. It returns
// while the work goes on.
func (r *run) searchAhead(ctx context.Context, s *State, p port[Grader]) error {
	ret := r.retrievers[RouteVector]
	if s.ModelOff || ret == nil || r.ahead != nil {
		return nil
	}
	m := &meter{}
	actx, cancel := context.WithCancel(withMeter(ctx, m))
	a := &ahead{query: s.Query, cancel: cancel, done: make(chan struct{}), meter: m}
	question, scope := s.Standalone, s.Scope
	r.ahead = a
	go func() {
		defer close(a.done)
		docs, err := ret.Retrieve(actx, Request{Query: a.query, Question: question, Scope: scope, Limit: r.budgets.TopK})
		a.docs, a.err = docs, err
		if err != nil || !r.speculate || actx.Err() != nil {
			return
		}
		a.gradedDocs = r.unique(docs, RouteVector)
		a.grades, a.errs = r.gradeEach(actx, countedGrades{p.model, &a.graders}, question, a.gradedDocs)
		a.graded = actx.Err() == nil
	}()
	return nil
}

// takeAhead returns the search made ahead for query, waiting for it to
// finish, or ok false when there is none for query (then it is dropped).
func (r *run) takeAhead(ctx context.Context, query string) (docs []Document, ok bool, err error) {
	a := r.ahead
	if a == nil {
		return nil, false, nil
	}
	if a.query != query {
		r.dropAhead()
		return nil, false, nil
	}
	select {
	case <-a.done:
	case <-ctx.Done():
		r.dropAhead()
		return nil, false, nil
	}
	if !a.graded {
		r.settleAhead(false)
	}
	return a.docs, true, a.err
}

// takeGrades returns the grades made ahead when they are the grades of
// docs, the documents the vector node took from the same search; the
// model calls that made them count as the run's. Otherwise it returns
// nil, and any grades made ahead are discarded.
func (r *run) takeGrades(s *State) ([]Grade, []error) {
	a := r.ahead
	if a == nil {
		return nil, nil
	}
	if !a.graded || s.ModelOff || !sameDocs(a.gradedDocs, s.Docs) {
		r.dropAhead()
		return nil, nil
	}
	r.settleAhead(false)
	return a.grades, a.errs
}

// dropAhead stops the work done ahead and waits for it: its model calls
// are the run's cost, and those that graded are counted as discarded.
func (r *run) dropAhead() {
	if a := r.ahead; a != nil {
		a.cancel()
		<-a.done
		r.settleAhead(true)
	}
}

// settleAhead adds the model calls made ahead to the run's usage, and the
// grading calls begun as discarded when they were wasted (a call cancelled
// midway cost the server its work too), and forgets the work. The
// goroutine has ended (done is closed).
func (r *run) settleAhead(discarded bool) {
	a := r.ahead
	r.ahead = nil
	a.cancel()
	u := a.meter.total()
	if discarded {
		u.Discarded = int(a.graders.Load())
	}
	r.meter.add(u)
}

// sameDocs reports whether got are the documents of want, in order.
func sameDocs(got []Document, want []GradedDocument) bool {
	return slices.EqualFunc(got, want, func(d Document, g GradedDocument) bool {
		return d.ID == g.ID && d.Location == g.Location && d.Content == g.Content
	})
}

// gradeEach grades docs with grader, at most GradeWorkers at once: a
// grade and an error for each. It is the concurrent half of the grade
// node, shared with the grading done ahead.
func (r *run) gradeEach(ctx context.Context, grader Grader, question string, docs []Document) ([]Grade, []error) {
	grades := make([]Grade, len(docs))
	errs := make([]error, len(docs))
	sem := make(chan struct{}, r.budgets.GradeWorkers)
	var wg sync.WaitGroup
	for i := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			errs[i] = gradeOne(ctx, grader, question, docs[i], &grades[i])
		}()
	}
	wg.Wait()
	return grades, errs
}

// countedGrades is a Grader whose calls are counted into n as they begin.
type countedGrades struct {
	Grader
	n *atomic.Int32
}

func (c countedGrades) Grade(ctx context.Context, question string, doc Document) (Grade, error) {
	c.n.Add(1)
	return c.Grader.Grade(ctx, question, doc)
}
