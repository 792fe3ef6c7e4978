package ingest

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/switchboard/switchboard/kb"
)

func TestStripFrontMatter(t *testing.T) {
	tests := []struct {
		name, in, text, title, url string
	}{
		{"title and url", "---\ntitle: Refunds\nurl: https://docs.example.com/refunds\n---\n# R\n", "# R\n", "Refunds", "https://docs.example.com/refunds"},
		{"quoted, with a comment after", "---\nurl: \"https://docs.example.com/a#b\" # the page\n---\nx", "x", "", "https://docs.example.com/a#b"},
		{"single quotes", "---\nurl: 'http://intranet.example/x?y=1'\n---\nx", "x", "", "http://intranet.example/x?y=1"},
		{"a comment after an unquoted url", "---\nurl: https://docs.example.com/a#frag # old page\n---\nx", "x", "", "https://docs.example.com/a#frag"},
		{"the first url counts", "---\nurl: https://a.example/\nurl: https://b.example/\n---\nx", "x", "", "https://a.example/"},
		{"javascript", "---\nurl: javascript:alert(document.cookie)\n---\nx", "x", "", ""},
		{"javascript in capitals", "---\nurl: JAVASCRIPT:alert(1)\n---\nx", "x", "", ""},
		{"data", "---\nurl: data:text/html;base64,PHNjcmlwdD4=\n---\nx", "x", "", ""},
		{"relative", "---\nurl: ../refunds.html\n---\nx", "x", "", ""},
		{"scheme-relative", "---\nurl: //evil.example/x\n---\nx", "x", "", ""},
		{"no scheme", "---\nurl: docs.example.com/refunds\n---\nx", "x", "", ""},
		{"a user name before the host", "---\nurl: https://docs.example.com@evil.example/\n---\nx", "x", "", ""},
		{"spaces inside", "---\nurl: https://docs.example.com/a b\n---\nx", "x", "", ""},
		{"unterminated quote", "---\nurl: \"https://docs.example.com/a\n---\nx", "x", "", ""},
		{"nested under another key", "---\nlinks:\n  url: https://docs.example.com/a\n---\nx", "x", "", ""},
		{"a key that only ends in url", "---\nimage_url: https://img.example/a.png\n---\nx", "x", "", ""},
		{"empty front matter", "---\n---\n# Body\n", "# Body\n", "", ""},
		{"front matter ending the file", "---\ntitle: T\n---", "", "T", ""},
		{"only the fences", "---\n---", "", "", ""},
		{"never closed: text", "---\ntitle: T\nno end", "---\ntitle: T\nno end", "", ""},
		{"no front matter", "# Title\n\n---\n\nAfter a rule.", "# Title\n\n---\n\nAfter a rule.", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, fm := stripFrontMatter(tt.in)
			if text != tt.text || fm.title != tt.title || fm.url != tt.url {
				t.Errorf("stripFrontMatter(%q) = %q, %+v; want %q, title %q, url %q", tt.in, text, fm, tt.text, tt.title, tt.url)
			}
		})
	}
}

func TestFileURL(t *testing.T) {
	for _, tt := range []struct{ base, rel, want string }{
		{"https://github.com/acme/handbook/blob/main/", "docs/parking.md", "https://github.com/acme/handbook/blob/main/docs/parking.md"},
		{"https://docs.example.com/kb", "a.md", "https://docs.example.com/kb/a.md"},
		{"https://x.example/", "Team notes/Q&A #2?.md", "https://x.example/Team%20notes/Q&A%20%232%3F.md"},
		{"https://x.example/", "café/100%.md", "https://x.example/caf%C3%A9/100%25.md"},
		{"javascript:alert(1)//", "a.md", ""},
		{"https://x.example/", "", ""},
	} {
		if got := fileURL(tt.base, tt.rel); got != tt.want {
			t.Errorf("fileURL(%q, %q) = %q, want %q", tt.base, tt.rel, got, tt.want)
		}
	}
}

// Files and IngestFiles store the link of a file: its front matter's
// url:, else DOCS_BASE_URL and its path in the checkout.
func TestIngestFilesLinks(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "handbook")
	writeFiles(t, repo, map[string]string{
		".git/HEAD":          "ref: refs/heads/main\n",
		"docs/own.md":        "---\nurl: https://wiki.example.com/own\n---\n# Own\n\nHas its page.",
		"docs/hostile.md":    "---\nurl: javascript:alert(1)\n---\n# Hostile\n\nGets the base instead.",
		"docs/Team notes.md": "# Notes\n\nPlain.",
		"docs/plain.txt":     "Text.",
	})
	outside := filepath.Join(dir, "loose")
	writeFiles(t, outside, map[string]string{"sub/page.md": "# Page\n\nNot in a checkout."})
	t.Chdir(dir)
	ctx := context.Background()

	// Files alone knows no base: only the front matter links.
	links := map[string]string{}
	if _, err := Files(ctx, []string{"handbook/docs"}, func(d kb.Document) error {
		links[d.Location] = d.Metadata["url"]
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if links["handbook/docs/own.md"] != "https://wiki.example.com/own" || links["handbook/docs/hostile.md"] != "" || links["handbook/docs/plain.txt"] != "" {
		t.Errorf("Files links = %v", links)
	}

	store := newMemStore()
	p := &Pipeline{Store: store, DocsBaseURL: "https://github.com/acme/handbook/blob/main"}
	// The folder is named below the checkout's top: paths still start there.
	if _, err := p.IngestFiles(ctx, []string{"handbook/docs", outside}); err != nil {
		t.Fatal(err)
	}
	base := "https://github.com/acme/handbook/blob/main/"
	want := map[string]string{
		"handbook/docs/own.md":        "https://wiki.example.com/own",
		"handbook/docs/hostile.md":    base + "docs/hostile.md",
		"handbook/docs/Team notes.md": base + "docs/Team%20notes.md",
		"handbook/docs/plain.txt":     base + "docs/plain.txt",
		// Outside any checkout: the path from the folder named.
		filepath.ToSlash(filepath.Join(mustEval(t, outside), "sub", "page.md")): base + "sub/page.md",
	}
	got := map[string]string{}
	for _, d := range store.docs {
		got[d.Location] = d.Metadata["url"]
	}
	for loc, u := range want {
		if got[loc] != u {
			t.Errorf("%s: url %q, want %q", loc, got[loc], u)
		}
	}

	// The link is part of the hash: a new base is stored at the next
	// ingest, an unchanged one is not.
	rep, err := p.IngestFiles(ctx, []string{"handbook/docs"})
	if err != nil || rep.Unchanged != 4 {
		t.Errorf("same base: %s, %v", rep, err)
	}
	p.DocsBaseURL = "https://git.example.com/handbook/-/blob/main/"
	rep, err = p.IngestFiles(ctx, []string{"handbook/docs"})
	if err != nil || rep.Updated != 3 || rep.Unchanged != 1 {
		t.Errorf("new base: %s, %v", rep, err)
	}
	// Without a link, the hash is the text's and the read version's.
	p.DocsBaseURL = ""
	rep, err = p.IngestFiles(ctx, []string{"handbook/docs/plain.txt"})
	if d := store.docs["/"+KeyPrefix+"handbook/docs/plain.txt"]; err != nil || d.Hash != fileHash("Text.", "", "") || d.Metadata["url"] != "" {
		t.Errorf("no base: %s, %v; stored %+v", rep, err, d)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(p) // t.TempDir may be under a link (macOS /var)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// FuzzFrontMatter feeds the front-matter reader any text: it never
// panics, never returns more text than it got, and the only link it
// returns is an absolute http(s) URL a chat client can open.
func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: T\nurl: https://docs.example.com/a\n---\nbody",
		"---\nurl: javascript:alert(1)\n---\n",
		"---\nurl: \"data:text/html,<script>\"\n---\n",
		"---\nurl: 'https://a.example/x' # c\n---",
		"---\n---", "---\n", "---\nurl: https://x@y/\n",
		"---\nurl: https://a.example/\u2028x\n---\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text, fm := stripFrontMatter(s)
		if len(text) > len(s) || !strings.HasSuffix(s, text) {
			t.Fatalf("text %q is not the end of %q", text, s)
		}
		if fm.url == "" {
			return
		}
		u, err := url.Parse(fm.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			t.Fatalf("url %q kept from %q", fm.url, s)
		}
		if strings.ContainsFunc(fm.url, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
			t.Fatalf("url %q has white space or control characters", fm.url)
		}
	})
}
