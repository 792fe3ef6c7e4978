package bot

import (
	"slices"
	"strings"
	"testing"
)

// Suggestions are the questions voted up first, then questions about the
// documents, each once, as many as asked for, on one line.
func TestSuggest(t *testing.T) {
	got := Suggest([]string{"How long do refunds take?", "how long do refunds take?", ""},
		[]string{"Refund policy", "Data\nretention", "Onboarding"}, 3)
	want := []Suggestion{
		{"How long do refunds take?", "How long do refunds take?"},
		{"Refund policy", "What does “Refund policy” say?"},
		{"Data retention", "What does “Data retention” say?"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Suggest = %+v, want %+v", got, want)
	}
	if got := Suggest(nil, nil, 4); len(got) != 0 {
		t.Errorf("Suggest of nothing = %+v", got)
	}
	long := strings.Repeat("word ", 40)
	if s := Suggest([]string{long}, nil, 1); len([]rune(s[0].Title)) > maxTitle || s[0].Message != strings.TrimSpace(long) {
		t.Errorf("a long question suggested as %+v", s)
	}
}

func TestTitleAndAsked(t *testing.T) {
	if got := Title("What is our\nrefund policy?"); got != "What is our refund policy?" {
		t.Errorf("Title = %q", got)
	}
	if got := len([]rune(Title(strings.Repeat("refund ", 30)))); got > maxTitle {
		t.Errorf("a title of %d characters", got)
	}
	if got := Asked("<@U1>", "Refunds?\n"); got != "<@U1> asked: “Refunds?”" {
		t.Errorf("Asked = %q", got)
	}
}
