package agent

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestTransitionTable(t *testing.T) {
	if _, err := New(Config{Offline: nopBrain{}}); err != nil {
		t.Fatalf("the shipped table does not check: %v", err)
	}
	for _, s := range []Step{StepCondense, StepRoute, StepAhead, StepVector, StepGraph, StepWeb, StepDirect,
		StepGrade, StepRewrite, StepGenerate, StepCheck, StepNoAnswer} {
		if machine[s].run == nil {
			t.Errorf("step %s has no node", s)
		}
	}
	withEdges := func(m map[Step]stepDef, step Step, edges ...edge) {
		d := m[step]
		d.edges = edges
		m[step] = d
	}
	always := func(*State, Budgets) bool { return true }
	broken := map[string]func(map[Step]stepDef){
		"missing the grade node": func(m map[Step]stepDef) { delete(m, StepGrade) },
		"grade without a node": func(m map[Step]stepDef) {
			d := m[StepGrade]
			d.run = nil
			m[StepGrade] = d
		},
		"grade without edges": func(m map[Step]stepDef) { withEdges(m, StepGrade) },
		"grade→generate twice": func(m map[Step]stepDef) {
			withEdges(m, StepGrade, append(slices.Clone(m[StepGrade].edges), edge{StepGenerate, "again", always})...)
		},
		"grade edges without conditions": func(m map[Step]stepDef) {
			withEdges(m, StepGrade, edge{StepGenerate, "", nil}, edge{StepRewrite, "", nil})
		},
		"a grade edge labelled without a predicate": func(m map[Step]stepDef) {
			withEdges(m, StepGrade, edge{StepGenerate, "≥1 relevant", nil}, edge{StepRewrite, "", nil})
		},
		"a grade edge with a predicate but no label": func(m map[Step]stepDef) {
			withEdges(m, StepGrade, edge{StepGenerate, "", anyRelevant}, edge{StepRewrite, "", nil})
		},
		"grade leading into the step alongside route": func(m map[Step]stepDef) {
			withEdges(m, StepGrade, edge{StepAhead, "", nil})
		},
		"grade running alongside a step not in the table": func(m map[Step]stepDef) {
			d := m[StepGrade]
			d.alongside = "gradeahead"
			m[StepGrade] = d
		},
	}
	for name, mod := range broken {
		m := maps.Clone(machine)
		mod(m)
		if err := checkGraph(m); err == nil || !strings.Contains(err.Error(), "grade") {
			t.Errorf("a table %s checked: %v", name, err)
		}
	}
}

// allowed reports whether the table has an edge from→to.
func allowed(from, to Step) bool {
	return slices.ContainsFunc(machine[from].edges, func(e edge) bool { return e.to == to })
}

// A rewrite searches again, on the same route or another retrieval route,
// or, when it has no new search, ends the rewriting: the web fallback or
// no answer. It never answers by itself.
func TestRewriteTransitions(t *testing.T) {
	for _, to := range []Step{StepVector, StepGraph, StepWeb, StepNoAnswer} {
		if !allowed(StepRewrite, to) {
			t.Errorf("rewrite→%s is not in the table", to)
		}
	}
	for _, to := range []Step{StepDirect, StepGenerate, StepGrade, StepRewrite, StepRoute} {
		if allowed(StepRewrite, to) {
			t.Errorf("rewrite→%s is in the table", to)
		}
	}
}

// TestEdgePredicates evaluates the table's predicates on states: on each,
// at most one labelled edge of the step holds (so their order decides
// nothing), the unlabelled one only when none does, and the edge taken is
// the one the run must take.
func TestEdgePredicates(t *testing.T) {
	b := Budgets{}.withDefaults()
	rel := []Document{{ID: "d1"}}
	webNote := []Attempt{{Route: RouteWeb, Query: "q", Skipped: SkipWebNotSetUp}}
	webFound := []Attempt{{Route: RouteWeb, Query: "q", Found: 2}}
	cases := []struct {
		name string
		step Step
		s    State
		want Step
	}{
		{"condensed", StepCondense, State{}, StepRoute},

		{"routed to the documents", StepRoute, State{Route: RouteVector}, StepVector},
		{"routed to the graph", StepRoute, State{Route: RouteGraph}, StepGraph},
		{"routed to the web", StepRoute, State{Route: RouteWeb}, StepWeb},
		{"routed to the model alone", StepRoute, State{Route: RouteDirect}, StepDirect},
		{"the search ahead is taken on the documents' route", StepAhead, State{Route: RouteVector}, StepVector},

		{"documents found", StepVector, State{}, StepGrade},
		{"graph rows found", StepGraph, State{}, StepGrade},
		{"web searched", StepWeb, State{Route: RouteWeb, Attempts: webFound}, StepGrade},
		{"web not set up", StepWeb, State{Route: RouteWeb, Attempts: webNote}, StepNoAnswer},
		{"web fallback failed", StepWeb, State{Route: RouteVector, Fallback: true, Attempts: webNote}, StepNoAnswer},
		{"a direct answer", StepDirect, State{}, StepEnd},

		{"one relevant", StepGrade, State{Relevant: rel}, StepGenerate},
		{"one relevant after the fallback", StepGrade, State{Relevant: rel, Fallback: true, Rewrites: 3}, StepGenerate},
		{"none relevant, first search", StepGrade, State{}, StepRewrite},
		{"none relevant, 2 rewrites", StepGrade, State{Rewrites: 2, WebConfigured: true}, StepRewrite},
		{"none relevant, 3 rewrites, web fallback left", StepGrade, State{Rewrites: 3, WebConfigured: true}, StepWeb},
		{"none relevant, 3 rewrites, web not set up", StepGrade, State{Rewrites: 3}, StepNoAnswer},
		{"none relevant, 3 rewrites, web searched", StepGrade, State{Rewrites: 3, WebConfigured: true, WebTried: true}, StepNoAnswer},
		{"none relevant after the fallback", StepGrade, State{Fallback: true, WebConfigured: true, WebTried: true}, StepNoAnswer},

		{"rewritten for the documents", StepRewrite, State{Route: RouteVector, Rewrites: 1}, StepVector},
		{"rewritten onto the graph", StepRewrite, State{Route: RouteGraph, Rewrites: 3}, StepGraph},
		{"rewritten onto the web", StepRewrite, State{Route: RouteWeb, Rewrites: 1, WebConfigured: true}, StepWeb},
		{"no new search, web fallback left", StepRewrite, State{Route: RouteVector, NoNewSearch: true, WebConfigured: true}, StepWeb},
		{"no new search, no web", StepRewrite, State{Route: RouteGraph, NoNewSearch: true}, StepNoAnswer},
		{"no new search, web searched", StepRewrite, State{Route: RouteWeb, NoNewSearch: true, WebConfigured: true, WebTried: true}, StepNoAnswer},

		{"drafted", StepGenerate, State{}, StepCheck},

		{"grounded and answering", StepCheck, State{Finding: FindingAnswers}, StepEnd},
		{"not grounded", StepCheck, State{Finding: FindingUngrounded, Regenerations: 1}, StepGenerate},
		{"not grounded, regenerations used up", StepCheck, State{Finding: FindingUngrounded, Regenerations: 2}, StepEnd},
		{"not answering, first time", StepCheck, State{Finding: FindingPartial}, StepGenerate},
		{"not answering, again", StepCheck, State{Finding: FindingPartial, AnswerRetried: true, Regenerations: 1}, StepEnd},
		{"not answering, regenerations used up", StepCheck, State{Finding: FindingPartial, Regenerations: 2}, StepEnd},
		{"uncertain", StepCheck, State{Finding: FindingUncertain}, StepEnd},
		{"cut off", StepCheck, State{Finding: FindingCutOff, Regenerations: 1}, StepGenerate},
		{"cut off, regenerations used up", StepCheck, State{Finding: FindingCutOff, Regenerations: 2}, StepEnd},
		{"not an answer", StepCheck, State{Finding: FindingNotAnswer}, StepGenerate},
		{"not an answer, regenerations used up", StepCheck, State{Finding: FindingNotAnswer, Regenerations: 2}, StepEnd},

		{"nothing found", StepNoAnswer, State{}, StepEnd},
	}
	covered := map[arrow]bool{}
	for _, c := range cases {
		var holding []Step
		for _, e := range machine[c.step].edges {
			if e.holds == nil && len(holding) == 0 || e.holds != nil && e.holds(&c.s, b) {
				holding = append(holding, e.to)
			}
		}
		if len(holding) != 1 || holding[0] != c.want {
			t.Errorf("%s: from %s the edges to %v hold, want only %s", c.name, c.step, holding, c.want)
		}
		if got, err := next(c.step, &c.s, b); got != c.want || err != nil {
			t.Errorf("%s: next(%s) = %s, %v; want %s", c.name, c.step, got, err, c.want)
		}
		covered[arrow{string(c.step), string(c.want)}] = true
	}
	for from, def := range machine {
		for _, e := range def.edges {
			if !covered[arrow{string(from), string(e.to)}] {
				t.Errorf("no state above takes the edge %s→%s", from, e.to)
			}
		}
	}
	// The search ahead is dropped when the router goes elsewhere.
	for _, r := range []Route{RouteGraph, RouteWeb, RouteDirect} {
		if holdsAny(StepAhead, &State{Route: r}, b) {
			t.Errorf("the search ahead is kept on the %s route", r)
		}
	}
	if _, err := next(StepRoute, &State{Route: "elsewhere"}, b); err == nil {
		t.Error("a route with no edge chose a step")
	}
}

// TestDiagramsMatchTheTable keeps the pictures of the state machine equal
// to the table that runs it: the mermaid flowcharts of README.md ("How it
// answers") and docs/DESIGN.md ("The state machine") must draw exactly the
// edges of machine, each labelled with its condition (edge.when; no label
// for ""), START → firstStep included. A step that runs alongside another
// is drawn with dotted arrows (-.->): from that step, labelled "in
// parallel", and its own edges. Either side changing alone fails.
func TestDiagramsMatchTheTable(t *testing.T) {
	want := map[arrow]drawn{{"START", diagramName(firstStep)}: {}}
	parallel := map[Step]bool{}
	for from, def := range machine {
		if def.alongside != "" {
			want[arrow{diagramName(from), diagramName(def.alongside)}] = drawn{"in parallel", true}
			parallel[def.alongside] = true
		}
	}
	for from, def := range machine {
		for _, e := range def.edges {
			want[arrow{diagramName(from), diagramName(e.to)}] = drawn{e.when, parallel[from]}
		}
	}
	for _, doc := range []struct{ path, heading string }{
		{"../README.md", "## How it answers"},
		{"../docs/DESIGN.md", "## The state machine"},
	} {
		t.Run(strings.TrimPrefix(doc.path, "../"), func(t *testing.T) {
			lines, at := mermaidBlock(t, doc.path, doc.heading)
			got, err := parseFlowchart(lines)
			if err != nil {
				t.Fatalf("%s:%d: the mermaid block: %v", doc.path, at, err)
			}
			for _, a := range sortedArrows(want) {
				d, ok := got[a]
				switch {
				case !ok:
					t.Errorf("the table's edge %s is not drawn; add: %s", a, a.mermaid(want[a]))
				case d.label != want[a].label:
					t.Errorf("edge %s is labelled %q, the table's condition is %q", a, d.label, want[a].label)
				case d.dotted != want[a].dotted:
					t.Errorf("edge %s is drawn %s, want %s", a, a.mermaid(d), a.mermaid(want[a]))
				}
			}
			for _, a := range sortedArrows(got) {
				if _, ok := want[a]; !ok {
					t.Errorf("the diagram draws %s, which the table does not have", a.mermaid(got[a]))
				}
			}
		})
	}
}

func TestParseFlowchart(t *testing.T) {
	got, err := parseFlowchart([]string{
		"flowchart LR",
		"  %% a comment",
		"  START --> a -->|x, y < 2| b & c",
		"",
		"  b & c --> END",
		"  a -.->|meanwhile| d -.-> b",
	})
	want := map[arrow]drawn{
		{"START", "a"}: {}, {"a", "b"}: {"x, y < 2", false}, {"a", "c"}: {"x, y < 2", false}, {"b", "END"}: {}, {"c", "END"}: {},
		{"a", "d"}: {"meanwhile", true}, {"d", "b"}: {"", true},
	}
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("parseFlowchart = %v, %v; want %v", got, err, want)
	}
	if got, err := parseFlowchart([]string{"graph TD", "a --> b"}); err != nil || len(got) != 1 {
		t.Errorf("a graph TD header: %v, %v", got, err)
	}
	for _, bad := range [][]string{
		{"flowchart LR", "a[Start] --> b"},     // node shapes are not read
		{"flowchart LR", "a -- label --> b"},   // nor this label syntax
		{"flowchart LR", "a ==> b"},            // nor other arrows
		{"flowchart LR", "a --> b", "a --> b"}, // an edge drawn twice
		{"flowchart LR", "a"},                  // a line with no edge
		{"flowchart LR", "a -->"},              // an arrow to nothing
		{"a --> b"},                            // no header
	} {
		if _, err := parseFlowchart(bad); err == nil {
			t.Errorf("parseFlowchart(%q) accepted it", bad)
		}
	}
}

// arrow is one edge of a diagram, by the diagram's node names.
type arrow struct{ from, to string }

// drawn is how a diagram draws an arrow: its label, and whether it is
// dotted (-.->), for a step that runs in parallel.
type drawn struct {
	label  string
	dotted bool
}

func (a arrow) String() string { return a.from + "→" + a.to }

func (a arrow) mermaid(d drawn) string {
	arrow := "-->"
	if d.dotted {
		arrow = "-.->"
	}
	if d.label == "" {
		return a.from + " " + arrow + " " + a.to
	}
	return a.from + " " + arrow + "|" + d.label + "| " + a.to
}

func sortedArrows[V any](m map[arrow]V) []arrow {
	out := slices.Collect(maps.Keys(m))
	slices.SortFunc(out, func(a, b arrow) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// diagramName is how the diagrams name a step: END for the end (mermaid
// reserves "end"), the step's name otherwise.
func diagramName(s Step) string {
	if s == StepEnd {
		return "END"
	}
	return string(s)
}

// mermaidBlock returns the lines of the first ```mermaid block after the
// heading in the Markdown file at path, and the line number of its first
// line.
func mermaidBlock(t *testing.T, path, heading string) ([]string, int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	i := slices.Index(lines, heading)
	if i < 0 {
		t.Fatalf("%s has no heading %q", path, heading)
	}
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != "```mermaid"; i++ {
		if i > 0 && strings.HasPrefix(lines[i], "## ") && lines[i] != heading {
			t.Fatalf("%s: no mermaid block under %q", path, heading)
		}
	}
	if i == len(lines) {
		t.Fatalf("%s: no mermaid block under %q", path, heading)
	}
	start := i + 1
	for i = start; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
	}
	return lines[start:i], start + 1
}

var (
	mermaidArrow = regexp.MustCompile(`(-->|-\.->)(?:\|([^|]*)\|)?`)
	mermaidNode  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// parseFlowchart reads the edges of a mermaid flowchart written as the
// README writes it: "flowchart" (or "graph") and a direction, then lines
// of node ids joined by --> arrows or dotted -.-> ones, each arrow with an
// optional |label|,
// where "a & b" stands for both nodes (a --> b & c draws a→b and a→c) and
// one line may chain several arrows. Anything else, such as node shapes
// (a[text]) or other arrows (==>, -- text -->), is an error rather than
// something silently misread, and so is an edge drawn twice.
func parseFlowchart(lines []string) (map[arrow]drawn, error) {
	if len(lines) == 0 {
		return nil, fmt.Errorf("empty")
	}
	if h := strings.Fields(lines[0]); len(h) != 2 || (h[0] != "flowchart" && h[0] != "graph") {
		return nil, fmt.Errorf("line 1 is %q, want a header such as \"flowchart LR\"", lines[0])
	}
	edges := map[arrow]drawn{}
	for n, line := range lines[1:] {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "%%") {
			continue
		}
		arrows := mermaidArrow.FindAllStringSubmatchIndex(line, -1)
		if len(arrows) == 0 {
			return nil, fmt.Errorf("line %d (%q) draws no edge", n+2, line)
		}
		var groups [][]string
		var labels []drawn
		prev := 0
		for _, m := range arrows {
			groups = append(groups, strings.Split(line[prev:m[0]], "&"))
			d := drawn{dotted: line[m[2]:m[3]] == "-.->"}
			if m[4] >= 0 {
				d.label = strings.TrimSpace(line[m[4]:m[5]])
			}
			labels = append(labels, d)
			prev = m[1]
		}
		groups = append(groups, strings.Split(line[prev:], "&"))
		for _, g := range groups {
			for i, id := range g {
				g[i] = strings.TrimSpace(id)
				if !mermaidNode.MatchString(g[i]) {
					return nil, fmt.Errorf("line %d (%q): %q is not a plain node id", n+2, line, g[i])
				}
			}
		}
		for i, label := range labels {
			for _, from := range groups[i] {
				for _, to := range groups[i+1] {
					a := arrow{from, to}
					if _, dup := edges[a]; dup {
						return nil, fmt.Errorf("line %d: edge %s is drawn twice", n+2, a)
					}
					edges[a] = label
				}
			}
		}
	}
	return edges, nil
}

// nopBrain satisfies Brain for tests that never run a question.
type nopBrain struct{ Brain }
