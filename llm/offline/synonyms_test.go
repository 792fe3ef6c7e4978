package offline

import (
	"github.com/switchboard/switchboard/kb/words"
	"slices"
	"strings"
	"testing"
)

func TestBuildThesaurus(t *testing.T) {
	groups := `
# a heading, skipped
refund, money back, reimbursement
sign up, enroll
refund, repay
`
	syn, phrases := buildThesaurus(groups, map[string][]string{"cat": {"pet"}})
	tests := []struct {
		key  string
		want []string
	}{
		{"refund", []string{"money back", "reimbursement", "repay"}}, // both groups, in order
		{"reimbursement", []string{"refund", "money back"}},
		{"money back", []string{"refund", "reimbursement"}}, // a phrase is a key too
		{"sign up", []string{"enroll"}},
		{"enroll", []string{"sign up"}}, // keyed by stem
		{"cat", []string{"pet"}},
		{"pet", nil}, // broader terms go one way
		{"#", nil},
	}
	for _, tt := range tests {
		if got := syn[tt.key]; !slices.Equal(got, tt.want) {
			t.Errorf("synonyms[%q] = %q, want %q", tt.key, got, tt.want)
		}
	}
	for _, p := range []string{"money back", "sign up"} {
		if !phrases[p] {
			t.Errorf("%q is not a phrase key", p)
		}
	}
	if phrases["refund"] {
		t.Error("a single word is a phrase key")
	}
}

// The shipped thesaurus: every entry is usable, no word is its own
// synonym, and lookups go through the same keys as the text.
func TestThesaurus(t *testing.T) {
	for key, syns := range synonyms {
		if key == "" || len(syns) == 0 {
			t.Errorf("empty entry %q: %q", key, syns)
		}
		seen := map[string]bool{}
		for _, s := range syns {
			k := phraseKey(s)
			if k == key {
				t.Errorf("%q is its own synonym", key)
			}
			if seen[k] {
				t.Errorf("%q lists %q twice", key, s)
			}
			seen[k] = true
		}
		if len(synonymStems[key]) != len(syns) {
			t.Errorf("synonymStems[%q] has %d entries for %d synonyms", key, len(synonymStems[key]), len(syns))
		}
	}
	for _, tt := range []struct {
		word string
		has  string // one synonym it must have
	}{
		{"refunds", "money back"},
		{"CVs", "applicant"},
		{"misplaced", "lost"},
		{"losing", "misplace"}, // the lemma of an irregular form
		{"presents", "gift"},
		{"cab", "taxi"},
		{"sabbatical", "career break"},
		{"cat", "pet"},
		{"alarm", "alert"},
		{"coworker", "colleague"},
	} {
		kws := keywords(tt.word)
		if len(kws) != 1 {
			t.Fatalf("keywords(%q) = %+v", tt.word, kws)
		}
		if got := synonymsOf(kws[0]); !slices.Contains(got, tt.has) {
			t.Errorf("synonyms of %q = %q, want %q among them", tt.word, got, tt.has)
		}
	}
	// Function words are never synonyms: a synonym "it" or "own" would
	// match every document.
	for key, syns := range synonyms {
		for _, s := range syns {
			if toks := words.Tokens(s); len(toks) == 1 && words.IsFiller(toks[0].Lower) {
				t.Errorf("%q has the stopword %q as a synonym", key, s)
			}
		}
	}
}

func TestPhraseKey(t *testing.T) {
	for in, want := range map[string]string{
		"refunds":              "refund",
		"laid off":             "laid off",
		"Paid Time Off":        "pay tim off", // paid is pay
		"lost":                 "los",         // as lose, losing
		"a b c d e":            "",            // too long to be a phrase
		"":                     "",
		"heads-up":             "head up",
		"work from anywhere":   "work from anywher",
		"get-together":         "get together",
		"company-wide meeting": "company wid meet",
	} {
		if got := phraseKey(in); got != want {
			t.Errorf("phraseKey(%q) = %q, want %q", in, got, want)
		}
	}
	if strings.Contains(phraseKey("time off"), "  ") {
		t.Error("double space in a key")
	}
}
