package channels

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCites(t *testing.T) {
	all := Settings{Channel: "C1"}
	hr := Settings{Channel: "C2", Sources: []string{"handbook/docs/hr/", "slack:C42", SourceGraph}}
	cases := []struct {
		s    Settings
		key  string
		want bool
	}{
		{all, "anything/at/all.md", true},
		{all, SourceWeb, true},
		{hr, "handbook/docs/hr/leave.md", true},
		{hr, "handbook/docs/eng/oncall.md", false},
		{hr, "slack:C42:thread:1712345678.000100", true},
		{hr, "slack:C43:day:2026-12-01", false},
		{hr, SourceGraph, true},
		{hr, SourceWeb, false},
		{hr, "graph-notes/a.md", false}, // "graph" names the graph, it is no prefix
	}
	for _, c := range cases {
		if got := c.s.Cites(c.key); got != c.want {
			t.Errorf("%v.Cites(%q) = %v, want %v", c.s.Sources, c.key, got, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	good := []Settings{{Channel: "C1"}, {Channel: "C1", Replies: RepliesAll, Sources: []string{"a/"}, Experts: []string{"U1"}}}
	for _, s := range good {
		if err := s.Check(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	bad := []Settings{{}, {Channel: "C1", Replies: "sometimes"}, {Channel: "C1", Sources: []string{" "}}, {Channel: "C1", Experts: []string{""}}}
	for _, s := range bad {
		if s.Check() == nil {
			t.Errorf("%+v passed the check", s)
		}
	}
	if (Settings{}).ReplyMode() != RepliesAsker {
		t.Error("the default reply mode is not RepliesAsker")
	}
}

func TestParseList(t *testing.T) {
	got := ParseList(" handbook/docs/hr/, slack:C42\ngraph,,graph  web ")
	if fmt.Sprint(got) != "[handbook/docs/hr/ slack:C42 graph web]" {
		t.Errorf("ParseList = %q", got)
	}
	if ParseList(" , ") != nil {
		t.Error("an empty list is not nil")
	}
}

func TestParseReplies(t *testing.T) {
	for in, want := range map[string]Replies{"mention-only": RepliesMention, " All ": RepliesAll, "asker": RepliesAsker, "": ""} {
		if got, err := ParseReplies(in); err != nil || got != want {
			t.Errorf("ParseReplies(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseReplies("sometimes"); err == nil {
		t.Error("an unknown mode was read")
	}
}

// FuzzParse: whatever people type, the lists hold no empty or repeated
// item (Check would refuse an empty one), and a mode read is valid.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a/,b", "mention-only", " ,\n, ", "slack:C42 graph"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		list := ParseList(s)
		for i, x := range list {
			if strings.TrimSpace(x) == "" || slices.Contains(list[:i], x) {
				t.Fatalf("ParseList(%q) = %q", s, list)
			}
		}
		if r, err := ParseReplies(s); err == nil {
			if err := (Settings{Channel: "C1", Replies: r, Sources: list, Experts: list}).Check(); err != nil {
				t.Fatalf("parsed %q into settings that fail their check: %v", s, err)
			}
		}
	})
}
