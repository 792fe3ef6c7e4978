package agent

import "testing"

func TestConfidence(t *testing.T) {
	chunk := func(key string, n string) Document {
		return Document{ID: "acme/" + key + "#" + n, Location: key, Route: RouteVector, Metadata: map[string]string{"key": key, "chunk": n}}
	}
	a0, a1, b0 := chunk("docs/refunds.md", "0"), chunk("docs/refunds.md", "1"), chunk("docs/billing.md", "0")
	good := func(mod func(*State)) *State {
		s := &State{Route: RouteVector, Relevant: []Document{a0, b0}, Answer: "X [1]. Y [2].", Grounded: true, Answers: true, Checked: true}
		if mod != nil {
			mod(s)
		}
		return s
	}
	tests := []struct {
		name string
		s    *State
		want Confidence
	}{
		{"grounded, answering, first check, two documents", good(nil), ConfidenceHigh},
		{"two chunks of one file", good(func(s *State) { s.Relevant = []Document{a0, a1} }), ConfidenceMedium},
		{"two documents, one cited", good(func(s *State) { s.Answer = "X [1]." }), ConfidenceMedium},
		// Listed with all its relevant documents, but tied to none.
		{"nothing cited", good(func(s *State) { s.Answer = "X." }), ConfidenceMedium},
		{"only numbers that cite nothing", good(func(s *State) { s.Answer = "X [0]. Y [9]." }), ConfidenceMedium},
		{"one document", good(func(s *State) { s.Relevant = []Document{a0}; s.Answer = "X [1]." }), ConfidenceMedium},
		{"after a regeneration", good(func(s *State) { s.Regenerations = 1 }), ConfidenceMedium},
		{"after a rewrite", good(func(s *State) { s.Rewrites = 1 }), ConfidenceMedium},
		{"web fallback", good(func(s *State) { s.Fallback = true }), ConfidenceMedium},
		{"offline", good(func(s *State) { s.Offline = true }), ConfidenceMedium},
		{"grounded, not answering", good(func(s *State) { s.Answers = false }), ConfidenceLow},
		{"partial", good(func(s *State) { s.Answers, s.Partial = false, true }), ConfidenceLow},
		{"not grounded", good(func(s *State) { s.Grounded, s.Answers = false, false }), ConfidenceLow},
		{"no answer", &State{Route: RouteVector, NoAnswer: true}, ConfidenceNone},
		{"direct", &State{Route: RouteDirect, DirectOK: true}, ConfidenceGeneral},
		{"direct, no answer", &State{Route: RouteDirect}, ConfidenceNone},
	}
	for _, tt := range tests {
		if got := confidence(tt.s, citations(tt.s)); got != tt.want {
			t.Errorf("%s: confidence = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestDocumentKey(t *testing.T) {
	same := [][2]Document{
		// Two chunks of a stored file: one Key.
		{{ID: "acme/docs/a.md#0", Key: "acme/docs/a.md", Chunk: 0, Location: "docs/a.md"}, {ID: "acme/docs/a.md#7", Key: "acme/docs/a.md", Chunk: 7, Location: "docs/a.md"}},
		// Chunks whose locations are permalinks of the messages they start at.
		{{ID: "acme/slack/C1/1700.1#0", Key: "acme/slack/C1/1700.1", Chunk: 0, Location: "https://acme.slack.com/archives/C1/p1"}, {ID: "acme/slack/C1/1700.1#1", Key: "acme/slack/C1/1700.1", Chunk: 1, Location: "https://acme.slack.com/archives/C1/p2"}},
		// Sections of one file, without store IDs.
		{{ID: "d1", Location: "docs/refund-policy.md"}, {ID: "d2", Location: "docs/refund-policy.md#annual"}},
		// One page of the web.
		{{ID: "https://example.com/a", Location: "https://example.com/a#x", Route: RouteWeb}, {ID: "https://example.com/a", Location: "https://example.com/a", Route: RouteWeb}},
		// The rows of one graph query.
		{{ID: "g1", Location: "MATCH (n) RETURN n", Route: RouteGraph}, {ID: "g2", Location: "MATCH (n) RETURN n", Route: RouteGraph}},
	}
	for _, p := range same {
		if documentKey(p[0]) != documentKey(p[1]) {
			t.Errorf("%+v and %+v are one document", p[0], p[1])
		}
	}
	different := [][2]Document{
		{{ID: "acme/docs/a.md#0", Key: "acme/docs/a.md", Chunk: 0, Location: "docs/a.md"}, {ID: "acme/docs/b.md#0", Key: "acme/docs/b.md", Chunk: 0, Location: "docs/b.md"}},
		// The same key in two workspaces.
		{{ID: "acme/docs/a.md#0", Key: "acme/docs/a.md", Chunk: 0, Location: "docs/a.md"}, {ID: "globex/docs/a.md#0", Key: "globex/docs/a.md", Chunk: 0, Location: "docs/a.md"}},
		{{ID: "https://example.com/a", Location: "https://example.com/a", Route: RouteWeb}, {ID: "https://example.com/b", Location: "https://example.com/b", Route: RouteWeb}},
		// Neighbourhoods of two entities.
		{{ID: "graph:p1", Location: "graph: neighbourhood of Chai (2 hops)", Route: RouteGraph}, {ID: "graph:p2", Location: "graph: neighbourhood of Tofu (2 hops)", Route: RouteGraph}},
		// No location or ID: the text tells them apart.
		{{Title: "A", Content: "x"}, {Title: "B", Content: "y"}},
	}
	for _, p := range different {
		if documentKey(p[0]) == documentKey(p[1]) {
			t.Errorf("%+v and %+v are two documents", p[0], p[1])
		}
	}
}
