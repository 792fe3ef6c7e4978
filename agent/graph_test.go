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
	for _, s := range []Step{StepCondense, StepRoute, StepVector, StepGraph, StepWeb, StepDirect,
		StepGrade, StepRewrite, StepGenerate, StepCheck, StepNoAnswer} {
		if machine[s].run == nil {
			t.Errorf("step %s has no handler", s)
		}
	}
	broken := map[string]func(map[Step]stepDef){
		"missing the grade node": func(m map[Step]stepDef) { delete(m, StepGrade) },
		"grade without a handler": func(m map[Step]stepDef) {
			d := m[StepGrade]
			d.run = nil
			m[StepGrade] = d
		},
		"grade without edges": func(m map[Step]stepDef) { m[StepGrade] = stepDef{run: m[StepGrade].run} },
		"grade→generate twice": func(m map[Step]stepDef) {
			d := m[StepGrade]
			d.edges = append(slices.Clone(d.edges), edge{StepGenerate, "again"})
			m[StepGrade] = d
		},
		"grade edges without conditions": func(m map[Step]stepDef) {
			m[StepGrade] = stepDef{m[StepGrade].run, []edge{{StepGenerate, ""}, {StepRewrite, ""}}}
		},
	}
	for name, mod := range broken {
		m := maps.Clone(machine)
		mod(m)
		if err := checkGraph(m); err == nil || !strings.Contains(err.Error(), "grade") {
			t.Errorf("a table %s checked: %v", name, err)
		}
	}
	if allowed(StepDirect, StepGrade) || !allowed(StepGrade, StepRewrite) {
		t.Error("allowed disagrees with the table")
	}
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
	for _, r := range []Route{RouteVector, RouteGraph, RouteWeb} {
		if !allowed(StepRewrite, retrievalStep(r)) {
			t.Errorf("a rewrite to %s cannot reach its retrieval step", r)
		}
	}
}

// TestDiagramsMatchTheTable keeps the pictures of the state machine equal
// to the table that runs it: the mermaid flowcharts of README.md ("How it
// answers") and docs/DESIGN.md ("The state machine") must draw exactly the
// edges of machine, each labelled with its condition (edge.when; no label
// for ""), START → firstStep included. Either side changing alone fails.
func TestDiagramsMatchTheTable(t *testing.T) {
	want := map[arrow]string{{"START", diagramName(firstStep)}: ""}
	for from, def := range machine {
		for _, e := range def.edges {
			want[arrow{diagramName(from), diagramName(e.to)}] = e.when
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
				label, ok := got[a]
				switch {
				case !ok:
					t.Errorf("the table's edge %s is not drawn; add: %s", a, a.mermaid(want[a]))
				case label != want[a]:
					t.Errorf("edge %s is labelled %q, the table's condition is %q", a, label, want[a])
				}
			}
			for _, a := range sortedArrows(got) {
				if _, ok := want[a]; !ok {
					t.Errorf("the diagram draws %s (%q), which the table does not have", a, got[a])
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
	})
	want := map[arrow]string{
		{"START", "a"}: "", {"a", "b"}: "x, y < 2", {"a", "c"}: "x, y < 2", {"b", "END"}: "", {"c", "END"}: "",
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
		{"flowchart LR", "a -.-> b"},           // nor other arrows
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

func (a arrow) String() string { return a.from + "→" + a.to }

func (a arrow) mermaid(label string) string {
	if label == "" {
		return a.from + " --> " + a.to
	}
	return a.from + " -->|" + label + "| " + a.to
}

func sortedArrows(m map[arrow]string) []arrow {
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
	mermaidArrow = regexp.MustCompile(`-->(?:\|([^|]*)\|)?`)
	mermaidNode  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// parseFlowchart reads the edges of a mermaid flowchart written as the
// README writes it: "flowchart" (or "graph") and a direction, then lines
// of node ids joined by --> arrows, each arrow with an optional |label|,
// where "a & b" stands for both nodes (a --> b & c draws a→b and a→c) and
// one line may chain several arrows. Anything else, such as node shapes
// (a[text]) or other arrows (-.->, ==>, -- text -->), is an error rather
// than something silently misread, and so is an edge drawn twice.
func parseFlowchart(lines []string) (map[arrow]string, error) {
	if len(lines) == 0 {
		return nil, fmt.Errorf("empty")
	}
	if h := strings.Fields(lines[0]); len(h) != 2 || (h[0] != "flowchart" && h[0] != "graph") {
		return nil, fmt.Errorf("line 1 is %q, want a header such as \"flowchart LR\"", lines[0])
	}
	edges := map[arrow]string{}
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
		var labels []string
		prev := 0
		for _, m := range arrows {
			groups = append(groups, strings.Split(line[prev:m[0]], "&"))
			label := ""
			if m[2] >= 0 {
				label = strings.TrimSpace(line[m[2]:m[3]])
			}
			labels = append(labels, label)
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
