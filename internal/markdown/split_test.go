package markdown

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	para := func(n int, word string) string { return strings.TrimSpace(strings.Repeat(word+" ", n)) }
	code := "```go\n" + strings.Repeat("fmt.Println(\"hello, world\")\n", 20) + "```"
	cases := []struct {
		name  string
		text  string
		limit int
		parts int
	}{
		{"fits", "short answer", 100, 1},
		{"empty", "  ", 100, 0},
		{"paragraphs", para(30, "alpha") + "\n\n" + para(30, "beta") + "\n\n" + para(30, "gamma"), 200, 3},
		{"one long line", para(200, "word"), 100, 10},
		{"unbroken", strings.Repeat("x", 250), 100, 3},
		{"code fits after text", para(10, "intro") + "\n\n" + "```\nx := 1\n```", 70, 2},
		{"long code block", code, 200, 4},
		{"unicode", strings.Repeat("ü ", 300), 100, 6},
		// A model wrote its code on the fence line: 4,100 characters, over
		// a Discord message. It used to leave negative room and panic.
		{"fence line over the limit", "```" + para(820, "SELECT") + "\n" + strings.Repeat("x\n", 10) + "```", 2000, 3},
		{"long language over half a part", "```" + strings.Repeat("l", 15) + "\n" + strings.Repeat("code line\n", 10) + "```", 30, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts := Split(c.text, c.limit)
			if len(parts) != c.parts {
				t.Errorf("got %d parts, want %d: %q", len(parts), c.parts, parts)
			}
			for i, p := range parts {
				if n := utf8.RuneCountInString(p); n > c.limit {
					t.Errorf("part %d has %d runes, over %d", i, n, c.limit)
				}
				if strings.Count(p, "```")%2 != 0 {
					t.Errorf("part %d cuts a code fence:\n%s", i, p)
				}
			}
			// Nothing is lost but white space and re-added fences.
			strip := func(s string) string {
				return strings.Join(strings.Fields(strings.NewReplacer("```go", "", "```", "", "\n", " ").Replace(s)), "")
			}
			if got, want := strip(strings.Join(parts, "")), strip(c.text); got != want {
				t.Errorf("content changed:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestSplitReopensFence checks that a long code block is reopened and
// closed with its own fence: tildes with tildes, and a longer fence (one
// that shows a ``` block inside) with the same length, so that the inner
// ``` lines stay code.
func TestSplitReopensFence(t *testing.T) {
	lines := strings.Repeat("echo hello world\n", 30)
	cases := []struct {
		name, text, open, close string
	}{
		{"backticks", "```sh\n" + lines + "```", "```sh\n", "\n```"},
		{"tildes", "~~~sh\n" + lines + "~~~", "~~~sh\n", "\n~~~"},
		{"four backticks", "````md\n```\n" + lines + "```\n````", "````md\n", "\n````"},
		{"unclosed", "~~~\n" + lines, "~~~\n", "\n~~~"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts := Split(c.text, 200)
			if len(parts) < 2 {
				t.Fatalf("got %d parts, want the block split: %q", len(parts), parts)
			}
			for i, p := range parts {
				if !strings.HasPrefix(p, c.open) || !strings.HasSuffix(p, c.close) {
					t.Errorf("part %d is not fenced with %q…%q:\n%s", i, c.open, c.close, p)
				}
			}
		})
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("hello\n\n```go\ncode\n```\nmore", 40)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		limit = 20 + abs(limit%500)
		parts := Split(text, limit)
		for _, p := range parts {
			if utf8.RuneCountInString(p) > limit {
				t.Fatalf("part over limit %d: %q", limit, p)
			}
		}
		// Nothing is lost: the input's text, less white space and fence
		// markers, is in the parts in order (reopened fences add to it).
		if !subsequence(visible(text), visible(strings.Join(parts, ""))) {
			t.Fatalf("text lost at limit %d:\n in  %q\n out %q", limit, text, parts)
		}
	})
}

// visible is s without white space and backticks.
func visible(s string) []rune {
	var out []rune
	for _, r := range s {
		if r != '`' && !unicode.IsSpace(r) {
			out = append(out, r)
		}
	}
	return out
}

func subsequence(small, big []rune) bool {
	i := 0
	for _, r := range big {
		if i < len(small) && small[i] == r {
			i++
		}
	}
	return i == len(small)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
