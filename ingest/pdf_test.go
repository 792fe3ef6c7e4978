package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/internal/testpdf"
	"github.com/switchboard/switchboard/kb"
)

func TestExtractPDF(t *testing.T) {
	data := testpdf.New("Supplier Review 2024",
		"Supplier Review\nAcme Corp supplies Globex with sensors.",
		"Second page (with parentheses)\nRenewal due in June.")
	text, title, err := extractPDF(data)
	if err != nil {
		t.Fatal(err)
	}
	if title != "Supplier Review 2024" {
		t.Errorf("title = %q", title)
	}
	for _, want := range []string{"Supplier Review\nAcme Corp supplies Globex with sensors.", "Second page (with parentheses)\nRenewal due in June."} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "Acme") > strings.Index(text, "Renewal") {
		t.Errorf("pages out of order:\n%s", text)
	}
}

// Broken, truncated and hostile PDFs are errors, never panics.
func TestExtractPDFRefusesBadFiles(t *testing.T) {
	good := testpdf.New("T", "Hello")
	cases := map[string][]byte{
		"empty":     nil,
		"not a pdf": []byte("hello world"),
		"header":    []byte("%PDF-1.4\n"),
		"truncated": good[:len(good)/2],
		"no text":   testpdf.New("T", ""),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if text, _, err := extractPDF(data); err == nil {
				t.Errorf("no error; text %q", text)
			}
		})
	}
}

// A damaged cross-reference table is rebuilt from the objects, as
// readers do, rather than failing the file.
func TestExtractPDFRepairsXref(t *testing.T) {
	good := testpdf.New("T", "Hello")
	text, _, err := extractPDF(bytes.Replace(good, []byte("xref"), []byte("xrfe"), 1))
	if err != nil || text != "Hello" {
		t.Errorf("= %q, %v", text, err)
	}
}

// Hostile files end: with an error saying why, or with the text that
// could be recovered, never with a hang, a crash or unbounded memory
// (each of these hung, overflowed the stack or ran out of memory with
// github.com/ledongthuc/pdf, the reader before PDFium).
func TestExtractPDFMalformed(t *testing.T) {
	const recovered = "Hello from a broken file"
	want := map[string]string{ // the text recovered, or the error's reason
		"kids-self":           "error: no readable pages",
		"kids-cycle":          "error: no readable pages",
		"parent-cycle":        recovered,
		"kids-deep":           "error: no readable pages",
		"kids-dag":            recovered,
		"count-huge":          recovered,
		"xref-prev-self":      recovered,
		"xref-prev-cycle":     recovered,
		"xrefstm-prev-self":   recovered,
		"xref-huge-index":     recovered,
		"xrefstm-huge-size":   recovered,
		"objstm-self":         "error: no readable pages",
		"objstm-extends-self": "error: no readable pages",
		"length-huge":         recovered,
		"cmap-count-huge":     "AAAA",
		"deep-arrays":         "Hello",
		"bomb-text":           "error: out of memory",
		"bomb-gsave":          "error: out of memory",
		"bomb-space":          "error: no extractable text",
		"garbage":             "error: not a readable PDF",
	}
	for _, c := range malformedPDFs() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			text, _, err := extractWithin(t, c.Data)
			w, ok := want[c.Name]
			switch reason, isErr := strings.CutPrefix(w, "error: "); {
			case !ok:
				t.Fatalf("no expectation for %s (%s): text %q, err %v", c.Name, c.Why, text, err)
			case isErr && (err == nil || !strings.Contains(err.Error(), reason)):
				t.Errorf("%s: err = %v, text %q; want an error saying %q", c.Why, err, text, reason)
			case !isErr && (err != nil || !strings.Contains(text, w) || len(text) > MaxFileText):
				t.Errorf("%s: = %q, %v; want text with %q", c.Why, text, err, w)
			}
		})
	}
}

// malformedPDFs is testpdf.Malformed, built once: the bombs take a second.
var malformedPDFs = sync.OnceValue(testpdf.Malformed)

// extractWithin is extractPDF with the test's own deadline, so that a
// reader that hangs fails the test instead of stalling the suite: the
// read has pdfTimeout, and a minute more is a hang, not a slow machine.
func extractWithin(t *testing.T, data []byte) (text, title string, err error) {
	t.Helper()
	type result struct {
		text, title string
		err         error
	}
	done := make(chan result, 1)
	go func() {
		text, title, err := extractPDF(data)
		done <- result{text, title, err}
	}()
	select {
	case r := <-done:
		return r.text, r.title, r.err
	case <-time.After(pdfTimeout + time.Minute):
		t.Fatalf("extractPDF still running %v after its time limit: it hangs", time.Minute)
		return "", "", nil
	}
}

// The read stops when its context ends, wherever the reader is, and
// leaves nothing running: testpdf.Slow takes about an hour to read, so
// only the context can end it. The next read works as before.
func TestExtractPDFStopsWhenContextEnds(t *testing.T) {
	if _, err := pdfiumPool(); err != nil { // compile the reader before the clock starts
		t.Fatal(err)
	}
	slow := testpdf.Slow()
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		if _, _, err := extractPDFContext(ctx, bytes.NewReader(slow), int64(len(slow)), MaxFileText); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		if _, _, err := extractPDFContext(ctx, bytes.NewReader(slow), int64(len(slow)), MaxFileText); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, err := extractPDFData(ctx, testpdf.New("T", "Hello")); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	if text, _, err := extractPDF(testpdf.New("T", "Still reading")); err != nil || text != "Still reading" {
		t.Errorf("after a stopped read: %q, %v", text, err)
	}
	// The stopped readers' memory went back too, whether wazero freed it
	// or the read did after the reader was killed.
	if n := readerMemory.held(); n != 0 {
		t.Errorf("%s of reader memory still held", byteSize(int64(n)))
	}
}

// A folder with hostile PDFs loads its good files and lists the others
// as skipped, each with its reason.
func TestFilesSkipsMalformedPDF(t *testing.T) {
	files := map[string]string{"docs/good.pdf": string(testpdf.New("Good", "Acme Corp supplies Globex."))}
	bad := map[string]bool{"kids-self": true, "objstm-self": true, "bomb-gsave": true, "garbage": true}
	for _, c := range malformedPDFs() {
		if bad[c.Name] {
			files["docs/"+c.Name+".pdf"] = string(c.Data)
		}
	}
	dir := t.TempDir()
	writeFiles(t, dir, files)
	docs, rep := collect(t, dir, "docs")
	if d, ok := docs["docs/good.pdf"]; !ok || !strings.Contains(d.Chunks[0].Content, "Acme Corp") {
		t.Errorf("good.pdf not loaded: %+v (%s)", docs, rep)
	}
	if len(docs) != 1 || len(rep.Skipped) != len(bad) {
		t.Fatalf("loaded %d, skipped %+v; want 1 and the %d bad files", len(docs), rep.Skipped, len(bad))
	}
	for _, s := range rep.Skipped {
		if !strings.HasPrefix(s.Reason, "PDF: ") || len(s.Reason) < len("PDF: ")+10 {
			t.Errorf("%s: reason %q", s.Path, s.Reason)
		}
	}
}

// A page of millions of text operators (a 19 MB file, as reported in
// issue 21) makes PDFium use all the memory a reader has and stop. That
// memory is the reader's own, outside Go's heap, and goes back when the
// read ends; and the file is read where it lies, a part at a time, never
// copied whole. So loading it allocates next to nothing on Go's heap:
// before, the reader's memory was a Go slice grown by copying and the
// file was read whole, about a gigabyte in all, and the process peaked
// at 0.8-1.1 GB. (Peak RSS is measured by BenchmarkFileMemory in cmd/bot.)
func TestFilesHostilePDFStaysInItsReader(t *testing.T) {
	if _, err := pdfiumPool(); err != nil { // its compilation is the process's, not the file's
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"docs/ops.pdf":  string(testpdf.Operators(19 << 20)),
		"docs/good.pdf": string(testpdf.New("Good", "Acme Corp supplies Globex.")),
	})
	var docs map[string]kb.Document
	var rep Report
	allocated := testenv.Allocated(func() { docs, rep = collect(t, dir, "docs") })
	if _, ok := docs["docs/good.pdf"]; !ok || len(docs) != 1 {
		t.Errorf("loaded %v; want good.pdf", keys(docs))
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Path != "docs/ops.pdf" || !strings.Contains(rep.Skipped[0].Reason, "out of memory at 256 MB") {
		t.Errorf("skipped %+v; want docs/ops.pdf, out of memory", rep.Skipped)
	}
	// The text and the bookkeeping of two small files, with room to
	// spare; the file alone is 19 MB.
	if allocated > 8<<20 {
		t.Errorf("loading the files allocated %s on Go's heap; want under 8 MB", byteSize(int64(allocated)))
	}
	if n := readerMemory.held(); n != 0 {
		t.Errorf("%s of reader memory still held after the reads", byteSize(int64(n)))
	}
}

func BenchmarkExtractPDF(b *testing.B) {
	pages := make([]string, 20)
	for i := range pages {
		pages[i] = strings.Repeat(fmt.Sprintf("Page %d: Acme Corp supplies Globex with sensors and renews in June.\n", i+1), 40)
	}
	data := testpdf.New("Benchmark", pages...)
	if _, _, err := extractPDF(data); err != nil { // and compile the reader outside the timing
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := extractPDF(data); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzExtractPDF(f *testing.F) {
	f.Add(testpdf.New("T", "Hello\nWorld"))
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	// More seeds, the hostile files among them, are in testdata/fuzz/FuzzExtractPDF.
	// Compile the reader before the fuzzer times the inputs (it stops at 10 s).
	if _, err := pdfiumPool(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Some inputs are slow to read (kids-dag-broken-ref takes PDFium
		// the whole pdfTimeout); a deadline ends them as it would in use.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		// Half the inputs get a cap of a few words, so that the cap's own
		// path (a page over it, the pages adding up past it) is fuzzed too.
		maxText := MaxFileText
		if len(data)%2 == 1 {
			maxText = 64
		}
		// It must not panic, hang or exhaust memory, nor leave any.
		text, _, err := extractPDFContext(ctx, bytes.NewReader(data), int64(len(data)), maxText)
		if err == nil && strings.TrimSpace(text) == "" {
			t.Error("no error and no text")
		}
		if len(text) > maxText {
			t.Errorf("%d bytes of text; the limit is %d", len(text), maxText)
		}
		if n := readerMemory.held(); n != 0 {
			t.Errorf("%d bytes of reader memory held after the read", n)
		}
	})
}

func TestFilesLoadsPDF(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"docs/review.pdf": string(testpdf.New("Supplier Review", "Acme Corp supplies Globex.")),
		"docs/scan.pdf":   string(testpdf.New("Scan", "")),
	})
	docs, rep := collect(t, dir, "docs")
	d, ok := docs["docs/review.pdf"]
	if !ok || d.Title != "Supplier Review" || !strings.Contains(d.Chunks[0].Content, "Acme Corp supplies Globex.") || d.Metadata["format"] != "pdf" {
		t.Errorf("review.pdf: %+v (%s)", d, rep)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Path != "docs/scan.pdf" || !strings.Contains(rep.Skipped[0].Reason, "no extractable text") {
		t.Errorf("skipped: %+v", rep.Skipped)
	}
}

func TestFileText(t *testing.T) {
	cases := []struct {
		name, mime, data string
		want, title      string
		err              string
	}{
		{"notes.md", "", "# Notes\n\nHello.", "# Notes\n\nHello.", "Notes", ""},
		{"page", "text/html; charset=utf-8", "<title>T</title><h1>Head</h1><p>Body</p>", "# Head\n\nBody", "Head", ""},
		{"a.txt", "", "plain", "plain", "", ""},
		{"r.pdf", "application/pdf", string(testpdf.New("Report", "Line one")), "Line one", "Report", ""},
		{"logo.png", "image/png", "\x89PNG", "", "", "not indexed"},
		{"bin.txt", "", "\x00\x01", "", "", "binary"},
		{"empty.md", "", "  \n", "", "", "no text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, title, err := FileText(context.Background(), c.name, c.mime, []byte(c.data))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || text != c.want || title != c.title {
				t.Errorf("= %q, %q, %v; want %q, %q", text, title, err, c.want, c.title)
			}
		})
	}
}

// extractPDF reads a PDF with no context of its own: only its time limit
// bounds it.
func extractPDF(data []byte) (text, title string, err error) {
	return extractPDFData(context.Background(), data)
}

// extractPDFData reads a PDF held in memory, with the usual cap on text.
func extractPDFData(ctx context.Context, data []byte) (text, title string, err error) {
	return extractPDFContext(ctx, bytes.NewReader(data), int64(len(data)), MaxFileText)
}
