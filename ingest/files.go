package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/switchboard/switchboard/internal/links"
	"github.com/switchboard/switchboard/internal/markdown"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard/switchboard/kb"
)

// MaxFileSize is the largest file Files reads; larger files are skipped and
// reported. A text document that size is almost always a log or a dump, not
// knowledge, and would cost thousands of embeddings.
const MaxFileSize = 20 << 20

// MaxFileText is the most text one file may give, in bytes: about 1,500
// pages of prose. A file with more (a book, a log, a dump) is skipped and
// reported, not cut short, since half a document would be cited as if it
// were whole. Splitting, embedding and storing text takes about 16 times
// its size in memory for a moment, so this also bounds what indexing one
// file adds to the process: about 70 MB.
const MaxFileText = 4 << 20

// tooMuchText is the reason a file with more than max bytes of text is
// skipped.
func tooMuchText(max int) error {
	return fmt.Errorf("more than %s of text (the limit is %[1]s); split it into smaller files to ingest it", byteSize(int64(max)))
}

// sniffSize is how much of a file is checked for binary content.
const sniffSize = 8 << 10

// Formats recorded in Document.Metadata["format"].
const (
	formatMarkdown = "markdown"
	formatText     = "text"
	formatHTML     = "html"
)

// formats maps the extensions loaded from folders to their format.
var formats = map[string]string{
	".md":       formatMarkdown,
	".markdown": formatMarkdown,
	".txt":      formatText,
	".html":     formatHTML,
	".htm":      formatHTML,
	".pdf":      formatPDF,
}

// Files loads the files and folders named by paths and calls fn with one
// Document per file, in the order given (folders in lexical order).
//
// Folders are walked recursively; files there are loaded when they end in
// .md, .markdown, .txt, .html, .htm or .pdf (text PDFs; see extractPDF for
// what is read), and others are counted in
// Report.Unsupported. Hidden files and folders (".git") are ignored. A file
// named explicitly is loaded whatever its extension, as plain text, if it
// is text.
//
// Files never stops for one bad file: binary, non-UTF-8, empty or too large
// files are listed in Report.Skipped, and a path that cannot be read (a
// missing one: "ingest: docs/missing.md: no such file or directory") in
// Report.Errors. It returns an error only when ctx ends or fn fails, and
// then stops.
//
// Each Document is handed over unsplit: one chunk holding the file's whole
// text, which Pipeline.Ingest splits. Location is the file's canonical
// identity, whatever path reached it: its real path (absolute, cleaned,
// links resolved) relative to the top of the Git checkout holding it,
// prefixed with the checkout's name ("handbook/docs/parking.md"), or the
// real absolute path outside any checkout; Key is KeyPrefix and Location.
// Title is the one the file states (front matter "title:", a page's JSON
// comment header), else the heading that names it (see docTitle), else
// its file name made a title; Hash is fileHash of the text. The text is
// Markdown without markup: HTML converted, template tags and heading
// attributes removed, tables as rows (see cleanMarkdown, extractHTML).
// Reports name paths as typed, relative to the working directory.
//
// A Markdown file whose front matter has a "url:" that is an http(s) URL
// gets it in Metadata["url"]: the page people read it on, which the
// answer's source links to. Other files get no link; IngestFiles can give
// them one (Pipeline.DocsBaseURL).
func Files(ctx context.Context, paths []string, fn func(kb.Document) error) (Report, error) {
	return files(ctx, paths, "", func(d kb.Document, _ *sourceID) error { return fn(d) })
}

// files is Files, linking each file without a url: in its front matter
// under baseURL when that is set (see fileURL and loader.relPath).
func files(ctx context.Context, paths []string, baseURL string, fn func(kb.Document, *sourceID) error) (Report, error) {
	cwd, _ := os.Getwd() // without it, reports show absolute paths
	roots := &sourceRoots{}
	l := &loader{fsys: osFS{}, display: func(p string) string { return displayPath(cwd, p) }, maxSize: MaxFileSize, maxText: MaxFileText, baseURL: baseURL,
		identify: func(p string) (string, string, *sourceID) {
			id := roots.identify(p)
			return id.key(), id.location, &id
		},
		owners: roots.owners}
	return l.run(ctx, paths, fn)
}

// FilesFS is Files over fsys, such as an embedded file system. Paths are
// fs.FS paths ("docs", "docs/refund-policy.md"); Key and Location are
// prefix joined with the path ("examples/docs/refund-policy.md"), so that
// documents from different file systems keep apart.
func FilesFS(ctx context.Context, fsys fs.FS, prefix string, paths []string, fn func(kb.Document) error) (Report, error) {
	l := &loader{fsys: ioFS{fsys}, display: func(p string) string { return path.Join(prefix, p) }, maxSize: MaxFileSize, maxText: MaxFileText}
	return l.run(ctx, paths, func(d kb.Document, _ *sourceID) error { return fn(d) })
}

// fileSystem is what loading needs: the host's files or an fs.FS.
type fileSystem interface {
	Stat(name string) (fs.FileInfo, error)
	Open(name string) (io.ReadCloser, error)
	WalkDir(root string, fn fs.WalkDirFunc) error
	Ext(name string) string
	Base(name string) string
}

type osFS struct{}

func (osFS) Stat(name string) (fs.FileInfo, error)   { return os.Stat(name) }
func (osFS) Open(name string) (io.ReadCloser, error) { return os.Open(name) }
func (osFS) Ext(name string) string                  { return filepath.Ext(name) }
func (osFS) Base(name string) string                 { return filepath.Base(name) }

// WalkDir walks root, following root itself when it is a symbolic link to
// a folder: the caller named it, so they mean its contents. Links inside
// are not followed, which keeps a walk from looping.
func (osFS) WalkDir(root string, fn fs.WalkDirFunc) error {
	if fi, err := os.Lstat(root); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return filepath.WalkDir(root, fn)
	}
	// A trailing separator makes the walk resolve the link.
	withSep := root + string(filepath.Separator)
	return filepath.WalkDir(withSep, func(name string, d fs.DirEntry, err error) error {
		if name == withSep {
			name = root
		}
		return fn(name, d, err)
	})
}

type ioFS struct{ fsys fs.FS }

func (f ioFS) Stat(name string) (fs.FileInfo, error)        { return fs.Stat(f.fsys, name) }
func (f ioFS) Open(name string) (io.ReadCloser, error)      { return f.fsys.Open(name) }
func (f ioFS) WalkDir(root string, fn fs.WalkDirFunc) error { return fs.WalkDir(f.fsys, root, fn) }
func (ioFS) Ext(name string) string                         { return path.Ext(name) }
func (ioFS) Base(name string) string                        { return path.Base(name) }

// displayPath is p relative to cwd when it lies inside cwd, else absolute,
// with forward slashes so that keys are the same on every OS.
func displayPath(cwd, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if cwd != "" {
		if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(abs)
}

type loader struct {
	fsys    fileSystem
	display func(string) string // a path as reports show it
	// identify returns a file's Key and Location, and for a host file its
	// identity; nil means both are display's.
	identify func(string) (key, location string, id *sourceID)
	maxSize  int64  // MaxFileSize; tests lower it
	maxText  int    // MaxFileText; tests lower it
	baseURL  string // links files without a url: of their own; "" for none
	// owners returns a host file's owners from its checkout's CODEOWNERS
	// (see OwnerKey); nil for files not on the host.
	owners func(*sourceID) []string
	seen   map[string]bool // keys loaded, so a file named twice is read once
	rep    Report
}

type docFunc = func(kb.Document, *sourceID) error

func (l *loader) run(ctx context.Context, paths []string, fn docFunc) (Report, error) {
	l.seen = make(map[string]bool)
	for _, p := range paths {
		if err := l.load(ctx, p, fn); err != nil {
			return l.rep, err
		}
	}
	return l.rep, nil
}

// load loads one path given by the caller: a file or a folder.
func (l *loader) load(ctx context.Context, p string, fn docFunc) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	info, err := l.fsys.Stat(p)
	if err != nil {
		l.fail(p, err)
		return nil
	}
	if !info.IsDir() {
		return l.file(ctx, p, p, info, true, fn)
	}
	return l.fsys.WalkDir(p, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			l.fail(name, err)
			if d != nil && d.IsDir() && name != p {
				return fs.SkipDir
			}
			return nil
		}
		if name != p && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		info, err := l.fsys.Stat(name) // follows a symbolic link to its file
		if err != nil {
			l.fail(name, err)
			return nil
		}
		if info.IsDir() {
			l.skip(name, "link to a folder (not followed)")
			return nil
		}
		return l.file(ctx, name, p, info, false, fn)
	})
}

// fail records that p could not be read, naming the path as people see it:
// "ingest: docs/missing.md: no such file or directory".
func (l *loader) fail(p string, err error) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	l.rep.Errors = append(l.rep.Errors, fmt.Errorf("ingest: %s: %w", l.display(p), err))
}

func (l *loader) skip(p, reason string) {
	l.rep.Skipped = append(l.rep.Skipped, Skip{Path: l.display(p), Reason: reason})
}

// file loads one file, reached from root: the path the caller named, p
// itself or a folder above it. explicit is true when the caller named it,
// which lets a file with an unknown extension be read as text.
func (l *loader) file(ctx context.Context, p, root string, info fs.FileInfo, explicit bool, fn docFunc) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	key, location := l.display(p), ""
	var id *sourceID
	if l.identify != nil {
		key, location, id = l.identify(p)
	} else {
		location = key
	}
	if l.seen[key] {
		return nil
	}
	l.seen[key] = true

	format, known := formats[strings.ToLower(l.fsys.Ext(p))]
	switch {
	case !known && !explicit:
		l.rep.ignore(key)
		return nil
	case !known:
		format = formatText
	}
	if !info.Mode().IsRegular() {
		l.skip(p, "not a regular file")
		return nil
	}
	if info.Size() > l.maxSize {
		l.skip(p, fmt.Sprintf("too large (%s; the limit is %s)", byteSize(info.Size()), byteSize(l.maxSize)))
		return nil
	}
	var text, title, link string
	var declared bool // the title is the file's own word for it
	var owners []string
	if format == formatPDF {
		// PDFium reads the file itself, the parts it needs as it needs
		// them: the file is never held whole here.
		var err error
		text, title, err = l.pdf(ctx, p)
		var pe *fs.PathError
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return ctx.Err() // the run was stopped, not the file bad
		case errors.As(err, &pe):
			l.fail(p, err)
			return nil
		default:
			l.skip(p, "PDF: "+err.Error())
			return nil
		}
	} else {
		data, err := l.read(p)
		if err != nil {
			l.fail(p, err)
			return nil
		}
		if int64(len(data)) > l.maxSize { // it grew since Stat
			l.skip(p, fmt.Sprintf("too large (over %s)", byteSize(l.maxSize)))
			return nil
		}
		if reason := binaryReason(data); reason != "" {
			l.skip(p, reason)
			return nil
		}
		d := decode(data, format)
		text, title, link, declared, owners = d.text, d.title, d.link, d.declared, d.owners
		if len(text) > l.maxText {
			l.skip(p, tooMuchText(l.maxText).Error())
			return nil
		}
	}
	if strings.TrimSpace(text) == "" {
		l.skip(p, "no text")
		return nil
	}
	title = docTitle(format, text, title, declared, true)
	if title == "" {
		title = nameTitle(l.fsys.Base(p))
	}
	if link == "" && l.baseURL != "" {
		link = fileURL(l.baseURL, l.relPath(p, root, id))
	}
	if len(owners) == 0 && id != nil && l.owners != nil {
		owners = l.owners(id)
	}
	owner := strings.Join(owners, ", ")
	doc := kb.Document{
		Key:      key,
		Title:    title,
		Location: location,
		Hash:     fileHash(text, link, owner),
		Metadata: map[string]string{"format": format},
		Chunks:   []kb.Chunk{{Index: 0, Content: text}},
	}
	if link != "" {
		doc.Metadata["url"] = link
	}
	if owner != "" {
		doc.Metadata[OwnerKey] = owner
	}
	l.rep.Files++
	if err := fn(doc, id); err != nil {
		return fmt.Errorf("ingest: %s: %w", l.display(p), err)
	}
	return nil
}

// ReadVersion names the way files are read and split into chunks. It is
// part of a file's hash (see fileHash), so that a change in what is stored
// of the same bytes (a table read as rows, a title from a page's header,
// chunks that keep a heading's path) re-stores every file at its next
// ingest, instead of leaving the chunks of the old way beside new ones.
// Change it with any such change.
//
//   - "": text as read, split at headings (hashes of the text alone)
//   - "2": HTML through html-to-markdown, tables as rows naming their
//     columns, template tags and heading attributes removed, chunks
//     naming their heading path and overlapping by a whole sentence
const ReadVersion = "2"

// fileHash is the Hash of a file whose text is text and link link: a new
// link must reach the store even when the text is the same, and so must a
// new ReadVersion.
func fileHash(text, link, owner string) string {
	s := text + "\x00read\x00" + ReadVersion
	if link != "" {
		s += "\x00url\x00" + link
	}
	if owner != "" { // so that the hashes of files without owners stay
		s += "\x00owner\x00" + owner
	}
	return kb.Hash(s)
}

// relPath is the path of file p under DOCS_BASE_URL: its path from the
// top of the Git checkout holding it, as in its Location without the
// checkout's name ("docs/parking.md" for "handbook/docs/parking.md"), so
// that the repository's URL ("https://github.com/acme/handbook/blob/main/")
// is the base however the folder was named; outside any checkout, its
// path from root, the folder the caller named (its name, when the caller
// named the file).
func (l *loader) relPath(p, root string, id *sourceID) string {
	if id != nil && id.rel != "" {
		return id.rel
	}
	if p == root {
		return l.fsys.Base(p)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return l.fsys.Base(p)
	}
	return filepath.ToSlash(rel)
}

// pdf reads the text of the PDF file p, which PDFium reads through
// p's ReadAt: a file that cannot be read at random is read whole first.
// An error opening or reading p is a *fs.PathError.
func (l *loader) pdf(ctx context.Context, p string) (text, title string, err error) {
	f, err := l.fsys.Open(p)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	src, size, err := readerAt(f, l.maxSize)
	if err != nil {
		return "", "", &fs.PathError{Op: "read", Path: p, Err: err}
	}
	if size > l.maxSize { // it grew since Stat
		return "", "", fmt.Errorf("too large (over %s)", byteSize(l.maxSize))
	}
	return extractPDFContext(ctx, src, size, l.maxText)
}

// readerAt returns f for reading at random and its size, from f itself
// when it can (a host file, an embedded one), else from its first max+1
// bytes read into memory.
func readerAt(f io.Reader, max int64) (io.ReaderAt, int64, error) {
	if ra, ok := f.(io.ReaderAt); ok {
		if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
			info, err := st.Stat()
			if err != nil {
				return nil, 0, err
			}
			return ra, info.Size(), nil
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, 0, err
	}
	return bytes.NewReader(data), int64(len(data)), nil
}

func (l *loader) read(p string) ([]byte, error) {
	f, err := l.fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, l.maxSize+1))
}

// binaryReason says why data is not text, or "" when it is. Only the first
// 8 kB are checked, as editors and `file` do: enough to catch images,
// archives and UTF-16, cheap on large files.
func binaryReason(data []byte) string {
	head := data[:min(len(data), sniffSize)]
	if bytes.IndexByte(head, 0) >= 0 {
		return "binary file (contains NUL bytes)"
	}
	if len(head) < len(data) {
		head = trimPartialRune(head) // a character cut at the 8 kB boundary is not invalid
	}
	if !utf8.Valid(head) {
		return "binary file or not UTF-8 text"
	}
	return ""
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// docTitle is a document's title from the title its format gives (see
// decodeText) and its text. A front-matter title or a page's JSON header
// is deliberate and wins. A PDF's own title wins too: its first line is
// often a running header; without one, its first heading is used when
// pdfHeading is set. Otherwise the heading that names the text (see
// firstHeading) is better than a <title>, which often carries the site's
// name; but a page whose <title> begins with one of its headings ("Lints
// - The rustdoc book") is named by that heading, whatever the site's
// menu puts above it. It is "" when there is nothing to go by.
func docTitle(format, text, title string, declared, pdfHeading bool) string {
	switch {
	case declared && title != "":
		return title
	case format == formatPDF:
		if title == "" && pdfHeading {
			return firstHeading(text)
		}
		return title
	case format == formatHTML && title != "":
		if h := headingTitled(text, title); h != "" {
			return h
		}
	}
	if h := firstHeading(text); h != "" {
		return h
	}
	return title
}

// nameTitle is the title of a document named by nothing but its file name,
// as documentation sites make it: "complex_incidents.md" → "Complex
// incidents". A name that would leave nothing stays as it is.
func nameTitle(base string) string {
	stem := strings.TrimSuffix(base, path.Ext(base))
	words := strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(stem))
	if len(words) == 0 {
		return base
	}
	t := strings.Join(words, " ")
	r, n := utf8.DecodeRuneInString(t)
	return string(unicode.ToUpper(r)) + t[n:]
}

// headingTitled returns the first heading of Markdown text that page title
// begins with, compared ignoring case and spacing, or "".
func headingTitled(text, title string) string {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	t := norm(title)
	var fences markdown.Scanner
	for _, line := range strings.Split(text, "\n") {
		if fences.Line(line) != markdown.Text {
			continue
		}
		if h, ok := atxHeading(line); ok && h != "" && strings.HasPrefix(t, norm(h)) {
			return h
		}
	}
	return ""
}

// decodeText turns a file's bytes into the text to index, a title when the
// format carries one outside its headings (front matter, a JSON comment
// header, <title>), and a link to the page people read the file on when
// its front matter gives one (see frontMatter). declared is true when the
// title is one the file states for itself (front matter, a JSON header),
// which wins over its first heading; a <title> does not.
func decodeText(data []byte, format string) (text, title, link string, declared bool) {
	d := decode(data, format)
	return d.text, d.title, d.link, d.declared
}

// decoded is a file's bytes read (see decodeText), with the owners its
// front matter names.
type decoded struct {
	text, title, link string
	declared          bool
	owners            []string
}

// decode is decodeText, with the owners a Markdown front matter names.
func decode(data []byte, format string) decoded {
	s := string(data)
	if !utf8.ValidString(s) { // bad bytes past the sniffed head
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.TrimPrefix(s, "\uFEFF")
	s = normalizeNewlines(s)
	switch format {
	case formatMarkdown:
		text, fm := stripFrontMatter(s)
		return decoded{text: cleanMarkdown(text), title: fm.title, link: fm.url, declared: fm.title != "", owners: fm.owners}
	case formatHTML:
		text, title, declared := extractHTML(s)
		return decoded{text: text, title: title, declared: declared}
	}
	return decoded{text: s}
}

// frontMatter is what Files reads of a Markdown file's front matter: the
// "key: value" lines of the YAML block, not YAML in full.
type frontMatter struct {
	title string // "title:", which wins over the first heading
	// url is "url:", the page where people read the file (its rendering
	// on a docs site, say), shown as the source's link. The file's author
	// writes it, so only an http(s) URL is kept (see linkURL), and only as
	// a top-level key: "url:" under another key describes something else.
	url string
	// owners are "owner:" (or "owners:"), the people who answer for the
	// file (see OwnerKey and ownerList).
	owners []string
}

// stripFrontMatter removes a leading YAML front matter block: a "---"
// line, the metadata, and the next "---" line (which may end the file).
// It is metadata rather than prose, so it is not indexed; what it says is
// returned.
func stripFrontMatter(s string) (string, frontMatter) {
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		return s, frontMatter{}
	}
	var front, body string
	if i := strings.Index("\n"+rest, "\n---\n"); i >= 0 {
		front, body = rest[:max(i-1, 0)], rest[i+4:]
	} else if strings.HasSuffix("\n"+rest, "\n---") {
		front = rest[:max(len(rest)-4, 0)]
	} else {
		return s, frontMatter{}
	}
	var fm frontMatter
	var titleSeen, urlSeen, ownerSeen bool
	for _, line := range strings.Split(front, "\n") {
		k, v, ok := strings.Cut(line, ":")
		switch {
		case !ok:
		case !titleSeen && strings.TrimSpace(k) == "title":
			titleSeen = true
			fm.title = strings.Trim(strings.TrimSpace(v), `"'`)
		case !urlSeen && strings.TrimRight(k, " \t") == "url":
			urlSeen = true
			fm.url = links.HTTP(yamlScalar(v))
		case !ownerSeen && (strings.TrimRight(k, " \t") == "owner" || strings.TrimRight(k, " \t") == "owners"):
			ownerSeen = true
			fm.owners = ownerList(v)
		}
	}
	return strings.TrimLeft(body, "\n"), fm
}

// yamlScalar is the value of a one-line YAML scalar: the text between
// its quotes, or, unquoted, the text before a " #" comment.
func yamlScalar(v string) string {
	v = strings.TrimSpace(v)
	if v != "" && (v[0] == '"' || v[0] == '\'') {
		end := strings.IndexByte(v[1:], v[0])
		if end < 0 {
			return "" // unterminated: not a value we can read
		}
		return v[1 : 1+end]
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// fileURL is the link of a file under the docs base URL base: base, with a
// "/" after it, and the file's path from its source root, each element
// percent-encoded ("Team notes/Q&A #2.md" → "Team%20notes/Q&A%20%232.md").
// It is "" when base is not an http(s) URL.
func fileURL(base, rel string) string {
	if links.HTTP(base) == "" || rel == "" {
		return ""
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return links.HTTP(base + strings.Join(parts, "/"))
}

// byteSize formats n bytes for people: "20 MB", "3.4 kB".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MB"
	case n >= 1<<10:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " kB"
	}
	return fmt.Sprintf("%d bytes", n)
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }
