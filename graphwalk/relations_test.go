package graphwalk

import (
	"testing"

	"github.com/switchboard/switchboard/kb/words"
)

func TestRelMatcher(t *testing.T) {
	for _, tc := range []struct {
		query, typ string
		want       bool
	}{
		{"Who supplies Chai?", "SUPPLIES", true},
		{"Which supplier for Chai", "SUPPLIES", true},
		{"what was supplied", "SUPPLIES", true},
		{"who buys it", "BUYS", true},
		{"who bought it", "BUYS", true},
		{"who manages Acme", "ACCOUNT_MANAGER_OF", true},
		{"Acme's account manager", "ACCOUNT_MANAGER_OF", true},
		{"where is Globex located", "LOCATED_IN", true},
		{"Who makes Geitost?", "SUPPLIES", true}, // synonyms
		{"Which company is behind Ikura?", "SUPPLIES", true},
		{"Who hosts Brightline Cloud for us?", "SUPPLIES", true},
		{"What kind of food is Konbu filed under?", "PART_OF", true},
		{"Which category is Tofu in?", "IN_CATEGORY", true},
		{"Who is paying us for Insight Analytics?", "BUYS", true},
		{"Who makes Geitost?", "BUYS", false},
		{"Tell me about Chai", "SUPPLIES", false},
		{"Who is in Berlin", "LOCATED_IN", false}, // "in" is a stopword
	} {
		if got := newRelMatcher(wordsOf(tc.query)).matches(tc.typ); got != tc.want {
			t.Errorf("%q matches %s = %v, want %v", tc.query, tc.typ, got, tc.want)
		}
	}
}

func wordsOf(s string) []string { return words.Split(s, maxQueryWords) }
