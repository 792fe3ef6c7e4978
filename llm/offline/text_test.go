package offline

import (
	"fmt"
	"github.com/switchboard/switchboard/kb/words"
	"maps"
	"slices"
	"testing"
)

func TestAppendVariants(t *testing.T) {
	for _, tt := range []struct {
		word string
		want []string
	}{
		{"kept", []string{"keep"}},
		{"lost", []string{"los", "loser", "losing"}}, // as lose, and lose's family
		{"deletion", []string{"delet"}},
		{"payments", []string{"pay"}},
		{"delivery", []string{"deliver"}},
		{"monthly", []string{"month"}},
		{"political", []string{"politic"}},
		{"illness", []string{"ill"}},
		{"10th", []string{"10"}},
		{"ten", []string{"10"}},
		{"refund", nil},
		{"only", nil},                                   // too short a base
		{"personal", []string{"personality", "person"}}, // WordNet's family of the word
		{"allowance", []string{"allow"}},
		{"lion", []string{"lioniz"}}, // lionize, not a verb "li"
	} {
		got := appendVariants(nil, words.Tokens(tt.word)[0])
		if !slices.Equal(got, tt.want) {
			t.Errorf("appendVariants(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestKeywords(t *testing.T) {
	type kw struct {
		lower  string
		stem   string
		weight float64
		frame  bool
	}
	for _, tt := range []struct {
		question string
		want     []kw
	}{
		{"How long do we hold on to CVs?", []kw{{"long", "long", 0.5, true}, {"hold on", "hold on", 1, false}, {"cvs", "cv", 1, false}}},
		{"When can I sign up for health insurance?", []kw{{"sign up", "sign up", 1, false}, {"health insurance", "health insuranc", 1, false}}},                // phrases WordNet knows
		{"Is there a limit on presents for a client?", []kw{{"limit", "limit", 1, true}, {"presents", "present", 0.5, false}, {"client", "client", 1, false}}}, // usually a verb
		{"Can I take a cab after ten at night?", []kw{{"take", "tak", 0.5, false}, {"cab", "cab", 1, false}, {"ten", "10", 0.5, true}, {"night", "night", 1, false}}},
		{"Is time off paid?", []kw{{"time off", "tim off", 1, false}, {"paid", "paid", 0.5, false}}},
		{"Is our leave policy generous?", []kw{{"leave", "leav", 1, false}, {"policy", "policy", 1, false}, {"generous", "generous", 0.5, false}}}, // a verb after "our" is a noun
		{"When someone leaves the company", []kw{{"leaves", "leav", 1, false}, {"company", "company", 1, false}}},
		{"What is the way to do this thing?", []kw{{"way", "way", 0.5, false}, {"thing", "thing", 0.5, false}}}, // words of many senses
		// Nothing but frame words: they are the topic.
		{"What are the limits?", []kw{{"limits", "limit", 1, false}}},
	} {
		var got []kw
		for _, k := range keywords(tt.question) {
			got = append(got, kw{k.Lower, k.Stem, k.weight, k.frame})
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("keywords(%q) =\n  %+v\nwant\n  %+v", tt.question, got, tt.want)
		}
	}
}

func TestMatchIn(t *testing.T) {
	for _, tt := range []struct {
		keyword, text string
		ok            bool
		via           string
	}{
		{"refund", "Refunds are paid within 10 days.", true, ""},
		{"losing", "Lost receipts are limited to 100 EUR.", true, ""}, // lost is lose
		{"kept", "We keep backups for 35 days.", true, ""},
		{"deleted", "Deletion is automatic.", true, ""},
		{"deletion", "Data is deleted nightly.", true, ""},
		{"delivered", "Counted from the invoice date, not from delivery.", true, ""},
		{"ten", "On your 10th anniversary you get 10 shares.", true, ""},
		// Related words come from WordNet: derived forms and the
		// synonyms of the most frequent sense.
		{"retain", "Retention is 30 days.", true, ""}, // one family
		{"car", "Automobiles park in lot B.", true, "automobile"},
		{"deployment", "We deploy on Tuesdays.", true, ""},    // a noun in -ment is its verb's form
		{"closed", "The account was deactivated.", false, ""}, // a rarer sense of close
		{"CVs", "The count is 105.", false, ""},               // not the Roman numeral
		{"sign up", "Sign up on the portal.", true, ""},       // the phrase's own words
		{"pet", "Cats are welcome.", false, ""},               // narrower words are not related
		{"plane", "Annual plans are refunded.", false, ""},
		{"sit", "Remove a site from the console.", false, ""},
		{"time off", "It takes time to review.", false, ""}, // "off" is missing
		// A slip of the keyboard in a word WordNet does not know.
		{"requried", "Only the display name is required.", true, ""},
		{"recieve", "You receive a badge.", true, ""},
		{"kubectl", "Run the kube control tool.", false, ""}, // jargon is not corrected
		// Chat abbreviations of longer words.
		{"ack", "Do not acknowledge a page meant for someone else.", true, ""},
		{"env", "Set it in the environment of the build.", true, ""},
		{"cfg", "The cart holds the groceries.", false, ""},
	} {
		k := keywords(tt.keyword)
		if len(k) != 1 {
			t.Fatalf("keywords(%q) = %+v", tt.keyword, k)
		}
		ok, via := matchIn(k[0], stemSet(tt.text))
		if ok != tt.ok || via != tt.via {
			t.Errorf("matchIn(%q, %q) = %v, %q; want %v, %q", tt.keyword, tt.text, ok, via, tt.ok, tt.via)
		}
	}
}

func TestMatchShare(t *testing.T) {
	for _, tt := range []struct {
		keyword, text string
		share         float64
	}{
		{"refund", "Refunds take 30 days.", 1},
		{"retention", "We retain logs for 30 days.", 1}, // one family
		{"car", "Automobiles park in lot B.", synonymShare},
		{"public holidays", "We get 11 local holidays a year.", 0}, // a phrase is whole or nothing
		{"time off", "It takes time.", 0},
		{"refund", "Nothing here.", 0},
	} {
		k := keywords(tt.keyword)
		if len(k) != 1 {
			t.Fatalf("keywords(%q) = %+v", tt.keyword, k)
		}
		if share, _ := matchShare(k[0], stemSet(tt.text)); share != tt.share {
			t.Errorf("matchShare(%q, %q) = %v; want %v", tt.keyword, tt.text, share, tt.share)
		}
	}
}

// docStemSet is stemSet, kept: the same set for the same text, whatever
// was asked between, and never more than corpusStems.max texts.
func TestDocStemSetIsStemSet(t *testing.T) {
	const s = "Customers can request a full refund within 30 days of purchase."
	if got, want := docStemSet(s), stemSet(s); !maps.Equal(got, want) {
		t.Fatalf("docStemSet = %v, want stemSet's %v", got, want)
	}
	for i := range corpusStems.max + 10 {
		docStemSet(fmt.Sprintf("sentence number %d about refunds", i))
	}
	corpusStems.mu.Lock()
	n := len(corpusStems.m)
	corpusStems.mu.Unlock()
	if n > corpusStems.max {
		t.Errorf("%d texts kept, want at most %d", n, corpusStems.max)
	}
	if got, want := docStemSet(s), stemSet(s); !maps.Equal(got, want) {
		t.Errorf("after the memo was emptied: %v, want %v", got, want)
	}
}
