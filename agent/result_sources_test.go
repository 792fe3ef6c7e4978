package agent

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/internal/cite"
	"github.com/switchboard/switchboard/internal/markdown"
)

// chunkOf is chunk n of a stored file, under heading.
func chunkOf(key string, n int, heading string) Document {
	return Document{ID: fmt.Sprintf("acme/%s#%d", key, n), Key: "acme/" + key, Chunk: n, Title: strings.TrimSuffix(key, ".md"), Location: key,
		Content: heading + "\n\ntext of " + key, Route: RouteVector, Section: heading,
		Metadata: map[string]string{"key": key, "chunk": fmt.Sprint(n)}}
}

func TestFoldCitations(t *testing.T) {
	a0, a3 := chunkOf("refunds.md", 0, "Refunds"), chunkOf("refunds.md", 3, "Annual plans")
	b0, c0 := chunkOf("billing.md", 0, "Billing"), chunkOf("tax.md", 0, "VAT")
	tests := []struct {
		name     string
		answer   string
		relevant []Document
		want     string
		titles   string // of the sources, in order
	}{
		{"one file cited as [1] and [4]", "Refunds take 14 days [1]. Annual plans are prorated [4]. Billing is monthly [2][3].",
			[]Document{a0, b0, c0, a3}, "Refunds take 14 days [1]. Annual plans are prorated [1]. Billing is monthly [2][3].", "refunds billing tax"},
		{"numbered in order of first citation", "A [1][3]. B [4]. C [2].",
			[]Document{a0, b0, a3, c0}, "A [1]. B [2]. C [3].", "refunds tax billing"},
		{"repeats side by side, with a comma", "A [1], [3] and B [2].",
			[]Document{a0, b0, a3}, "A [1] and B [2].", "refunds billing"},
		{"repeats within one citation", "A [1, 3]; B [2, 1].",
			[]Document{a0, b0, a3}, "A [1]; B [2, 1].", "refunds billing"},
		{"the same citation twice", "A [2]. B [2]. C [1][1].",
			[]Document{a0, b0}, "A [1]. B [1]. C [2].", "billing refunds"},
		{"out of range and zero are left alone", "A [1]. B [999]. C [0]. D [3][3].",
			[]Document{b0, a0, a3}, "A [1]. B [999]. C [0]. D [2].", "billing refunds"},
		{"only citations out of range: all relevant documents", "A [7]. B [0].",
			[]Document{a0, a3, b0}, "A [7]. B [0].", "refunds billing"},
		{"no citations at all: all relevant documents, folded", "A. B.",
			[]Document{a0, b0, a3}, "A. B.", "refunds billing"},
		{"inline code is not a citation", "Use `arr[1]` and ``x ` [1]`` here [2].",
			[]Document{a0, b0}, "Use `arr[1]` and ``x ` [1]`` here [1].", "billing"},
		{"an unclosed backtick is text", "It's a ` tick [2].",
			[]Document{a0, b0}, "It's a ` tick [1].", "billing"},
		{"code blocks are not citations", "Run this [2]:\n```go\nx := ys[1]\n```\n~~~\n[2]\n~~~\nDone [1].",
			[]Document{a0, b0}, "Run this [1]:\n```go\nx := ys[1]\n```\n~~~\n[2]\n~~~\nDone [2].", "billing refunds"},
		{"a link's text is not a citation", "See [1](https://example.com) and [2].",
			[]Document{a0, b0}, "See [1](https://example.com) and [1].", "billing"},
		{"not citations: four digits, words, empty", "[1000] [a] [] [ 1 ] x",
			[]Document{a0, b0}, "[1000] [a] [] [ 1 ] x", "refunds"},
		{"a trailing separator stays", "A [1],",
			[]Document{a0}, "A [1],", "refunds"},
		{"nothing relevant", "A [1].", nil, "A [1].", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, docs := foldCitations(tt.answer, tt.relevant)
			if got != tt.want {
				t.Errorf("answer = %q, want %q", got, tt.want)
			}
			var titles []string
			for _, chunks := range docs {
				titles = append(titles, chunks[0].Title)
			}
			if s := strings.Join(titles, " "); s != tt.titles {
				t.Errorf("sources = %q, want %q", s, tt.titles)
			}
		})
	}
}

// Renumbering twice changes nothing more: the numbers are already those
// of the sources.
func TestFoldCitationsIsStable(t *testing.T) {
	a0, a3, b0 := chunkOf("refunds.md", 0, "Refunds"), chunkOf("refunds.md", 3, "Annual plans"), chunkOf("billing.md", 0, "")
	once, docs := foldCitations("A [3]. B [1][2]. C [2].", []Document{a0, b0, a3})
	var flat []Document
	for _, chunks := range docs {
		flat = append(flat, chunks[0])
	}
	if twice, _ := foldCitations(once, flat); twice != once {
		t.Errorf("%q renumbered again is %q", once, twice)
	}
}

// sourcesOf is what result makes of s's citations: the answer and its
// sources.
func sourcesOf(s *State) (string, []Source) {
	f := citations(s)
	return f.answer, sources(f)
}

func TestSourcesFolded(t *testing.T) {
	a0, a3 := chunkOf("refunds.md", 0, "refunds"), chunkOf("refunds.md", 3, "Annual plans")
	a5 := chunkOf("refunds.md", 5, "Annual plans")
	a3.Metadata["url"] = "https://git.example.com/handbook/blob/main/refunds.md"
	a0.Metadata["url"] = a3.Metadata["url"]
	a5.Metadata["url"] = a3.Metadata["url"]
	a3.Metadata["owner"] = "@acme/billing, dana@example.com" // as ingest.OwnerKey keeps them
	b0 := chunkOf("billing.md", 0, "")
	s := &State{Route: RouteVector, Relevant: []Document{a3, b0, a0, a5}, Answer: "Prorated [1]. Monthly [2]. Within 14 days [3][4].",
		Grounded: true, Answers: true}
	answer, srcs := sourcesOf(s)
	if answer != "Prorated [1]. Monthly [2]. Within 14 days [1]." {
		t.Errorf("answer = %q", answer)
	}
	if len(srcs) != 2 {
		t.Fatalf("sources = %+v", srcs)
	}
	// The first cited chunk gives the snippet; headings are listed once,
	// and the one that is the title is not a section.
	want := Source{N: 1, Title: "refunds", Location: "refunds.md", Snippet: a3.Content, Route: RouteVector, Kind: KindDocument,
		Section: "Annual plans", URL: "https://git.example.com/handbook/blob/main/refunds.md", Owners: []string{"@acme/billing", "dana@example.com"}}
	if !reflect.DeepEqual(srcs[0], want) {
		t.Errorf("source 1 = %+v, want %+v", srcs[0], want)
	}
	if srcs[1].N != 2 || srcs[1].Title != "billing" || srcs[1].Section != "" || srcs[1].URL != "" {
		t.Errorf("source 2 = %+v", srcs[1])
	}
	if n := len(cited(s).docs); n != 2 {
		t.Errorf("badge counts %d documents, the sources are 2", n)
	}

	// Two sections of one document, in the order first cited.
	b := chunkOf("refunds.md", 7, "Refunds by card")
	s.Relevant, s.Answer = []Document{a3, b}, "X [2]. Y [1]."
	if _, srcs := sourcesOf(s); len(srcs) != 1 || srcs[0].Section != "Refunds by card · Annual plans" || srcs[0].Snippet != b.Content {
		t.Errorf("sources = %+v", srcs)
	}

	// A direct answer and a no-answer cite nothing and keep their text.
	for _, st := range []*State{{Route: RouteDirect, Answer: "[2] [2]"}, {Route: RouteVector, NoAnswer: true, Answer: "[2] [2]", Relevant: []Document{a0, a3}}} {
		if answer, srcs := sourcesOf(st); answer != "[2] [2]" || srcs != nil {
			t.Errorf("%+v: answer %q, sources %+v", st, answer, srcs)
		}
	}
}

func TestSourceURL(t *testing.T) {
	tests := []struct {
		name string
		d    Document
		want string
	}{
		{"web page", Document{Route: RouteWeb, Location: "https://example.com/a#x"}, "https://example.com/a#x"},
		{"Slack permalink", Document{Route: RouteVector, Location: "https://acme.slack.com/archives/C1/p1700000000000100"}, "https://acme.slack.com/archives/C1/p1700000000000100"},
		{"file with a url", Document{Route: RouteVector, Location: "handbook/a.md", Metadata: map[string]string{"url": "https://docs.example.com/a"}}, "https://docs.example.com/a"},
		{"file without one", Document{Route: RouteVector, Location: "handbook/a.md"}, ""},
		{"javascript in the metadata", Document{Route: RouteVector, Location: "a.md", Metadata: map[string]string{"url": "javascript:alert(1)"}}, ""},
		{"graph query", Document{Route: RouteGraph, Location: "MATCH (n) RETURN n", Metadata: map[string]string{"url": "https://example.com"}}, ""},
		{"web result with a bad URL", Document{Route: RouteWeb, Location: "data:text/html,<script>"}, ""},
	}
	for _, tt := range tests {
		if got := link(tt.d); got != tt.want {
			t.Errorf("%s: link = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Sources are stored in thread checkpoints and feedback rows: those
// written before Section and URL existed still load, and sources without
// them are written as before.
func TestSourceJSONCompatible(t *testing.T) {
	old := `{"n":1,"title":"Refunds","location":"docs/refunds.md","snippet":"14 days","route":"vector"}`
	var s Source
	if err := json.Unmarshal([]byte(old), &s); err != nil || s.Title != "Refunds" || s.Section != "" || s.URL != "" {
		t.Fatalf("old source = %+v, %v", s, err)
	}
	if b, _ := json.Marshal(s); string(b) != old {
		t.Errorf("written as %s, want %s", b, old)
	}
	s.Section, s.URL = "Annual plans", "https://example.com/refunds"
	var back Source
	if b, _ := json.Marshal(s); json.Unmarshal(b, &back) != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("round trip = %+v, want %+v", back, s)
	}
}

// FuzzFoldCitations feeds answers of any shape: folding never panics,
// every citation it leaves within range names a source, and the lines of
// code blocks come out as they went in.
func FuzzFoldCitations(f *testing.F) {
	for _, s := range []string{"A [1]. B [4]. C [2][3].", "[1], [1]", "`[1]` [2]", "```\n[3]\n```\n[3]", "[1, 2, 3, 4]", "[0][999][", "[1](x) [2]"} {
		f.Add(s)
	}
	relevant := []Document{chunkOf("a.md", 0, "A"), chunkOf("b.md", 0, "B"), chunkOf("a.md", 1, "A2"), chunkOf("c.md", 0, "")}
	f.Fuzz(func(t *testing.T, answer string) {
		got, docs := foldCitations(answer, relevant)
		cite.Read(got).Each(func(nums []int) {
			for _, n := range nums {
				if n >= 1 && n <= len(relevant) && n > len(docs) {
					t.Errorf("%q → %q cites [%d] of %d sources", answer, got, n, len(docs))
				}
			}
		})
		if codeLines(answer) != codeLines(got) {
			t.Errorf("code changed: %q → %q", answer, got)
		}
	})
}

// codeLines are the lines of s in code blocks, fences included.
func codeLines(s string) string {
	var fences markdown.Scanner
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if fences.Line(line) != markdown.Text {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
