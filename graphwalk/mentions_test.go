package graphwalk_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/graphwalk"
)

func mentionIndex() *graphwalk.Index {
	return graphwalk.NewIndex([]graphwalk.Entry{
		{ID: "t1", Name: "Beacon T1 Temperature Logger", Labels: []string{"Product"}},
		{ID: "s2", Name: "Beacon S2 Air Quality Sensor", Labels: []string{"Product"}},
		{ID: "eu", Name: "EU Data Region (Frankfurt)", Labels: []string{"System"}},
		{ID: "horn", Name: "Around the Horn", Labels: []string{"Customer"}},
		{ID: "gumbo", Name: "Chef Anton's Gumbo Mix", Labels: []string{"Product"}},
		{ID: "cajun", Name: "Chef Anton's Cajun Seasoning", Labels: []string{"Product"}},
		{ID: "chai", Name: "Chai", Labels: []string{"Product"}},
		{ID: "cat", Name: "Beverages", Labels: []string{"Category"}},
	})
}

func names(es []*graphwalk.Entity) string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return strings.Join(out, "; ")
}

func TestMentions(t *testing.T) {
	idx := mentionIndex()
	for text, want := range map[string]string{
		"Where does the Beacon T1 come from?":         "Beacon T1 Temperature Logger",
		"the beacon t1 temperature logger and chai":   "Beacon T1 Temperature Logger; Chai",
		"Which customers use the EU data region?":     "EU Data Region (Frankfurt)",
		"Who makes Chef Anton's products?":            "Chef Anton's Cajun Seasoning; Chef Anton's Gumbo Mix",
		"anything around the office":                  "", // "around the" ends in a stopword
		"the Beacon range":                            "", // one word of a longer name is not a name
		"What is EU law on data?":                     "",
		"Who buys Around the Horn's favourite? Chai.": "Around the Horn; Chai",
	} {
		if got := names(idx.Mentions(text)); got != want {
			t.Errorf("Mentions(%q) = %q, want %q", text, got, want)
		}
	}
	// Match still wants the whole name.
	if got := idx.MatchNames("Where does the Beacon T1 come from?"); len(got) != 0 {
		t.Errorf("MatchNames found %v", got)
	}
	var none *graphwalk.Index
	if none.Mentions("Chai") != nil || none.Match("Chai") != nil {
		t.Error("a nil Index matched")
	}
}

func TestMentionsBound(t *testing.T) {
	var entries []graphwalk.Entry
	for i := range 30 {
		entries = append(entries, graphwalk.Entry{ID: fmt.Sprint(i), Name: fmt.Sprintf("Company %c%c Holdings", 'a'+i%26, 'a'+i/26)})
	}
	idx := graphwalk.NewIndex(entries)
	var text strings.Builder
	for _, e := range entries {
		text.WriteString(strings.TrimSuffix(e.Name, " Holdings") + ", ")
	}
	if got := idx.Mentions(text.String()); len(got) != 10 {
		t.Errorf("%d mentions, want at most 10", len(got))
	}
}

func TestLabel(t *testing.T) {
	idx := mentionIndex()
	for w, want := range map[string]string{"products": "Product", "Category": "Category", "categories": "Category", "systems": "System"} {
		if got, ok := idx.Label(w); !ok || got != want {
			t.Errorf("Label(%q) = %q, %v; want %s", w, got, ok, want)
		}
	}
	if _, ok := idx.Label("policy"); ok {
		t.Error(`Label("policy") found a label`)
	}
	var none *graphwalk.Index
	if _, ok := none.Label("products"); ok {
		t.Error("a nil Index has labels")
	}
}
