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
		{"Tell me about Chai", "SUPPLIES", false},
		{"Who is in Berlin", "LOCATED_IN", false}, // "in" is a stopword
	} {
		if got := newRelMatcher(wordsOf(tc.query)).matches(tc.typ); got != tc.want {
			t.Errorf("%q matches %s = %v, want %v", tc.query, tc.typ, got, tc.want)
		}
	}
}

func wordsOf(s string) []string { return words.Split(s, maxQueryWords) }
