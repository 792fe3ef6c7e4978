package words

import (
	"slices"
	"strings"
	"testing"
)

// TestFillersHoldStopwords checks that every word the stores skip is
// filler too, so that the offline engine never weighs one.
func TestFillersHoldStopwords(t *testing.T) {
	for w := range stopwords {
		if !IsFiller(w) {
			t.Errorf("%q is a stopword but not filler", w)
		}
	}
	for _, w := range []string{"dont", "hello", "ten", "refund"} {
		if IsFiller(w) != (w != "refund") {
			t.Errorf("IsFiller(%q) = %v", w, IsFiller(w))
		}
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"policies": "policy",
		"stored":   "stor",
		"storing":  "stor",
		"shipping": "ship",
		"plane":    "plane", // not plan
		"planes":   "plane",
		"plans":    "plan",
		"planned":  "plan",
		"site":     "site", // not sit
		"sites":    "site",
		"noted":    "note",
		"noting":   "note",
		"hopping":  "hop",
		"hoping":   "hope",
		"caring":   "care", // not car
		"cars":     "car",
		"2024":     "2024",
	} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokensAcronymPlural(t *testing.T) {
	for in, want := range map[string]string{
		"CVs": "cv", "APIs": "api", "KPIs": "kpi", "bus": "bus", "AWS": "aws",
	} {
		toks := Tokens(in)
		if len(toks) != 1 || toks[0].Stem != want {
			t.Errorf("Tokens(%q) = %+v, want stem %q", in, toks, want)
		}
	}
}

func TestTokens(t *testing.T) {
	got := Tokens("Acme's policy: don't see https://x.example/employees/apply (Suppliers)")
	want := []Token{{"Acme", "acme", "acm"}, {"policy", "policy", "policy"}, {"don't", "dont", "dont"},
		{"see", "see", "see"}, {"Suppliers", "suppliers", "supplier"}}
	if !slices.Equal(got, want) {
		t.Errorf("Tokens = %+v, want %+v", got, want)
	}
}

func TestNumbers(t *testing.T) {
	got := Numbers("1,000 or 1000.0 items, 007 days, 30.50 EUR, 1,00 and 2.")
	want := []string{"1000", "1000", "7", "30.5", "1", "0", "2"}
	if !slices.Equal(got, want) {
		t.Errorf("Numbers = %q, want %q", got, want)
	}
	for w, want := range map[string]string{"10th": "10", "2nd": "2", "nth": "", "1st": "1", "th": ""} {
		if got := Ordinal(w); got != want {
			t.Errorf("Ordinal(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestSentences(t *testing.T) {
	got := Sentences(`Ask J. Smith, e.g. by mail. It works! Really?! "Yes." Then 3.5 days`, 10)
	want := []string{"Ask J. Smith, e.g. by mail.", "It works!", "Really?!", `"Yes."`, "Then 3.5 days"}
	if !slices.Equal(got, want) {
		t.Errorf("Sentences = %q, want %q", got, want)
	}
	if got := Sentences("One. Two. Three.", 2); !slices.Equal(got, []string{"One.", "Two."}) {
		t.Errorf("Sentences with a limit of 2 = %q", got)
	}
}

func TestStripBullet(t *testing.T) {
	for in, want := range map[string]string{
		"- item": "item", "> - quoted item": "quoted item", "• dot": "dot", "12. twelfth": "twelfth",
		"3) third": "third", "plain": "plain", "12345. too long": "12345. too long",
	} {
		if got := StripBullet(in); got != want {
			t.Errorf("StripBullet(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzText reads whatever users type and documents hold: no input makes
// the readers panic or return empty words.
func FuzzText(f *testing.F) {
	for _, s := range []string{
		"Acme's CVs: don't https://x.example/a b", "1,000.5 and 10th", "e.g. U.S. J. Smith. Yes?!", "> - 1. item",
		"İstanbul \u212aelvin", "''' ’s", "", "9" + strings.Repeat("9,999", 30),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokens(s) {
			if tok.Lower == "" || tok.Stem == "" {
				t.Errorf("Tokens(%q) has an empty word: %+v", s, tok)
			}
		}
		for _, n := range Numbers(s) {
			if n == "" {
				t.Errorf("Numbers(%q) has an empty number", s)
			}
		}
		if got := Sentences(s, 3); len(got) > 3 {
			t.Errorf("Sentences(%q, 3) = %d sentences", s, len(got))
		}
		if got := StripBullet(s); len(got) > len(s) {
			t.Errorf("StripBullet(%q) = %q, longer", s, got)
		}
		_ = Ordinal(s)
	})
}

// Initials joined by full stops end no sentence: "the U.S. agency".
func TestSentencesKeepInitials(t *testing.T) {
	got := Sentences("It was created by the U.S. Federal Emergency Management Agency. It is old.", 10)
	if len(got) != 2 || !strings.HasSuffix(got[0], "Agency.") {
		t.Errorf("Sentences = %q, want the first to run to Agency.", got)
	}
}
