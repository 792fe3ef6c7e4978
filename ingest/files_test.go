package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/switchboard/switchboard/internal/testpdf"
	"github.com/switchboard/switchboard/kb"
)

// writeFiles creates files under dir; names use forward slashes.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// collect makes dir a checkout (it gets a .git folder), runs Files from
// dir as the working directory and returns the documents by their path in
// the checkout ("docs/a.md" for the Location "<dir's name>/docs/a.md").
func collect(t *testing.T, dir string, paths ...string) (map[string]kb.Document, Report) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	docs := map[string]kb.Document{}
	rep, err := Files(context.Background(), paths, func(d kb.Document) error {
		if d.Key != KeyPrefix+d.Location {
			t.Errorf("Key %q is not %q and the Location %q", d.Key, KeyPrefix, d.Location)
		}
		docs[strings.TrimPrefix(d.Location, filepath.Base(dir)+"/")] = d
		return nil
	})
	if err != nil {
		t.Fatalf("Files: %v", err)
	}
	return docs, rep
}

func TestFilesLoadsFormats(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"docs/refunds.md":        "---\ntitle: Refund policy\nowner: finance\n---\n# Refunds\n\nWithin 30 days.\n",
		"docs/notes.markdown":    "Intro line.\n\n## Notes heading\n\nBody.",
		"docs/plain.txt":         "\uFEFFJust text.\r\nSecond line.",
		"docs/page.HTML":         "<html><head><title>Page title</title><script>x()</script></head><body><h2>Data retention</h2><p>35 days.</p></body></html>",
		"docs/untitled.htm":      "<p>No heading here.</p>",
		"docs/logo.png":          "\x89PNG\r\n\x1a\n\x00\x00",
		"docs/data.csv":          "a,b\n1,2\n",
		"docs/.hidden.md":        "# hidden",
		"docs/.git/HEAD.md":      "# git",
		"docs/sub/deeper/faq.md": "# FAQ\n\nQ and A.",
	})
	docs, rep := collect(t, dir, "docs")

	want := map[string]struct{ title, text, format string }{
		"docs/refunds.md":        {"Refund policy", "# Refunds\n\nWithin 30 days.\n", formatMarkdown},
		"docs/notes.markdown":    {"Notes", "Intro line.\n\n## Notes heading\n\nBody.", formatMarkdown},
		"docs/plain.txt":         {"Plain", "Just text.\nSecond line.", formatText},
		"docs/page.HTML":         {"Data retention", "## Data retention\n\n35 days.", formatHTML},
		"docs/untitled.htm":      {"Untitled", "No heading here.", formatHTML},
		"docs/sub/deeper/faq.md": {"FAQ", "# FAQ\n\nQ and A.", formatMarkdown},
	}
	if len(docs) != len(want) {
		t.Errorf("loaded %d documents, want %d: %v", len(docs), len(want), keys(docs))
	}
	for key, w := range want {
		d, ok := docs[key]
		if !ok {
			t.Errorf("%s not loaded", key)
			continue
		}
		if d.Title != w.title {
			t.Errorf("%s: Title = %q, want %q", key, d.Title, w.title)
		}
		if len(d.Chunks) != 1 || d.Chunks[0].Content != w.text {
			t.Errorf("%s: chunks = %+v, want one chunk %q", key, d.Chunks, w.text)
		}
		owner := map[string]string{"docs/refunds.md": "finance"}[key] // its front matter's owner:
		if !strings.HasSuffix(d.Location, key) || d.Hash != fileHash(w.text, "", owner) || d.Metadata["format"] != w.format || d.Metadata[OwnerKey] != owner {
			t.Errorf("%s: Location %q, Hash %q, format %q", key, d.Location, d.Hash, d.Metadata["format"])
		}
	}
	if rep.Files != len(want) || rep.Unsupported != 2 || len(rep.Skipped) != 0 || len(rep.Errors) != 0 {
		t.Errorf("report = %+v, want %d files, 2 unsupported (png, csv), no skips or errors", rep, len(want))
	}
}

func TestFilesSkipsBinary(t *testing.T) {
	dir := t.TempDir()
	latin1 := "caf\xe9 cr\xe8me" // Latin-1, not UTF-8
	// A UTF-8 character cut by the 8 kB sniff boundary must not count as invalid.
	boundary := strings.Repeat("a", sniffSize-1) + "é and more"
	writeFiles(t, dir, map[string]string{
		"docs/image.md":    "# looks like markdown\x00\x01\x02",
		"docs/latin1.txt":  latin1,
		"docs/boundary.md": boundary,
		"docs/good.md":     "# Good",
		"blob.bin":         "\x00\x00\x00",
		"README":           "Explicit file with no extension.",
	})
	docs, rep := collect(t, dir, "docs", "blob.bin", "README")

	wantSkipped := []Skip{
		{Path: "docs/image.md", Reason: "binary file (contains NUL bytes)"},
		{Path: "docs/latin1.txt", Reason: "binary file or not UTF-8 text"},
		{Path: "blob.bin", Reason: "binary file (contains NUL bytes)"},
	}
	if !reflect.DeepEqual(rep.Skipped, wantSkipped) {
		t.Errorf("Skipped = %+v\nwant %+v", rep.Skipped, wantSkipped)
	}
	for _, key := range []string{"docs/good.md", "docs/boundary.md", "README"} {
		if _, ok := docs[key]; !ok {
			t.Errorf("%s not loaded; got %v", key, keys(docs))
		}
	}
	if rep.Files != 3 || len(rep.Errors) != 0 {
		t.Errorf("report = %+v", rep)
	}
	if s := rep.String(); !strings.Contains(s, "skipped docs/image.md: binary file (contains NUL bytes)") {
		t.Errorf("String() = %q, want the skipped file named", s)
	}
}

func TestFilesMissingPath(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"docs/ok.md": "# OK"})
	docs, rep := collect(t, dir, "docs/missing.md", "docs/ok.md")

	if _, ok := docs["docs/ok.md"]; !ok {
		t.Error("the good path was not loaded after a missing one")
	}
	if len(rep.Errors) != 1 {
		t.Fatalf("Errors = %v, want one", rep.Errors)
	}
	err := rep.Errors[0]
	if got, want := err.Error(), "ingest: docs/missing.md: no such file or directory"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v is not fs.ErrNotExist", err)
	}
	if rep.Err() == nil || !strings.Contains(rep.String(), "error: ingest: docs/missing.md") {
		t.Errorf("Err() = %v, String() = %q", rep.Err(), rep.String())
	}
}

// Files too large, and files with more text than the cap, are skipped
// whole and said so, naming the file: half a document is never handed
// on, whatever its format.
func TestFilesLimits(t *testing.T) {
	dir := t.TempDir()
	line := "Acme Corp supplies Globex with sensors."
	writeFiles(t, dir, map[string]string{
		"big.md":    strings.Repeat("x", 16<<10),
		"small.md":  "# Small",
		"empty.md":  "  \n\n",
		"long.md":   strings.Repeat(line+"\n", 20), // 800 bytes of text
		"long.pdf":  string(testpdf.New("Long", line, line, line, line, line, line, line, line, line, line, line, line, line, line)),
		"short.pdf": string(testpdf.New("Short", line)),
	})
	t.Chdir(dir)
	l := &loader{fsys: osFS{}, display: func(p string) string { return displayPath(dir, p) }, maxSize: 8 << 10, maxText: 512}
	var got []string
	rep, err := l.run(context.Background(), []string{"big.md", "small.md", "small.md", "./small.md", "empty.md", "long.md", "long.pdf", "short.pdf"}, func(d kb.Document, _ *sourceID) error {
		got = append(got, d.Key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"small.md", "short.pdf"}) {
		t.Errorf("loaded %v, want small.md once and short.pdf", got)
	}
	tooMuch := "more than 512 bytes of text (the limit is 512 bytes); split it into smaller files to ingest it"
	want := []Skip{
		{Path: "big.md", Reason: "too large (16 kB; the limit is 8 kB)"},
		{Path: "empty.md", Reason: "no text"},
		{Path: "long.md", Reason: tooMuch},
		{Path: "long.pdf", Reason: "PDF: " + tooMuch},
	}
	if !reflect.DeepEqual(rep.Skipped, want) {
		t.Errorf("Skipped = %+v, want %+v", rep.Skipped, want)
	}
	if rep.String() == "" || !strings.Contains(rep.String(), "long.pdf: PDF: more than 512 bytes of text") {
		t.Errorf("the report does not name the file and the cap:\n%s", rep)
	}
}

func TestFilesKeys(t *testing.T) {
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"far.md": "# Far"})
	cwd := t.TempDir()
	writeFiles(t, cwd, map[string]string{"near.md": "# Near"})
	docs, _ := collect(t, cwd, filepath.Join(cwd, "near.md"), filepath.Join(outside, "far.md"))

	if d, ok := docs["near.md"]; !ok || d.Location != filepath.Base(cwd)+"/near.md" {
		t.Errorf("a file in a checkout should be keyed by its path there, under the checkout's name; got %v", keys(docs))
	}
	real, err := filepath.EvalSymlinks(filepath.Join(outside, "far.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := docs[filepath.ToSlash(real)]; !ok {
		t.Errorf("a file outside any checkout should be keyed by its real absolute path %q; got %v", real, keys(docs))
	}
}

// The same folder named three ways, and through a link, is one set of
// documents.
func TestFilesSameFolderThreeWays(t *testing.T) {
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"docs/parking.md": "# Parking", "docs/sub/desk.md": "# Desks", "tools/x.txt": "x"})
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	ways := map[string][]string{
		repo:                         {"docs"},
		filepath.Join(repo, "tools"): {"../docs", "./../docs/"},
		t.TempDir():                  {filepath.Join(repo, "docs"), filepath.Join(repo, ".", "tools", "..", "docs")},
	}
	if err := os.Symlink(filepath.Join(repo, "docs"), filepath.Join(repo, "tools", "docs-link")); err == nil {
		ways[filepath.Join(repo, "tools")] = append(ways[filepath.Join(repo, "tools")], "docs-link")
	}
	name := filepath.Base(repo)
	want := []string{KeyPrefix + name + "/docs/parking.md", KeyPrefix + name + "/docs/sub/desk.md"}
	for cwd, paths := range ways {
		for _, p := range paths {
			t.Chdir(cwd)
			var got []string
			if _, err := Files(context.Background(), []string{p}, func(d kb.Document) error {
				got = append(got, d.Key)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("from %s, %q: keys %v, want %v", cwd, p, got, want)
			}
		}
	}
}

func TestOriginName(t *testing.T) {
	dir := t.TempDir()
	for url, want := range map[string]string{
		"git@github.com:acme/handbook.git":  "handbook",
		"https://github.com/acme/handbook/": "handbook",
		"ssh://git@host:22/srv/kb":          "kb",
		"/srv/git/company-docs.git":         "company-docs",
	} {
		cfg := filepath.Join(dir, "config")
		body := "[core]\n\turl = nope\n[remote \"upstream\"]\n\turl = x/other\n[remote \"origin\"]\n\turl = " + url + "\n"
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := originName(cfg); got != want {
			t.Errorf("origin %q: name %q, want %q", url, got, want)
		}
	}
}

func TestFilesStopsOnCallbackErrorAndCancel(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A", "b.md": "# B"})
	t.Chdir(dir)

	boom := errors.New("boom")
	n := 0
	_, err := Files(context.Background(), []string{"."}, func(kb.Document) error { n++; return boom })
	if !errors.Is(err, boom) || n != 1 {
		t.Errorf("err = %v after %d calls, want boom after 1", err, n)
	}
	if !strings.Contains(err.Error(), "a.md") {
		t.Errorf("error %q does not name the file", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Files(ctx, []string{"."}, func(kb.Document) error { t.Error("called after cancel"); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestFilesFS(t *testing.T) {
	fsys := fstest.MapFS{
		"docs/a.md":    {Data: []byte("# A\n\ntext")},
		"docs/b.html":  {Data: []byte("<h1>B</h1>")},
		"docs/c.jpg":   {Data: []byte{0xff, 0xd8}},
		"graph/n.csv":  {Data: []byte("id,label,name\n")},
		"docs/x/y.txt": {Data: []byte("y")},
	}
	var got []string
	rep, err := FilesFS(context.Background(), fsys, "examples", []string{"docs", "docs/nope.md"}, func(d kb.Document) error {
		got = append(got, d.Key+"="+d.Title)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"examples/docs/a.md=A", "examples/docs/b.html=B", "examples/docs/x/y.txt=Y"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if rep.Unsupported != 1 || len(rep.Errors) != 1 || !strings.HasPrefix(rep.Errors[0].Error(), "ingest: examples/docs/nope.md: ") {
		t.Errorf("report = %+v", rep)
	}
	if !strings.Contains(rep.String(), "1 file of other types ignored: examples/docs/c.jpg\n") {
		t.Errorf("the report does not name the file ignored:\n%s", rep)
	}
}

// A folder of many files of other types: the report names the first
// MaxIgnoredListed and counts the rest.
func TestReportNamesTheFilesIgnored(t *testing.T) {
	fsys := fstest.MapFS{"docs/a.md": {Data: []byte("# A\n\nA.")}}
	for i := range MaxIgnoredListed + 3 {
		fsys[fmt.Sprintf("docs/img%02d.png", i)] = &fstest.MapFile{Data: []byte("\x89PNG")}
	}
	rep, err := FilesFS(context.Background(), fsys, "", []string{"docs"}, func(kb.Document) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d files of other types ignored: docs/img00.png, docs/img01.png, ", MaxIgnoredListed+3)
	if s := rep.String(); !strings.Contains(s, want) || !strings.Contains(s, "docs/img09.png and 3 more") || strings.Contains(s, "img10") {
		t.Errorf("report:\n%s", s)
	}
}

func TestReportString(t *testing.T) {
	rep := Report{Files: 4, Added: 1, Updated: 1, Unchanged: 2, Chunks: 9, Unsupported: 3,
		Ignored: []string{"logo.png", "data.xlsx", "slides.pptx"},
		Skipped: []Skip{{"logo.bin", "binary file (contains NUL bytes)"}},
		Errors:  []error{errors.New("ingest: docs/missing.md: no such file or directory")}}
	want := "4 files: 1 added, 1 updated, 2 unchanged; 9 chunks written\n" +
		"skipped logo.bin: binary file (contains NUL bytes)\n" +
		"3 files of other types ignored: logo.png, data.xlsx, slides.pptx\n" +
		"error: ingest: docs/missing.md: no such file or directory"
	if got := rep.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	if got := (Report{Files: 1, Chunks: 1, Added: 1}).String(); got != "1 file: 1 added, 0 updated, 0 unchanged; 1 chunk written" {
		t.Errorf("String() = %q", got)
	}
}

func keys(m map[string]kb.Document) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestFilesFollowsANamedLinkToAFolder(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"real/a.md": "# A", "real/sub/b.md": "# B"})
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "real", "loop")); err != nil {
		t.Fatal(err)
	}
	docs, rep := collect(t, dir, "link")
	// Files are known by where they really are.
	if _, ok := docs["real/a.md"]; !ok {
		t.Errorf("link/a.md not loaded as real/a.md: %v", keys(docs))
	}
	if _, ok := docs["real/sub/b.md"]; !ok {
		t.Errorf("link/sub/b.md not loaded as real/sub/b.md: %v", keys(docs))
	}
	// A link inside the walk is not followed, so it cannot loop.
	if len(docs) != 2 || len(rep.Skipped) != 1 || rep.Skipped[0].Path != "link/loop" {
		t.Errorf("docs %v, report %+v", keys(docs), rep)
	}
}

func TestNameTitle(t *testing.T) {
	for in, want := range map[string]string{
		"complex_incidents.md": "Complex incidents",
		"refund-policy.md":     "Refund policy",
		"notes":                "Notes",
		"élan vital.txt":       "Élan vital",
		"_.md":                 "_.md",
		".md":                  ".md",
	} {
		if got := nameTitle(in); got != want {
			t.Errorf("nameTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
