package cite

import (
	"strings"
	"testing"

	"github.com/switchboard/switchboard/internal/markdown"
)

func TestTextLink(t *testing.T) {
	md := "Refunds [1], cards [2][3], both [1, 2], padded [01].\n`[1]` and ``a ` [1] `` stay code; a link [1](x) stays text.\n```\n[1]\n```\n[3] has no URL."
	urls := map[int]string{1: "u1", 2: "u2"}
	got := Read(md).Link(urls, func(label, url string) string { return "<" + url + "|" + label + ">" })
	want := "Refunds <u1|[1]>, cards <u2|[2]>[3], both [1, 2], padded <u1|[01]>.\n`[1]` and ``a ` [1] `` stay code; a link [1](x) stays text.\n```\n[1]\n```\n[3] has no URL."
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Each line knows its place in the code blocks, as markdown.Scanner
// reads them, so that a renderer needs no scanner of its own.
func TestReadKinds(t *testing.T) {
	text := Read("A [1].\n~~~go\n[1]\n```\n~~~\nB")
	want := []markdown.Kind{markdown.Text, markdown.Open, markdown.Code, markdown.Code, markdown.Close, markdown.Text}
	if len(text.Lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(text.Lines), len(want))
	}
	for i, l := range text.Lines {
		if l.Kind != want[i] {
			t.Errorf("line %d (%q) is %v, want %v", i, l.String(), l.Kind, want[i])
		}
	}
}

func TestTextRenumber(t *testing.T) {
	text := Read("A [1]. B [4]. C [2], [4].\n```\n[4]\n```")
	var seen [][]int
	text.Each(func(nums []int) { seen = append(seen, nums) })
	if len(seen) != 4 {
		t.Errorf("citations %v, want the 4 outside code", seen)
	}
	got := text.Renumber(func(nums []int) []int {
		out := make([]int, len(nums))
		for i, n := range nums {
			out[i] = map[int]int{1: 1, 4: 1, 2: 2}[n]
		}
		return out
	}).String()
	if want := "A [1]. B [1]. C [2], [1].\n```\n[4]\n```"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A repeat side by side goes, with its separator.
	if got := Read("X [1], [2].").Renumber(func([]int) []int { return []int{1} }).String(); got != "X [1]." {
		t.Errorf("got %q", got)
	}
}

// FuzzRead: reading any text gives it back as it was, and linking
// changes nothing outside the citations it links.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"A [1]. B [4][2].", "`[1]` [2](x)", "```\n[3]\n```\n[3]", "[1, 2, 3", "[0][999][", "``a`[1]``"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := Read(s)
		if got := text.String(); got != s {
			t.Errorf("%q read back as %q", s, got)
		}
		linked := text.Link(map[int]string{1: "u"}, func(label, _ string) string { return label })
		if linked != s {
			t.Errorf("%q linked with labels alone as %q", s, linked)
		}
		if strings.Count(s, "\n") != len(text.Lines)-1 {
			t.Errorf("%q: %d lines", s, len(text.Lines))
		}
		var fences markdown.Scanner
		for i, line := range strings.Split(s, "\n") {
			if k := fences.Line(line); i < len(text.Lines) && text.Lines[i].Kind != k {
				t.Errorf("%q: line %d is %v, the scanner says %v", s, i, text.Lines[i].Kind, k)
			}
		}
	})
}
