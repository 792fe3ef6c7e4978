package cite

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		s    string
		end  int
		refs []int
		ok   bool
	}{
		{"[1]", 3, []int{1}, true},
		{"[1, 2] rest", 6, []int{1, 2}, true},
		{"[12 3]", 6, []int{12, 3}, true},
		{"[1](https://x.example)", 3, []int{1}, true}, // callers reading Markdown check what follows
		{"[1234]", 0, nil, false},
		{"[]", 0, nil, false},
		{"[, ]", 0, nil, false},
		{"[x]", 0, nil, false},
		{"[1", 0, nil, false},
		{"1]", 0, nil, false},
		{"[" + strings.Repeat(" ", 30) + "1]", 0, nil, false}, // too long to be a citation
	} {
		end, refs, ok := Parse(tt.s, 0)
		if ok != tt.ok || ok && (end != tt.end || !slices.Equal(refs, tt.refs)) {
			t.Errorf("Parse(%q) = %d, %v, %v; want %d, %v, %v", tt.s, end, refs, ok, tt.end, tt.refs, tt.ok)
		}
	}
}

func TestMove(t *testing.T) {
	for in, want := range map[string]string{
		"Refunds take 30 days. [1] Items ship in 2 days. [2][3]": "Refunds take 30 days [1]. Items ship in 2 days [2][3].",
		"Done! [1] [2] Next.":      "Done [1][2]! Next.",
		"No citation. [x] Next.":   "No citation. [x] Next.",
		"Cited already [1]. Next.": "Cited already [1]. Next.",
		"no brackets.":             "no brackets.",
	} {
		if got := Move(in); got != want {
			t.Errorf("Move(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStrip(t *testing.T) {
	got, refs := Strip("Refunds take 30 days [1, 2] , and items ship [3]. [x] stays")
	if want := "Refunds take 30 days, and items ship. [x] stays"; got != want || !slices.Equal(refs, []int{1, 2, 3}) {
		t.Errorf("Strip = %q, %v; want %q, [1 2 3]", got, refs, want)
	}
}

func TestFormat(t *testing.T) {
	for _, nums := range [][]int{{1}, {1, 3}, {999, 2, 10}} {
		s := Format(nums)
		if end, refs, ok := Parse(s, 0); !ok || end != len(s) || !slices.Equal(refs, nums) {
			t.Errorf("Parse(Format(%v) = %q) = %d, %v, %v", nums, s, end, refs, ok)
		}
	}
}

// FuzzParse reads answers as models and users write them: Parse never
// reads past its input or its window, every number it returns is one it
// read, and Move and Strip keep the text apart from citations.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"[1]", "[1, 2]", "[1][2]", "x. [1] y", "[1](u)", "[", "[1234]", "[ ,,, 7]", "a [1] , b [2].", "",
		"[" + strings.Repeat("1 ", 20) + "]", "Done?! [3] [4]\tnext",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := range len(s) {
			end, refs, ok := Parse(s, i)
			if !ok {
				continue
			}
			if end <= i || end > len(s) || end-i > 32 || s[end-1] != ']' || len(refs) == 0 {
				t.Fatalf("Parse(%q, %d) = %d, %v", s, i, end, refs)
			}
			for _, n := range refs {
				if n < 0 || n > 999 {
					t.Fatalf("Parse(%q, %d) read %d", s, i, n)
				}
			}
		}
		// Move only reorders: it moves citations and the spaces around them.
		if a, b := nonSpace(Move(s)), nonSpace(s); a != b {
			t.Errorf("Move(%q) = %q: %d bytes besides spaces, want %d", s, Move(s), a, b)
		}
		// A text with no bracket is only trimmed; one with a bracket is tidied.
		if stripped, _ := Strip(s); strings.Contains(s, "[") && strings.Join(strings.Fields(stripped), " ") != stripped {
			t.Errorf("Strip(%q) = %q, not tidied", s, stripped)
		}
	})
}

func nonSpace(s string) int {
	return len(s) - strings.Count(s, " ")
}
