package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/ledongthuc/pdf"
)

// formatPDF is the format of PDF files.
const formatPDF = "pdf"

// Bounds of PDF extraction. A PDF's text is a small part of its bytes, and
// a document with thousands of pages is a book or a scan, not knowledge.
const (
	maxPDFPages = 2000
	maxPDFText  = 4 << 20 // bytes of text kept
)

// errNoPDFText means a PDF has no extractable text: scanned pages,
// images only, or text in fonts without a Unicode mapping.
var errNoPDFText = errors.New("no extractable text (scanned or image-only PDF?)")

// extractPDF returns the text of a PDF, page by page in reading order,
// and its title (from the document information, if any).
//
// It uses github.com/ledongthuc/pdf, which reads the classic and
// cross-reference-stream layouts with FlateDecode, LZW, ASCII85 and
// ASCIIHex streams, standard, Type1/TrueType and CID fonts with ToUnicode
// maps, and RC4/AES encryption with an empty password. Text is placed by
// its positions: a new line where the baseline moves, a space where the
// gap between glyphs is wider than a fraction of the font size. What it
// cannot do: OCR (scanned pages have no text), right-to-left and
// vertical scripts' reading order, multi-column layouts (columns are read
// row by row), and password-protected files. A malformed file is an
// error, never a panic.
func extractPDF(data []byte) (text, title string, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, title, err = "", "", fmt.Errorf("malformed PDF: %v", p)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", "", fmt.Errorf("not a readable PDF: %w", err)
	}
	title = cleanPDFString(r.Trailer().Key("Info").Key("Title").Text())
	n := r.NumPage()
	if n > maxPDFPages {
		return "", "", fmt.Errorf("too many pages (%d; the limit is %d)", n, maxPDFPages)
	}
	var b strings.Builder
	for i := 1; i <= n && b.Len() < maxPDFText; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		page := pageText(p)
		if page == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(page)
	}
	text = strings.TrimSpace(strings.ToValidUTF8(b.String(), "\uFFFD"))
	if len(text) > maxPDFText {
		text = trimPartialString(text[:maxPDFText])
	}
	if !hasLetters(text) {
		return "", "", errNoPDFText
	}
	return text, title, nil
}

// pageText lays out the glyphs of one page as lines. Glyphs come in the
// order the page draws them, which for text is reading order; a baseline
// that moves by more than half the font size starts a new line, and a
// gap wider than a fifth of it is a space. A page that fails to parse
// contributes nothing rather than failing the document.
func pageText(p pdf.Page) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	glyphs := p.Content().Text
	var b strings.Builder
	var prev *pdf.Text
	for i := range glyphs {
		g := &glyphs[i]
		if g.S == "" {
			continue
		}
		if prev != nil {
			size := math.Max(math.Max(prev.FontSize, g.FontSize), 1)
			switch {
			case math.Abs(g.Y-prev.Y) > size/2:
				b.WriteByte('\n')
				if prev.Y-g.Y > 1.8*size { // a blank line's worth: a new paragraph
					b.WriteByte('\n')
				}
			case g.X-(prev.X+prev.W) > size/5 && !endsWithSpace(b.String()) && g.S != " ":
				b.WriteByte(' ')
			}
		}
		b.WriteString(g.S)
		prev = g
	}
	return normalizeLines(b.String())
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

// trimPartialString drops an incomplete UTF-8 sequence at the end of s.
func trimPartialString(s string) string { return string(trimPartialRune([]byte(s))) }
