package agent

import (
	"context"
	"fmt"
)

// Step names a node of the state machine.
type Step string

// The nodes. Retrieval is one node per backend so that the trace says
// which store was asked.
const (
	StepCondense Step = "condense"
	StepRoute    Step = "route"
	StepVector   Step = "vector"
	StepGraph    Step = "graph"
	StepWeb      Step = "web"
	StepDirect   Step = "direct"
	StepGrade    Step = "grade"
	StepRewrite  Step = "rewrite"
	StepGenerate Step = "generate"
	StepCheck    Step = "check"
	StepNoAnswer Step = "no_answer"
	StepEnd      Step = "end"
	// StepAhead is the search (and, with Config.Speculate, the grading)
	// that runs in parallel with route (ahead.go). It is never a step of
	// the trace: the loop starts it with route, and the vector node takes
	// what it found.
	StepAhead Step = "ahead"
)

// firstStep is where every run starts (START in the diagram).
const firstStep = StepCondense

// node is one step of the state machine: it changes the state and
// decides nothing; the edges' predicates choose the next step, on the
// state the node left. Nodes are methods of run, so that they reach the
// run's emitter and budgets; a node that asks for a judgement receives
// only its own port (port.go), never the whole Brain.
type node func(r *run, ctx context.Context, s *State) error

// cond is an edge's predicate: whether a run in state s, within budgets
// b, takes the edge.
type cond func(s *State, b Budgets) bool

// edge is one transition: the step a node may hand over to, and when.
type edge struct {
	to Step
	// when is the condition, in the words of the diagram's label:
	// README.md ("How it answers") and docs/DESIGN.md draw this table,
	// and TestDiagramsMatchTheTable keeps them equal to it. The numbers
	// are the default budgets (budget.go).
	when string
	// holds is the condition the loop evaluates. nil (with when "") is
	// the edge a node takes when no edge before it holds: the only edge
	// of a step, or its last.
	holds cond
}

// stepDef is one node of the table: the method that runs it and the edges
// it may take, tried in order; the first that holds is taken.
type stepDef struct {
	run   node
	edges []edge
	// alongside is a step that runs in parallel with this one: the loop
	// starts it just before this one's node, and once this node is done
	// drops its work unless one of its edges holds (those edges lead to
	// the steps that take its results).
	alongside Step
}

// machine is the whole state machine, and the code that chooses each
// step: for each step, its node and its edges. Every loop in it is
// bounded (docs/DESIGN.md, rule 1): grade→rewrite by MaxRewrites, after
// which the web fallback runs at most once; check→generate by
// MaxRegenerations; and the whole run by MaxSteps.
var machine = map[Step]stepDef{
	StepCondense: {run: with(condenser, (*run).condense), edges: []edge{
		{StepRoute, "", nil},
	}},
	StepRoute: {run: with(router, (*run).route), alongside: StepAhead, edges: []edge{
		{StepVector, "vector", routeIs(RouteVector)},
		{StepGraph, "graph", routeIs(RouteGraph)},
		{StepWeb, "web", routeIs(RouteWeb)},
		{StepDirect, "direct", routeIs(RouteDirect)},
	}},
	StepAhead: {run: with(grader, (*run).searchAhead), edges: []edge{
		{StepVector, "if the router chose vector", routeIs(RouteVector)},
	}},
	StepVector: {run: (*run).vector, edges: []edge{
		{StepGrade, "", nil},
	}},
	StepGraph: {run: (*run).graph, edges: []edge{
		{StepGrade, "", nil},
	}},
	StepWeb: {run: (*run).web, edges: []edge{
		{StepNoAnswer, "not configured, or failed", webFailed},
		{StepGrade, "", nil},
	}},
	StepDirect: {run: with(directAnswerer, (*run).direct), edges: []edge{
		{StepEnd, "", nil},
	}},
	StepGrade: {run: with(grader, (*run).grade), edges: []edge{
		{StepGenerate, "≥1 relevant", anyRelevant},
		{StepRewrite, "none relevant, < 3 rewrites", rewritesLeft},
		{StepWeb, "3 rewrites used, web configured and not yet searched", fallbackAfterRewrites},
		{StepNoAnswer, "after the web fallback, or 3 rewrites used, no web fallback", nothingLeftAfterGrade},
	}},
	StepRewrite: {run: with(rewriter, (*run).rewrite), edges: []edge{
		// The rewriter's new search, on the same route or a switched one;
		// or, when it has none left, the fallback grade would take.
		{StepVector, "a new search there", rewrittenTo(RouteVector)},
		{StepGraph, "a new search there", rewrittenTo(RouteGraph)},
		{StepWeb, "a new search there, or none left: web fallback", rewrittenToWebOrFallback},
		{StepNoAnswer, "none left, no web fallback", noSearchLeft},
	}},
	StepGenerate: {run: with(generator, (*run).generate), edges: []edge{
		{StepCheck, "", nil},
	}},
	StepCheck: {run: with(checker, (*run).check), edges: []edge{
		{StepGenerate, "not grounded, or not answering the first time, < 2 regenerations", redraft},
		{StepEnd, "grounded and answering, partial, uncertain, or regenerations used up", settled},
	}},
	StepNoAnswer: {run: (*run).noAnswer, edges: []edge{
		{StepEnd, "", nil},
	}},
}

// The predicates of the edges. Each holds on its own, not only because
// the edges before it did not: TestEdgePredicates checks that at most one
// labelled edge of a step holds on each state it tries.

func routeIs(route Route) cond {
	return func(s *State, _ Budgets) bool { return s.Route == route }
}

// webFailed: the web node could not search (not configured, or the
// search failed), which it notes in the run's last attempt.
func webFailed(s *State, _ Budgets) bool {
	n := len(s.Attempts)
	return n > 0 && s.Attempts[n-1].Route == RouteWeb && s.Attempts[n-1].Skipped != ""
}

func anyRelevant(s *State, _ Budgets) bool { return len(s.Relevant) > 0 }

// rewritesLeft: nothing relevant, not after the web fallback, and the
// rewrite budget not spent.
func rewritesLeft(s *State, b Budgets) bool {
	return len(s.Relevant) == 0 && !s.Fallback && s.Rewrites < b.MaxRewrites
}

// webLeft: the web fallback can still run, once: web search is
// configured and the web was not searched in this run.
func webLeft(s *State) bool { return s.WebConfigured && !s.WebTried }

// fallbackAfterRewrites: the rewrite budget is spent with nothing
// relevant, and the web fallback can run.
func fallbackAfterRewrites(s *State, b Budgets) bool {
	return len(s.Relevant) == 0 && !s.Fallback && s.Rewrites >= b.MaxRewrites && webLeft(s)
}

// nothingLeftAfterGrade: nothing relevant after the web fallback, or
// after the last rewrite with no web fallback to run.
func nothingLeftAfterGrade(s *State, b Budgets) bool {
	return len(s.Relevant) == 0 && (s.Fallback || (s.Rewrites >= b.MaxRewrites && !webLeft(s)))
}

func rewrittenTo(route Route) cond {
	return func(s *State, _ Budgets) bool { return !s.NoNewSearch && s.Route == route }
}

// rewrittenToWebOrFallback: the rewriter sent its new search to the web,
// or had none left and the web fallback can run.
func rewrittenToWebOrFallback(s *State, _ Budgets) bool {
	if s.NoNewSearch {
		return webLeft(s)
	}
	return s.Route == RouteWeb
}

// noSearchLeft: the rewriter had no new search, and there is no web
// fallback to run.
func noSearchLeft(s *State, _ Budgets) bool { return s.NoNewSearch && !webLeft(s) }

// redraft: the check found the draft wanting in a way another draft may
// mend (check.go), and the regeneration budget lasts. A grounded draft
// that does not answer is written again only once.
func redraft(s *State, b Budgets) bool {
	if s.Regenerations >= b.MaxRegenerations {
		return false
	}
	switch s.Finding {
	case FindingCutOff, FindingNotAnswer, FindingUngrounded:
		return true
	case FindingPartial:
		return !s.AnswerRetried
	}
	return false
}

// settled: no other draft will be written; the run shows the best it has
// (settle, check.go).
func settled(s *State, b Budgets) bool { return !redraft(s, b) }

// checkGraph verifies at start-up that every step has a node and edges,
// that every edge leads to a known step, at most once, and has a
// predicate unless it is the step's last and unlabelled one, and that a
// step running alongside another is reached by no edge.
func checkGraph(m map[Step]stepDef) error {
	if _, ok := m[firstStep]; !ok {
		return fmt.Errorf("agent: the first step %q is not in the table", firstStep)
	}
	parallel := map[Step]bool{}
	for from, def := range m {
		if def.alongside == "" {
			continue
		}
		if _, ok := m[def.alongside]; !ok {
			return fmt.Errorf("agent: step %q runs alongside %q, which is not in the table", def.alongside, from)
		}
		parallel[def.alongside] = true
	}
	for from, def := range m {
		if def.run == nil {
			return fmt.Errorf("agent: step %q has no node", from)
		}
		if len(def.edges) == 0 {
			return fmt.Errorf("agent: step %q has no edges", from)
		}
		seen := map[Step]bool{}
		for i, e := range def.edges {
			if _, ok := m[e.to]; !ok && e.to != StepEnd {
				return fmt.Errorf("agent: edge %s→%s leads to a step with no node", from, e.to)
			}
			if parallel[e.to] {
				return fmt.Errorf("agent: edge %s→%s leads to a step that only runs alongside another", from, e.to)
			}
			if seen[e.to] {
				return fmt.Errorf("agent: edge %s→%s is listed twice", from, e.to)
			}
			seen[e.to] = true
			if (e.when == "") != (e.holds == nil) {
				return fmt.Errorf("agent: edge %s→%s has a label without a predicate, or a predicate without a label", from, e.to)
			}
			if e.holds == nil && i != len(def.edges)-1 {
				return fmt.Errorf("agent: step %q has an edge without a condition before its last", from)
			}
		}
	}
	return nil
}

// next is the step after from: the first of its edges that holds on s.
func next(from Step, s *State, b Budgets) (Step, error) {
	for _, e := range machine[from].edges {
		if e.holds == nil || e.holds(s, b) {
			return e.to, nil
		}
	}
	return "", fmt.Errorf("no edge of the transition table holds after %s", from)
}

// holdsAny reports whether one of step's edges holds on s.
func holdsAny(step Step, s *State, b Budgets) bool {
	for _, e := range machine[step].edges {
		if e.holds == nil || e.holds(s, b) {
			return true
		}
	}
	return false
}
