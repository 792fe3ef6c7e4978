package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/klippa-app/go-pdfium"
	pdfiumerr "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// formatPDF is the format of PDF files.
const formatPDF = "pdf"

// Bounds of PDF extraction. A PDF's text is a small part of its bytes, and
// a document with thousands of pages is a book or a scan, not knowledge.
// Every read is bounded in time (pdfTimeout, and the caller's context),
// in memory (pdfMemoryMB of WebAssembly memory, one reader at a time) and
// in output (maxPDFPages, and the caller's cap on the text).
const (
	maxPDFPages = 2000
	// pdfTimeout is the most one file may take. Real documents take about
	// a second per hundred pages; a file that needs a minute is hostile or
	// broken, and reading it on would stall the run.
	pdfTimeout = time.Minute
	// pdfMemoryMB is the memory the reader may use: the file's parsed
	// objects, one page at a time, and what PDFium reads of the file (it
	// reads the file through a callback, in pieces, not whole). A file
	// that needs more (an inflation bomb, a page of millions of glyphs)
	// fails with an out-of-memory trap. The memory is mapped outside Go's
	// heap and given back when the read ends (pdfMemory), so this is also
	// the most a read adds to the process, besides the text it returns.
	pdfMemoryMB = 256
)

// pdfTurn is held by the one PDF being read; other reads wait for it, so
// that the process holds one reader's memory at most, and so that the
// memory a killed reader left can be freed once its read is over.
var pdfTurn = make(chan struct{}, 1)

// readerMemory gives the readers their memory (see pdfMemory).
var readerMemory pdfMemory

// errNoPDFText means a PDF has no extractable text: scanned pages,
// images only, or text in fonts without a Unicode mapping.
var errNoPDFText = errors.New("no extractable text (scanned or image-only PDF?)")

// extractPDFContext returns the text of the PDF of size bytes that src
// holds, page by page in reading order, and its title (from the document
// information, if any). A PDF with more than maxText bytes of text is an
// error (see tooMuchText): no text is returned, and reading stops at the
// page that passes the cap, so that no more than about maxText bytes of
// text are ever held.
//
// It uses PDFium, Chrome's PDF engine, compiled to WebAssembly
// (github.com/klippa-app/go-pdfium) and run by the pure-Go runtime
// wazero, so the build stays free of cgo. PDFium reads every PDF version,
// repairs broken cross-reference tables, knows all standard filters,
// fonts and encodings, and decrypts files with an empty password. What it
// cannot do here: OCR (scanned pages have no text) and password-protected
// files.
//
// The reader runs in a sandbox: it sees no files (it asks for the parts
// of src it needs, which is never copied whole), its memory is capped at
// pdfMemoryMB, and when ctx ends or pdfTimeout passes its instance is
// closed, which stops the WebAssembly code where it is; nothing is left
// running. A malformed file is an error, never a panic or a hang.
func extractPDFContext(ctx context.Context, src io.ReaderAt, size int64, maxText int) (text, title string, err error) {
	defer func() {
		if p := recover(); p != nil { // go-pdfium recovers its own; this is a last guard
			text, title, err = "", "", fmt.Errorf("malformed PDF: %v", p)
		}
	}()
	head := make([]byte, min(size, 1024))
	if _, err := src.ReadAt(head, 0); err != nil && err != io.EOF {
		return "", "", err
	}
	if !bytes.Contains(head, []byte("%PDF-")) {
		return "", "", errors.New("not a PDF file (no %PDF header)")
	}
	pool, err := pdfiumPool()
	if err != nil {
		return "", "", fmt.Errorf("PDF reader unavailable: %w", err)
	}
	select {
	case pdfTurn <- struct{}{}:
	case <-ctx.Done():
		return "", "", ctx.Err()
	}
	defer func() { <-pdfTurn }()
	// Once this read is over no reader's code runs, and its memory goes
	// back (see pdfMemory), before the next read may start.
	defer readerMemory.release()
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", "", fmt.Errorf("PDF reader unavailable: %w", err)
	}
	readCtx, cancel := context.WithTimeout(ctx, pdfTimeout)
	defer cancel()
	// Kill closes the instance's module, which makes the WebAssembly code
	// stop at its next check (every loop and call), wherever it is.
	stop := context.AfterFunc(readCtx, func() { inst.Kill() })
	defer func() {
		if stop() { // not killed: give the worker back cleanly
			inst.Close()
		}
	}()
	text, title, err = readPDF(inst, io.NewSectionReader(src, 0, size), size, maxText)
	if readCtx.Err() != nil {
		// Whatever the failed call said, the cause is the deadline.
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", "", fmt.Errorf("took longer than %v to read; skipped", pdfTimeout)
	}
	if err != nil {
		return "", "", err
	}
	text = strings.TrimSpace(strings.ToValidUTF8(text, "\uFFFD"))
	if len(text) > maxText {
		return "", "", tooMuchText(maxText)
	}
	if !hasLetters(text) {
		return "", "", errNoPDFText
	}
	return text, title, nil
}

// readPDF reads the document's title and its pages' text with one
// instance. A page PDFium cannot load contributes nothing; any other
// failure (a trap: out of memory, a closed instance) ends the read, and
// so does text past maxText.
func readPDF(inst pdfium.Pdfium, file io.ReadSeeker, size int64, maxText int) (text, title string, err error) {
	doc, err := inst.OpenDocument(&requests.OpenDocument{FileReader: file, FileReaderSize: size})
	if err != nil {
		return "", "", pdfError(err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	if meta, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc.Document, Tag: "Title"}); err == nil {
		title = cleanPDFString(meta.Value)
	}
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return "", "", pdfError(err)
	}
	if count.PageCount > maxPDFPages {
		return "", "", fmt.Errorf("too many pages (%d; the limit is %d)", count.PageCount, maxPDFPages)
	}
	var b strings.Builder
	loaded, chars := 0, 0
	for i := 0; i < count.PageCount; i++ {
		page, n, err := pageText(inst, doc.Document, i, maxText-chars)
		if errors.Is(err, pdfiumerr.ErrPage) {
			continue
		}
		if err != nil {
			return "", "", pdfError(err)
		}
		loaded++
		if chars += n; chars > maxText {
			return "", "", tooMuchText(maxText)
		}
		if page == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(page)
		if b.Len() > maxText {
			return "", "", tooMuchText(maxText)
		}
	}
	if loaded == 0 {
		// PDFium drops page-tree nodes that loop or nest too deep, so a
		// file whose tree is all loops has no pages.
		return "", "", errors.New("no readable pages (damaged page tree)")
	}
	return b.String(), title, nil
}

// pageText is the text of page i (from 0) as PDFium lays it out: lines
// in reading order, spaces where the gaps between glyphs are; and how many
// characters PDFium counted on the page. The text of a page of more than
// limit characters is not copied out of the sandbox (it is ""), so that a
// page of millions of glyphs never reaches our memory.
func pageText(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, i, limit int) (string, int, error) {
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}}
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: page})
	if err != nil {
		return "", 0, err
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || n.Count <= 0 {
		return "", 0, err
	}
	if n.Count > limit {
		return "", n.Count, nil
	}
	t, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, Count: n.Count})
	if err != nil {
		return "", n.Count, err
	}
	return normalizeLines(pdfiumText.Replace(t.Text)), n.Count, nil
}

// pdfiumText turns PDFium's text into ours: its line ends are CR LF, and
// it marks a hyphen that splits a word at a line end as U+0002 (or U+FFFE)
// with no line break after it, so dropping the mark joins the word.
var pdfiumText = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\x02", "", "\ufffe", "")

// pdfError turns PDFium's error codes into reasons people can act on.
func pdfError(err error) error {
	switch {
	case errors.Is(err, pdfiumerr.ErrPassword):
		return errors.New("password-protected PDF")
	case errors.Is(err, pdfiumerr.ErrSecurity):
		return errors.New("unsupported PDF encryption")
	case errors.Is(err, pdfiumerr.ErrFormat), errors.Is(err, pdfiumerr.ErrFile), errors.Is(err, pdfiumerr.ErrPage):
		return errors.New("not a readable PDF (damaged or not a PDF)")
	case strings.Contains(err.Error(), "wasm error"):
		// A trap: PDFium aborted, nearly always because the file needs
		// more memory than a reader has (pdfMemoryMB).
		return fmt.Errorf("malformed PDF: the reader stopped (out of memory at %d MB, or a damaged file)", pdfMemoryMB)
	}
	return fmt.Errorf("malformed PDF: %v", firstLine(err.Error()))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// pdfiumPool is the process's PDFium: the WebAssembly module is compiled
// once and each read gets a fresh instance, so one file's state never
// reaches the next. Compiling takes seconds and a few hundred MB, so the
// machine code is kept in the user's cache folder for the next process;
// without a usable cache (none, read-only, damaged) it compiles in memory.
var pdfiumPool = sync.OnceValues(func() (pdfium.Pool, error) {
	if dir, err := os.UserCacheDir(); err == nil {
		if cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "switchboard", "pdfium")); err == nil {
			if pool, err := newPDFiumPool(cache); err == nil {
				return pool, nil
			}
		}
	}
	return newPDFiumPool(nil)
})

func newPDFiumPool(cache wazero.CompilationCache) (pdfium.Pool, error) {
	// NewRuntimeConfig is the compiler where wazero has one (amd64,
	// arm64), else the interpreter.
	rc := wazero.NewRuntimeConfig().
		// PDFium's setjmp/longjmp are WebAssembly exceptions.
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		// Running code checks at every loop and call whether its module
		// was closed (Kill) and stops if so.
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(pdfMemoryMB << 20 >> 16) // 64 kB pages
	if cache != nil {
		rc = rc.WithCompilationCache(cache)
	}
	return webassembly.Init(webassembly.Config{
		// Readers are instantiated with this context, which gives them
		// their memory from readerMemory.
		Context:       experimental.WithMemoryAllocator(context.Background(), &readerMemory),
		MinIdle:       0,
		MaxIdle:       1,
		MaxTotal:      1, // see pdfTurn
		RuntimeConfig: rc,
		FSConfig:      wazero.NewFSConfig(), // no files: PDFs are read through a callback
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
}

// normalizeLines trims spaces at line ends and collapses runs of blank
// lines and of spaces.
func normalizeLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := false
	for _, l := range lines {
		l = strings.Join(strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '\t' || r == '\u00a0' }), " ")
		if l == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// cleanPDFString is a document-information string fit for a title.
func cleanPDFString(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

func hasLetters(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
