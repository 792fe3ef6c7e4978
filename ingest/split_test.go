package ingest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/switchboard/switchboard/kb"
)

// prose returns n distinct sentences, so that overlaps can be located.
func prose(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("Sentence %d explains one detail of the policy.", i+1)
	}
	return strings.Join(s, " ")
}

func contents(chunks []kb.Chunk) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.Content
	}
	return out
}

func headings(chunks []kb.Chunk) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.Heading
	}
	return out
}

func TestSplit(t *testing.T) {
	bigCode := "```go\n" + strings.Repeat("x := 1 // # not a heading\n", 8) + "```"
	hugeCode := "```sql\n" + strings.Repeat("SELECT * FROM t;\n", 40) + "```"

	tests := []struct {
		name  string
		text  string
		opts  SplitOptions
		check func(t *testing.T, chunks []kb.Chunk)
	}{
		{
			name: "empty",
			text: "",
			check: func(t *testing.T, chunks []kb.Chunk) {
				if chunks != nil {
					t.Errorf("got %q, want nil", contents(chunks))
				}
			},
		},
		{
			name: "whitespace only",
			text: " \n\n\t\r\n ",
			check: func(t *testing.T, chunks []kb.Chunk) {
				if chunks != nil {
					t.Errorf("got %q, want nil", contents(chunks))
				}
			},
		},
		{
			name: "plain text without headings",
			text: "Just one line.",
			check: func(t *testing.T, chunks []kb.Chunk) {
				want := []kb.Chunk{{Index: 0, Content: "Just one line."}}
				if !reflect.DeepEqual(chunks, want) {
					t.Errorf("got %+v, want %+v", chunks, want)
				}
			},
		},
		{
			name: "headings start sections",
			text: "Intro text.\n\n# Refunds\n\nWithin 30 days.\n\n## Annual plans ##\n\nProrated.",
			check: func(t *testing.T, chunks []kb.Chunk) {
				wantC := []string{"Intro text.", "# Refunds\n\nWithin 30 days.", "## Annual plans ##\n\nProrated."}
				wantH := []string{"", "Refunds", "Annual plans"}
				if got := contents(chunks); !reflect.DeepEqual(got, wantC) {
					t.Errorf("contents = %q, want %q", got, wantC)
				}
				if got := headings(chunks); !reflect.DeepEqual(got, wantH) {
					t.Errorf("headings = %q, want %q", got, wantH)
				}
			},
		},
		{
			name: "a heading with no text of its own folds into the next section",
			text: "# Refund policy\n\n## Eligibility\n\nAny plan.",
			check: func(t *testing.T, chunks []kb.Chunk) {
				want := []kb.Chunk{{Index: 0, Heading: "Eligibility", Content: "# Refund policy\n\n## Eligibility\n\nAny plan."}}
				if !reflect.DeepEqual(chunks, want) {
					t.Errorf("got %+v, want %+v", chunks, want)
				}
			},
		},
		{
			name: "setext headings and CRLF",
			text: "Support\r\n=======\r\n\r\nWe answer fast.\r\n",
			check: func(t *testing.T, chunks []kb.Chunk) {
				want := []kb.Chunk{{Index: 0, Heading: "Support", Content: "Support\n=======\n\nWe answer fast."}}
				if !reflect.DeepEqual(chunks, want) {
					t.Errorf("got %+v, want %+v", chunks, want)
				}
			},
		},
		{
			name: "not headings: no space, seven hashes, indented four",
			text: "#hashtag\n\n####### seven\n\n    # indented",
			check: func(t *testing.T, chunks []kb.Chunk) {
				if len(chunks) != 1 || chunks[0].Heading != "" {
					t.Errorf("got %+v, want one chunk with no heading", chunks)
				}
			},
		},
		{
			name: "short paragraphs pack into one chunk",
			text: "One.\n\nTwo.\n\nThree.",
			opts: SplitOptions{Size: 100},
			check: func(t *testing.T, chunks []kb.Chunk) {
				if got := contents(chunks); !reflect.DeepEqual(got, []string{"One.\n\nTwo.\n\nThree."}) {
					t.Errorf("got %q", got)
				}
			},
		},
		{
			name: "paragraphs that do not fit start a new chunk, with overlap",
			text: strings.Repeat("a", 60) + " end one.\n\n" + strings.Repeat("b", 60) + " end two.",
			opts: SplitOptions{Size: 100, Overlap: 20},
			check: func(t *testing.T, chunks []kb.Chunk) {
				if len(chunks) != 2 {
					t.Fatalf("got %d chunks %q, want 2", len(chunks), contents(chunks))
				}
				// The first paragraph is one word of 60 letters then "end one.":
				// the overlap starts at a word boundary inside the last 20 runes.
				if !strings.HasPrefix(chunks[1].Content, "end one.\n\n") {
					t.Errorf("chunk 1 = %q, want it to start with the overlap %q", chunks[1].Content, "end one.")
				}
			},
		},
		{
			name: "long paragraph splits at sentences with overlap",
			text: prose(40),
			opts: SplitOptions{Size: 300, Overlap: 60},
			check: func(t *testing.T, chunks []kb.Chunk) {
				if len(chunks) < 5 {
					t.Fatalf("got %d chunks, want at least 5", len(chunks))
				}
				for i, c := range chunks {
					if !strings.HasSuffix(c.Content, ".") {
						t.Errorf("chunk %d does not end at a sentence: %q", i, c.Content)
					}
					if !strings.HasPrefix(c.Content, "Sentence ") {
						t.Errorf("chunk %d does not start at a sentence: %q", i, c.Content)
					}
					if i == 0 {
						continue
					}
					prev := chunks[i-1].Content
					ov := longestOverlap(prev, c.Content)
					if ov == 0 || ov > 60 {
						t.Errorf("chunks %d and %d overlap by %d runes, want 1..60", i-1, i, ov)
					}
				}
			},
		},
		{
			name: "overlap falls back to a word boundary",
			text: strings.Repeat("word ", 100),
			opts: SplitOptions{Size: 100, Overlap: 22},
			check: func(t *testing.T, chunks []kb.Chunk) {
				for i, c := range chunks {
					if strings.HasPrefix(c.Content, "ord") || strings.HasPrefix(c.Content, "rd") || strings.HasPrefix(c.Content, "d ") {
						t.Errorf("chunk %d starts inside a word: %q", i, c.Content)
					}
					if i > 0 && longestOverlap(chunks[i-1].Content, c.Content) == 0 {
						t.Errorf("chunk %d has no overlap with chunk %d", i, i-1)
					}
				}
			},
		},
		{
			name: "no overlap across sections",
			text: "# A\n\n" + prose(10) + "\n\n# B\n\n" + prose(10),
			opts: SplitOptions{Size: 200, Overlap: 50},
			check: func(t *testing.T, chunks []kb.Chunk) {
				for i, c := range chunks {
					if i > 0 && c.Heading != chunks[i-1].Heading && !strings.HasPrefix(c.Content, "# ") {
						t.Errorf("first chunk of section %q starts with %q, want its heading", c.Heading, c.Content[:10])
					}
				}
			},
		},
		{
			name: "negative overlap means none",
			text: prose(20),
			opts: SplitOptions{Size: 200, Overlap: -1},
			check: func(t *testing.T, chunks []kb.Chunk) {
				joined := strings.Join(contents(chunks), " ")
				if joined != prose(20) {
					t.Errorf("chunks without overlap do not add up to the text:\n%q", joined)
				}
			},
		},
		{
			name: "a word longer than Size is cut",
			text: strings.Repeat("x", 250),
			opts: SplitOptions{Size: 100, Overlap: -1},
			check: func(t *testing.T, chunks []kb.Chunk) {
				if got := contents(chunks); !reflect.DeepEqual(got, []string{strings.Repeat("x", 100), strings.Repeat("x", 100), strings.Repeat("x", 50)}) {
					t.Errorf("got %q", got)
				}
			},
		},
		{
			name: "list lines stay whole when a list is split",
			text: "- " + strings.Repeat("item one ", 8) + "\n- " + strings.Repeat("item two ", 8) + "\n- " + strings.Repeat("item three ", 8),
			opts: SplitOptions{Size: 120, Overlap: -1},
			check: func(t *testing.T, chunks []kb.Chunk) {
				for i, c := range chunks {
					if !strings.HasPrefix(c.Content, "- item") {
						t.Errorf("chunk %d = %q, want a whole list item", i, c.Content)
					}
				}
			},
		},
		{
			name: "a code block longer than Size but within Max stays whole, and # inside it is not a heading",
			text: "# Code\n\nBefore.\n\n" + bigCode + "\n\nAfter.",
			opts: SplitOptions{Size: 150},
			check: func(t *testing.T, chunks []kb.Chunk) {
				found := false
				for _, c := range chunks {
					if c.Heading != "Code" {
						t.Errorf("chunk heading %q, want Code", c.Heading)
					}
					if strings.Contains(c.Content, bigCode) {
						found = true
					}
					if strings.Count(c.Content, "```")%2 != 0 {
						t.Errorf("chunk cuts a code fence: %q", c.Content)
					}
				}
				if !found {
					t.Errorf("code block was cut: %q", contents(chunks))
				}
			},
		},
		{
			name: "a code block over Max is cut at lines and each piece fenced",
			text: hugeCode,
			opts: SplitOptions{Size: 200},
			check: func(t *testing.T, chunks []kb.Chunk) {
				if len(chunks) < 3 {
					t.Fatalf("got %d chunks, want the block cut", len(chunks))
				}
				for i, c := range chunks {
					if !strings.HasPrefix(c.Content, "```sql\nSELECT") || !strings.HasSuffix(c.Content, "SELECT * FROM t;\n```") {
						t.Errorf("chunk %d is not a fenced piece of whole lines: %q", i, c.Content)
					}
				}
			},
		},
		{
			name: "unclosed fence runs to the end and is closed",
			text: "Text.\n\n~~~\n# inside\n",
			check: func(t *testing.T, chunks []kb.Chunk) {
				want := []kb.Chunk{{Index: 0, Content: "Text.\n\n~~~\n# inside\n~~~"}}
				if !reflect.DeepEqual(chunks, want) {
					t.Errorf("got %+v, want %+v", chunks, want)
				}
			},
		},
		{
			name: "unicode: sizes count runes and CJK sentences split at full stops",
			text: "# 返金\n\n" + strings.Repeat("返金は三十日以内に受け付けます。", 20),
			opts: SplitOptions{Size: 100, Overlap: 20},
			check: func(t *testing.T, chunks []kb.Chunk) {
				if len(chunks) < 3 {
					t.Fatalf("got %d chunks, want several", len(chunks))
				}
				for i, c := range chunks {
					if !utf8.ValidString(c.Content) {
						t.Errorf("chunk %d is not valid UTF-8", i)
					}
					if n := utf8.RuneCountInString(c.Content); n > 100+20+2 {
						t.Errorf("chunk %d has %d runes", i, n)
					}
					if c.Heading != "返金" {
						t.Errorf("chunk %d heading %q", i, c.Heading)
					}
					if i > 0 && !strings.HasSuffix(c.Content, "。") {
						t.Errorf("chunk %d does not end at a full stop: %q", i, c.Content)
					}
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := Split(tt.text, tt.opts)
			checkChunks(t, chunks, tt.opts)
			tt.check(t, chunks)
			if again := Split(tt.text, tt.opts); !reflect.DeepEqual(again, chunks) {
				t.Error("Split is not deterministic")
			}
		})
	}
}

// checkChunks asserts what holds for every split: indexes in order, no
// empty chunk, and no chunk over the hard limit.
func checkChunks(t *testing.T, chunks []kb.Chunk, opts SplitOptions) {
	t.Helper()
	o := opts.withDefaults()
	for i, c := range chunks {
		if c.Index != i {
			t.Errorf("chunk %d has Index %d", i, c.Index)
		}
		if strings.TrimSpace(c.Content) == "" || c.Content != strings.TrimSpace(c.Content) {
			t.Errorf("chunk %d is empty or untrimmed: %q", i, c.Content)
		}
		if n := utf8.RuneCountInString(c.Content); n > o.Max {
			t.Errorf("chunk %d has %d runes, over Max %d", i, n, o.Max)
		}
	}
}

// longestOverlap returns the length in runes of the longest suffix of a
// that is a prefix of b.
func longestOverlap(a, b string) int {
	for n := min(len(a), len(b)); n > 0; n-- {
		if strings.HasSuffix(a, b[:n]) && utf8.ValidString(b[:n]) {
			return utf8.RuneCountInString(b[:n])
		}
	}
	return 0
}

func TestSplitOptionsDefaults(t *testing.T) {
	tests := []struct {
		in, want SplitOptions
	}{
		{SplitOptions{}, SplitOptions{Size: 1000, Overlap: 150, Max: 2000}},
		{SplitOptions{Size: 200}, SplitOptions{Size: 200, Overlap: 30, Max: 400}},
		{SplitOptions{Size: 100, Overlap: 90, Max: 50}, SplitOptions{Size: 100, Overlap: 50, Max: 100}},
		{SplitOptions{Overlap: -5}, SplitOptions{Size: 1000, Overlap: 0, Max: 2000}},
	}
	for _, tt := range tests {
		if got := tt.in.withDefaults(); got != tt.want {
			t.Errorf("%+v.withDefaults() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestSplitUnderKeepsHeading(t *testing.T) {
	chunks := splitUnder("text under a heading\n\n## Next\n\nmore", "Earlier", SplitOptions{})
	if got := headings(chunks); !reflect.DeepEqual(got, []string{"Earlier", "Next"}) {
		t.Errorf("headings = %q, want [Earlier Next]", got)
	}
}

func TestFirstHeading(t *testing.T) {
	tests := map[string]string{
		"no heading":                       "",
		"```\n# in code\n```\n\n## Real":   "Real",
		"Intro\n\n# Title #\n\n## Second":  "Title",
		"Setext title\n============\nbody": "Setext title",
		"## Sub\n\ntext\n\n# Main":         "Main",
		"## Opening\n\ntext\n\n## Next":    "Opening",
		"Intro text.\n\n## Purpose\n\nx":   "",
		"Intro\nSub\n---\n":                "",
	}
	for in, want := range tests {
		if got := firstHeading(in); got != want {
			t.Errorf("firstHeading(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("# Title\n\nSome text. More text!\n\n```\ncode\n```\n", 50, 10)
	f.Add(prose(30), 100, 20)
	f.Add("~~~~\n```\n~~~\n# x\n~~~~~\n- a\n- b\n===\n", 5, 2)
	f.Add("返金。返金。\r\n\r\n## 見出し\n"+strings.Repeat("あ", 300), 30, -1)
	f.Add("\xff\xfe bad utf8 \x00", 1, 0)
	f.Add("~~~~~0000000000", 10, 64) // a fence with no body over Max once vanished
	f.Fuzz(func(t *testing.T, text string, size, overlap int) {
		opts := SplitOptions{Size: size % 5000, Overlap: overlap % 5000}
		chunks := Split(text, opts)
		for i, c := range chunks {
			if c.Index != i {
				t.Fatalf("chunk %d has Index %d", i, c.Index)
			}
			if strings.TrimSpace(c.Content) == "" {
				t.Fatalf("chunk %d is empty", i)
			}
			if utf8.ValidString(text) && !utf8.ValidString(c.Content) {
				t.Fatalf("chunk %d is not valid UTF-8: %q", i, c.Content)
			}
		}
		if strings.TrimSpace(text) != "" && len(chunks) == 0 {
			t.Fatalf("no chunks for text with content %q", text)
		}
		// No word is lost, when lines are short enough that nothing needs a
		// hard cut.
		o := opts.withDefaults()
		if o.Size < 100 || !utf8.ValidString(text) {
			return
		}
		for _, line := range strings.Split(normalizeNewlines(text), "\n") {
			if utf8.RuneCountInString(line) > 30 {
				return
			}
		}
		all := strings.Join(contents(chunks), "\n")
		for _, w := range strings.Fields(text) {
			if !strings.Contains(all, w) {
				t.Fatalf("word %q lost from %q: %q", w, text, contents(chunks))
			}
		}
	})
}

func TestSplitNamesHeadingPaths(t *testing.T) {
	text := "# Guide\n\nAbout.\n\n## Defaults\n\nText.\n\n### Go 1.21\n\nPanics.\n\n## History\n\nOld."
	want := []string{"Guide", "Defaults", "Defaults › Go 1.21", "History"}
	if got := headings(Split(text, SplitOptions{})); !reflect.DeepEqual(got, want) {
		t.Errorf("headings = %q, want %q", got, want)
	}
	// Two level-1 headings: neither is the document's title, both name paths.
	text = "# A\n\nx\n\n## B\n\ny\n\n# C\n\nz"
	want = []string{"A", "A › B", "C"}
	if got := headings(Split(text, SplitOptions{})); !reflect.DeepEqual(got, want) {
		t.Errorf("headings = %q, want %q", got, want)
	}
}

func TestSplitKeepsRowsAndItemsWhole(t *testing.T) {
	var rows []string
	for i := range 12 {
		rows = append(rows, fmt.Sprintf("- Severity: SEV-%d · Description: Issue %d. It matters. · Response: Page. Notify.", i, i))
	}
	text := "## Levels\n\n" + strings.Join(rows, "\n")
	chunks := Split(text, SplitOptions{Size: 200})
	if len(chunks) < 2 {
		t.Fatalf("want several chunks, got %q", contents(chunks))
	}
	for _, c := range chunks {
		for _, line := range strings.Split(c.Content, "\n") {
			if line != "## Levels" && line != "" && !slices.Contains(rows, line) {
				t.Errorf("chunk %d has a line that is not a whole row: %q", c.Index, line)
			}
		}
	}
}

func TestSplitOverlapsByAWholeSentence(t *testing.T) {
	// Hard-wrapped prose, as Markdown sources are: the lines are wrapping,
	// not units, and a chunk ends after a sentence.
	def := "The asynctimerchan setting controls whether timer channels\nare synchronous."
	text := "## Settings\n\n" + strings.Repeat("Filler sentence\nabout settings.\n", 9) + def + "\nThe default is\nasynctimerchan=0."
	chunks := Split(text, SplitOptions{Size: 200, Overlap: 30})
	var found bool
	for _, c := range chunks {
		if strings.Contains(c.Content, "The default is asynctimerchan=0.") {
			found = strings.Contains(c.Content, "The asynctimerchan setting controls whether timer channels are synchronous. The default is")
		}
	}
	if !found {
		t.Errorf("no chunk holds the setting with its default: %q", contents(chunks))
	}
	for _, c := range chunks[1:] {
		if !strings.HasPrefix(c.Content, "Filler") && !strings.HasPrefix(c.Content, "The ") {
			t.Errorf("chunk %d starts mid-sentence: %q", c.Index, c.Content)
		}
	}
}
