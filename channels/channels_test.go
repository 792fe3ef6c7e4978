package channels

import "testing"

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
