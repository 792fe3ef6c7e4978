package agent

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShorten(t *testing.T) {
	para := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word+" ", n)) }
	cases := []struct {
		name, text string
		max        int
		want       string // the text before the note; "" means unchanged
	}{
		{"short enough", "one paragraph", 100, ""},
		{"no limit", para("x", 500), 0, ""},
		{"at a paragraph", para("alpha", 20) + "\n\n" + para("beta", 20) + "\n\n" + para("gamma", 20), 260, para("alpha", 20) + "\n\n" + para("beta", 20)},
		{"not inside code", para("alpha", 20) + "\n\n```go\n" + para("x := 1\n\nx++", 10) + "\n```\n\n" + para("tail", 30), 230,
			para("alpha", 20)},
		{"one long paragraph, at a word", para("word", 100), 100, para("word", 14)},
		{"an open code block is closed", "```\n" + strings.Repeat("line\n", 80), 100, "```\n" + strings.Repeat("line\n", 13) + "line\n```"},
		{"an open tilde block is closed with tildes", "~~~\n" + strings.Repeat("line\n", 80), 100, "~~~\n" + strings.Repeat("line\n", 13) + "line\n~~~"},
		// A four-backtick block shows a ``` block; its blank line is code,
		// though the count of ``` before it is even.
		{"not inside a longer fence", para("alpha", 20) + "\n\n````md\n```go\nx := 1\n\nx++\n```\n" + strings.Repeat("more code\n", 20) + "````\n\n" + para("tail", 30), 230,
			para("alpha", 20)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := shorten(c.text, c.max)
			if c.want == "" {
				if got != c.text {
					t.Errorf("changed:\n%s", got)
				}
				return
			}
			if n := utf8.RuneCountInString(got); n > c.max {
				t.Errorf("%d characters, over the limit of %d", n, c.max)
			}
			if want := c.want + "\n\n" + ShortenedNote; got != want {
				t.Errorf("got\n%q\nwant\n%q", got, want)
			}
		})
	}
}
