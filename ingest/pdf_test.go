package ingest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/internal/testpdf"
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
		"empty":        nil,
		"not a pdf":    []byte("hello world"),
		"header":       []byte("%PDF-1.4\n"),
		"truncated":    good[:len(good)/2],
		"no text":      testpdf.New("T", ""),
		"garbage xref": bytes.Replace(good, []byte("xref"), []byte("xrfe"), 1),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if text, _, err := extractPDF(data); err == nil {
				t.Errorf("no error; text %q", text)
			}
		})
	}
}

func FuzzExtractPDF(f *testing.F) {
	f.Add(testpdf.New("T", "Hello\nWorld"))
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, _, err := extractPDF(data) // must not panic
		if err == nil && strings.TrimSpace(text) == "" {
			t.Error("no error and no text")
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
			text, title, err := FileText(c.name, c.mime, []byte(c.data))
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
