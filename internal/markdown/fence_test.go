package markdown

import (
	"strings"
	"testing"
)

// kinds classifies every line of text.
func kinds(text string) []Kind {
	var s Scanner
	var out []Kind
	for _, line := range strings.Split(text, "\n") {
		out = append(out, s.Line(line))
	}
	return out
}

const (
	T = Text
	O = Open
	C = Code
	X = Close
)

func TestScanner(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []Kind
	}{
		{"prose", "a\nb", []Kind{T, T}},
		{"backticks", "```\ncode\n```\nafter", []Kind{O, C, X, T}},
		{"tildes", "~~~\ncode\n~~~", []Kind{O, C, X}},
		{"info string", "```go\nx := 1\n```", []Kind{O, C, X}},
		{"unclosed runs to the end", "```\na\n\nb", []Kind{O, C, C, C}},
		{"closing fence at least as long", "````\n```\n`````\nafter", []Kind{O, C, X, T}},
		{"closing fence of the same character", "~~~\n```\n~~~", []Kind{O, C, X}},
		{"closing fence takes no info string", "```\n```go\n```", []Kind{O, C, X}},
		{"closing fence may end in white space", "```\nx\n```  \t", []Kind{O, C, X}},
		{"CRLF text", "```go\r\nx\r\n```\r", []Kind{O, C, X}},
		{"two backticks are not a fence", "``\nx\n``", []Kind{T, T, T}},
		{"inline code is not a fence", "```a```\nx", []Kind{T, T}},
		{"backtick in a backtick info string", "``` a`b\nx", []Kind{T, T}},
		{"backtick in a tilde info string", "~~~ a`b\nx\n~~~", []Kind{O, C, X}},
		{"three spaces of indent", "   ```\n   x\n   ```", []Kind{O, C, X}},
		{"four spaces are indented code", "    ```\nx\n    ```", []Kind{T, T, T}},
		{"a closing fence indented four spaces is code", "```\n    ```\n```", []Kind{O, C, X}},
		{"a tab is too far", "\t```\nx", []Kind{T, T}},
		{"text before the fence", "see:```\nx", []Kind{T, T}},
		{"empty block", "```\n```", []Kind{O, X}},
		{"after a block, a new one", "```\na\n```\n~~~\nb\n~~~", []Kind{O, C, X, O, C, X}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := kinds(c.text)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

func TestScannerFence(t *testing.T) {
	var s Scanner
	if _, open := s.Fence(); open {
		t.Fatal("a new Scanner is in a block")
	}
	s.Line("  ~~~~ python  ")
	f, open := s.Fence()
	if want := (Fence{Marker: "~~~~", Info: "python", Indent: 2}); !open || f != want {
		t.Fatalf("Fence() = %+v, %v; want %+v, true", f, open, want)
	}
	s.Line("print(1)")
	if _, open := s.Fence(); !open {
		t.Fatal("not in the block after a code line")
	}
	s.Line("~~~~~")
	if _, open := s.Fence(); open {
		t.Fatal("still in the block after its closing fence")
	}
}

func TestFenceFor(t *testing.T) {
	cases := []struct{ code, want string }{
		{"", "```"},
		{"x := 1", "```"},
		{"use `x`", "```"},
		{"```\nx\n```", "````"},
		{"a ````` b", "``````"},
	}
	for _, c := range cases {
		if got := FenceFor(c.code); got != c.want {
			t.Errorf("FenceFor(%q) = %q, want %q", c.code, got, c.want)
		}
	}
}

// FuzzFences checks the scanner against a plain reading of the rules, and
// that a block written with FenceFor reads back as written.
func FuzzFences(f *testing.F) {
	f.Add("# Title\n\n```go\nx := 1\n```\ntext", "go", "a\n```\nb")
	f.Add("~~~~\n```\n~~~\n# x\n~~~~~\n", "", "````")
	f.Add("   ```a```\n    ```\n``` x`y\n", "py thon", "~~~\n   ```")
	f.Fuzz(func(t *testing.T, text, info, code string) {
		lines := strings.Split(text, "\n")
		got := kinds(text)
		if len(got) != len(lines) {
			t.Fatalf("%d kinds for %d lines", len(got), len(lines))
		}
		var open string // the open block's marker
		for i, k := range got {
			line := lines[i]
			trimmed := strings.TrimLeft(line, " ")
			indent := len(line) - len(trimmed)
			switch k {
			case Text:
				if open != "" {
					t.Fatalf("line %d %q: text inside a block", i, line)
				}
			case Open:
				run := lead(trimmed)
				if open != "" || indent > 3 || len(run) < 3 || !strings.Contains("`~", run[:1]) {
					t.Fatalf("line %d %q: not an opening fence", i, line)
				}
				if run[0] == '`' && strings.Contains(trimmed[len(run):], "`") {
					t.Fatalf("line %d %q: backtick in the info string", i, line)
				}
				open = run
			case Code:
				if open == "" {
					t.Fatalf("line %d %q: code outside a block", i, line)
				}
			case Close:
				run := lead(trimmed)
				if open == "" || indent > 3 || len(run) < len(open) || run[0] != open[0] || strings.TrimRight(trimmed[len(run):], " \t\r") != "" {
					t.Fatalf("line %d %q: does not close %q", i, line, open)
				}
				open = ""
			}
		}

		// Written after the text, with the text's open block closed, a
		// block made with FenceFor holds exactly its code lines.
		info = strings.NewReplacer("`", "", "\n", "", "\r", "").Replace(info)
		var s Scanner
		for _, line := range lines {
			s.Line(line)
		}
		if f, open := s.Fence(); open {
			s.Line(f.Marker)
		}
		marker := FenceFor(code)
		if s.Line(marker+info) != Open {
			t.Fatalf("%q does not open a block", marker+info)
		}
		if f, _ := s.Fence(); f.Marker != marker || f.Info != strings.TrimSpace(info) {
			t.Fatalf("opened %+v, want marker %q and info %q", f, marker, info)
		}
		for _, line := range strings.Split(code, "\n") {
			if k := s.Line(line); k != Code {
				t.Fatalf("code line %q read as %v", line, k)
			}
		}
		if k := s.Line(marker); k != Close {
			t.Fatalf("%q read as %v, not the close", marker, k)
		}
	})
}

// lead is the run of s's first character that s starts with.
func lead(s string) string {
	if s == "" {
		return ""
	}
	return s[:len(s)-len(strings.TrimLeft(s, s[:1]))]
}
