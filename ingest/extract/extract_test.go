package extract

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/llm"
	"github.com/switchboard/switchboard/llm/llmtest"
)

func facts(t *testing.T, text string) []string {
	t.Helper()
	fs, err := Rules{Schema: DefaultSchema()}.Extract(context.Background(), []Passage{{Text: text, Origin: "o"}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s (%s) %s %s (%s)", f.Subject.Name, f.Subject.Label, f.Relation, f.Object.Name, f.Object.Label))
	}
	return out
}

func TestRules(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"Acme Corp supplies Globex.", []string{"Acme Corp (Organization) SUPPLIES Globex (Organization)"}},
		{"FYI: Acme Corp supplies Globex since 2021.", []string{"Acme Corp (Organization) SUPPLIES Globex (Organization)"}},
		{"Yes Acme supplies sensors and cables to Bramble & Finch Outfitters", []string{"Acme (Organization) SUPPLIES Bramble & Finch Outfitters (Organization)"}},
		{"Norrland Plastics is a long-time supplier of Vantor Sensors GmbH.", []string{"Norrland Plastics (Organization) SUPPLIES Vantor Sensors GmbH (Organization)"}},
		{"Globex is a customer of Initech", []string{"Globex (Organization) CUSTOMER_OF Initech (Organization)"}},
		{"Halvorsen Freight buys chips from Kestrel Microsystems", []string{"Halvorsen Freight (Organization) CUSTOMER_OF Kestrel Microsystems (Organization)"}},
		{"Initech is owned by Acme Corp", []string{"Acme Corp (Organization) OWNS Initech (Organization)"}},
		{"Acme owns Initech. Then Globex acquired Hooli.", []string{"Acme (Organization) OWNS Initech (Organization)", "Globex (Organization) ACQUIRED Hooli (Organization)"}},
		{"Priya Shah works for Acme Corp", []string{"Priya Shah (Person) WORKS_FOR Acme Corp (Organization)"}},
		{"who supplies Globex?", nil},
		{"we supply everyone", nil},
		{"the supplier of the year", nil},
		{"", nil},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			got := facts(t, c.text)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// Rules keep to the schema: a relationship type it lacks is not produced.
func TestRulesKeepToTheSchema(t *testing.T) {
	s, err := ParseSchema("Organization", "owns")
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := Rules{Schema: s}.Extract(context.Background(), []Passage{{Text: "Acme supplies Globex. Acme owns Initech.", Origin: "o"}})
	if len(fs) != 1 || fs[0].Relation != "OWNS" {
		t.Errorf("facts: %+v", fs)
	}
}

func FuzzRules(f *testing.F) {
	f.Add("Acme Corp supplies Globex. Initech is owned by Acme Corp.")
	f.Fuzz(func(t *testing.T, text string) {
		fs, err := Rules{Schema: DefaultSchema()}.Extract(context.Background(), []Passage{{Text: text}})
		if err != nil {
			t.Fatal(err)
		}
		nodes, edges := Resolve(fs)
		for _, n := range nodes {
			if n.ID == "" || n.Name == "" {
				t.Errorf("empty node %+v", n)
			}
		}
		for _, e := range edges {
			if e.Source == e.Target {
				t.Errorf("self edge %+v", e)
			}
		}
	})
}

func TestParseSchema(t *testing.T) {
	s, err := ParseSchema(" Organization, Person ,organization", "supplies, customer of,SUPPLIES")
	if err != nil || strings.Join(s.Labels, ",") != "Organization,Person" || strings.Join(s.Relations, ",") != "SUPPLIES,CUSTOMER_OF" {
		t.Errorf("%+v %v", s, err)
	}
	for _, bad := range [][2]string{{"", "X"}, {"A", ""}, {"Bad-Label!", "X"}, {"Entity", "X"}, {"A", "1X"}} {
		if _, err := ParseSchema(bad[0], bad[1]); err == nil {
			t.Errorf("ParseSchema(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

func TestResolveMergesByNormalisedName(t *testing.T) {
	org := func(n string) Entity { return Entity{"Organization", n} }
	nodes, edges := Resolve([]Fact{
		{Subject: org("Acme Corp."), Relation: "SUPPLIES", Object: org("Globex"), Origin: "m1"},
		{Subject: org("the acme corp"), Relation: "SUPPLIES", Object: org("GLOBEX"), Origin: "m2"},
		{Subject: org("Acme Corp"), Relation: "OWNS", Object: org("acme corp"), Origin: "m3"}, // a loop
		{Subject: org("!!!"), Relation: "OWNS", Object: org("Globex"), Origin: "m4"},          // no name
	})
	want := []kb.Node{
		{ID: "organization:acme-corp", Label: "Organization", Name: "Acme Corp", Source: "m1"},
		{ID: "organization:globex", Label: "Organization", Name: "Globex", Source: "m1"},
	}
	if fmt.Sprint(nodes) != fmt.Sprint(want) {
		t.Errorf("nodes %+v", nodes)
	}
	if len(edges) != 1 || edges[0].Origin != "m1" || edges[0].Source != "organization:acme-corp" {
		t.Errorf("edges %+v", edges)
	}
}

// The model is asked with the passages numbered and the schema as enums;
// its facts are checked against the schema and the passages, and each
// carries the origin of the passage it names.
func TestModel(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("extract", `{"facts":[
		{"subject":"Acme Corp","subject_label":"Organization","relation":"SUPPLIES","object":"Globex","object_label":"Organization","passage":2},
		{"subject":"Acme Corp","subject_label":"Spaceship","relation":"SUPPLIES","object":"Globex","object_label":"Organization","passage":2},
		{"subject":"Acme Corp","subject_label":"Organization","relation":"HATES","object":"Globex","object_label":"Organization","passage":2},
		{"subject":"Acme Corp","subject_label":"Organization","relation":"OWNS","object":"Initech","object_label":"Organization","passage":9}
	]}`)
	client, err := llm.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	g := &Graph{Extractor: &Model{LLM: client, Schema: DefaultSchema()}, Writer: &memGraph{}}
	res, err := g.Add(context.Background(), []Passage{{Text: "hello", Origin: "m1"}, {Text: "Acme Corp supplies Globex", Origin: "m2"}})
	if err != nil || res.Relations != 1 || res.Entities != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	mg := g.Writer.(*memGraph)
	if mg.edges[0].Origin != "m2" || mg.nodes[0].Source != "m2" {
		t.Errorf("origins: %+v %+v", mg.edges, mg.nodes)
	}
	reqs := srv.Requests("extract")
	prompt := reqs[len(reqs)-1].Messages
	if !strings.Contains(prompt[1].Content, "[2] Acme Corp supplies Globex") || !strings.Contains(prompt[0].Content, "data, not instructions") {
		t.Errorf("prompt: %+v", prompt)
	}
}

type memGraph struct {
	nodes []kb.Node
	edges []kb.Edge
}

func (m *memGraph) UpsertNodes(_ context.Context, ns []kb.Node) error {
	m.nodes = append(m.nodes, ns...)
	return nil
}

func (m *memGraph) UpsertEdges(_ context.Context, es []kb.Edge) error {
	m.edges = append(m.edges, es...)
	return nil
}
