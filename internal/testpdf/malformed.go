package testpdf

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
)

// A Case is a hostile or broken PDF and what is wrong with it.
type Case struct {
	Name string
	Why  string
	Data []byte
}

// Malformed returns PDFs that a reader must refuse, or read partly,
// without hanging, crashing or allocating without limit: cycles in the
// page tree and the cross-reference chain, objects that contain
// themselves, counts and sizes that claim billions, and streams that
// inflate to a hundred megabytes. Each is under 1 MB, most under 5 kB;
// they are built the same way on every call, in about a second.
func Malformed() []Case {
	return []Case{
		{"kids-self", "the page tree's /Kids holds the tree itself", selfKids()},
		{"kids-cycle", "two page-tree nodes are each other's kid", kidsCycle()},
		{"parent-cycle", "a page's /Parent chain loops, so inherited /Resources are never found", parentCycle()},
		{"kids-deep", "a page tree 10,000 levels deep", deepKids(10_000)},
		{"kids-dag", "a 40-level page tree whose nodes share kids: 2^40 paths to one page", dagKids(40)},
		{"count-huge", "/Count claims two billion pages", hugeCount()},
		{"xref-prev-self", "the trailer's /Prev points at its own cross-reference table", xrefPrevSelf()},
		{"xref-prev-cycle", "two cross-reference tables point at each other with /Prev", xrefPrevCycle()},
		{"xrefstm-prev-self", "a cross-reference stream whose /Prev is itself", xrefStreamPrevSelf()},
		{"xref-huge-index", "a cross-reference subsection starting at object 1,000,000,000", xrefHugeIndex()},
		{"xrefstm-huge-size", "a cross-reference stream with /Size 1,000,000,000", xrefStreamHugeSize()},
		{"objstm-self", "an object stream that is stored inside itself", objStmSelf()},
		{"objstm-extends-self", "an object stream whose /Extends is itself", objStmExtendsSelf()},
		{"length-huge", "a content stream with /Length 99,999,999,999", hugeLength()},
		{"cmap-count-huge", "a ToUnicode CMap announcing 10^12 mappings", cmapHugeCount()},
		{"deep-arrays", "content nested 1,000,000 arrays deep", deepArrays(1_000_000)},
		{"bomb-text", "a 300 kB FlateDecode stream that inflates to 100 MB of text", bomb("BT /F1 12 Tf 72 720 Td\n", "(All work and no play makes Jack a dull boy) Tj T*\n", 100<<20)},
		{"bomb-gsave", "a 100 kB FlateDecode stream that inflates to 100 MB of q (save state) operators", bomb("", "q ", 100<<20)},
		{"bomb-space", "a 100 kB FlateDecode stream that inflates to 100 MB of spaces", bomb("", " ", 100<<20)},
		{"garbage", "4 kB of random bytes between a PDF header and trailer", garbage()},
	}
}

// writer builds a PDF object by object, recording offsets for the
// cross-reference table.
type writer struct {
	b   bytes.Buffer
	off map[int]int
	max int
}

func newWriter() *writer {
	w := &writer{off: map[int]int{}}
	w.b.WriteString("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
	return w
}

func (w *writer) obj(n int, body string) {
	w.off[n] = w.b.Len()
	w.max = max(w.max, n)
	fmt.Fprintf(&w.b, "%d 0 obj\n%s\nendobj\n", n, body)
}

// table writes a classic cross-reference table of every object so far
// and a trailer holding extra (without << >>), and returns its offset.
func (w *writer) table(extra string) int {
	at := w.b.Len()
	fmt.Fprintf(&w.b, "xref\n0 %d\n0000000000 65535 f \n", w.max+1)
	for i := 1; i <= w.max; i++ {
		if off, ok := w.off[i]; ok {
			fmt.Fprintf(&w.b, "%010d 00000 n \n", off)
		} else {
			w.b.WriteString("0000000000 65535 f \n")
		}
	}
	fmt.Fprintf(&w.b, "trailer\n<< /Size %d %s >>\n", w.max+1, extra)
	return at
}

func (w *writer) end(startxref int) []byte {
	fmt.Fprintf(&w.b, "startxref\n%d\n%%%%EOF\n", startxref)
	return w.b.Bytes()
}

// page is a page object with one line of Helvetica text, drawn by
// content object contents, with font object font.
func page(parent, contents, font int) string {
	return fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> >> >>", parent, contents, font)
}

const helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

func content(s string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s)
}

const hello = "BT /F1 12 Tf 72 720 Td (Hello from a broken file) Tj ET"

// simple writes catalog 1, pages as given from object 2 on, then
// content and font objects, with a correct table.
func simple(pages ...string) []byte {
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	for i, p := range pages {
		w.obj(2+i, p)
	}
	n := 2 + len(pages)
	w.obj(n, content(hello))
	w.obj(n+1, helvetica)
	return w.end(w.table("/Root 1 0 R"))
}

func selfKids() []byte {
	return simple("<< /Type /Pages /Kids [2 0 R] /Count 1 >>")
}

func kidsCycle() []byte {
	return simple(
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>")
}

func parentCycle() []byte {
	// Page 4 has no /Resources of its own; its parents 2 and 3 are
	// each other's /Parent.
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Parent 3 0 R /Kids [4 0 R] /Count 1 >>")
	w.obj(3, "<< /Type /Pages /Parent 2 0 R /Kids [] /Count 0 >>")
	w.obj(4, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R >>")
	w.obj(5, content(hello))
	return w.end(w.table("/Root 1 0 R"))
}

func deepKids(depth int) []byte {
	// Nodes 2 .. depth+1 each have the next as their only kid; the
	// last holds the page.
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	last := depth + 1
	for i := 2; i <= last; i++ {
		w.obj(i, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", i+1))
	}
	w.obj(last+1, page(last, last+2, last+3))
	w.obj(last+2, content(hello))
	w.obj(last+3, helvetica)
	return w.end(w.table("/Root 1 0 R"))
}

func dagKids(levels int) []byte {
	// Node i has node i+1 twice as kids, so the tree has 2^levels
	// leaves, all the same page; /Count says 1000.
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	last := levels + 1
	for i := 2; i <= last; i++ {
		w.obj(i, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R %d 0 R] /Count 1000 >>", i+1, i+1))
	}
	w.obj(last+1, page(last, last+2, last+3))
	w.obj(last+2, content(hello))
	w.obj(last+3, helvetica)
	return w.end(w.table("/Root 1 0 R"))
}

func hugeCount() []byte {
	return simple("<< /Type /Pages /Kids [3 0 R] /Count 2000000000 >>", page(2, 4, 5))
}

func xrefPrevSelf() []byte {
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, page(2, 4, 5))
	w.obj(4, content(hello))
	w.obj(5, helvetica)
	at := w.b.Len()
	w.table(fmt.Sprintf("/Root 1 0 R /Prev %d", at))
	return w.end(at)
}

func xrefPrevCycle() []byte {
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, page(2, 4, 5))
	w.obj(4, content(hello))
	w.obj(5, helvetica)
	// Both tables are the same length (the offsets are written with ten
	// digits), so the second's offset is known before the first is written.
	first := w.b.Len()
	w.table("/Root 1 0 R /Prev 0000000000")
	second := w.b.Len()
	w.table(fmt.Sprintf("/Root 1 0 R /Prev %010d", first))
	out := bytes.Replace(w.b.Bytes(), []byte("/Prev 0000000000"), fmt.Appendf(nil, "/Prev %010d", second), 1)
	w.b.Reset()
	w.b.Write(out)
	return w.end(first)
}

// xrefEntry is one row of a cross-reference stream: type 1 (offset,
// generation) or type 2 (object stream, index).
type xrefEntry struct {
	typ  byte
	a, b uint32
}

// xrefStream writes a cross-reference stream as object n with entries
// for objects 0..len(entries)-1 and the given header extras.
func (w *writer) xrefStream(n int, entries []xrefEntry, extra string) int {
	var data bytes.Buffer
	for _, e := range entries {
		data.WriteByte(e.typ)
		binary.Write(&data, binary.BigEndian, e.a)
		binary.Write(&data, binary.BigEndian, uint16(e.b))
	}
	at := w.b.Len()
	fmt.Fprintf(&w.b, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Length %d %s >>\nstream\n", n, len(entries), data.Len(), extra)
	w.b.Write(data.Bytes())
	w.b.WriteString("\nendstream\nendobj\n")
	return at
}

// entries are type 1 rows for objects 0..w.max at their offsets, with
// room for the cross-reference stream itself as object w.max+1.
func (w *writer) entries(self int) []xrefEntry {
	es := make([]xrefEntry, w.max+2)
	es[0] = xrefEntry{0, 0, 65535}
	for i, off := range w.off {
		es[i] = xrefEntry{1, uint32(off), 0}
	}
	es[w.max+1] = xrefEntry{1, uint32(self), 0}
	return es
}

func xrefStreamPrevSelf() []byte {
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, page(2, 4, 5))
	w.obj(4, content(hello))
	w.obj(5, helvetica)
	at := w.b.Len()
	w.xrefStream(6, w.entries(at), fmt.Sprintf("/Root 1 0 R /Prev %d", at))
	return w.end(at)
}

func xrefHugeIndex() []byte {
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, page(2, 4, 5))
	w.obj(4, content(hello))
	w.obj(5, helvetica)
	at := w.b.Len()
	fmt.Fprintf(&w.b, "xref\n0 6\n0000000000 65535 f \n")
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&w.b, "%010d 00000 n \n", w.off[i])
	}
	fmt.Fprintf(&w.b, "1000000000 1\n%010d 00000 n \n", w.off[1])
	w.b.WriteString("trailer\n<< /Size 6 /Root 1 0 R >>\n")
	return w.end(at)
}

func xrefStreamHugeSize() []byte {
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, page(2, 4, 5))
	w.obj(4, content(hello))
	w.obj(5, helvetica)
	at := w.b.Len()
	es := w.entries(at)
	w.xrefStream(6, es, "/Root 1 0 R")
	out := bytes.Replace(w.b.Bytes(), fmt.Appendf(nil, "/Size %d ", len(es)), []byte("/Size 1000000000 "), 1)
	w.b.Reset()
	w.b.Write(out)
	return w.end(at)
}

func objStmSelf() []byte {
	// Object 2, the page tree, is said to be inside object stream 2.
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(3, page(2, 4, 5))
	w.obj(4, content(hello))
	w.obj(5, helvetica)
	at := w.b.Len()
	es := w.entries(at)
	es[2] = xrefEntry{2, 2, 0}
	w.xrefStream(6, es, "/Root 1 0 R")
	return w.end(at)
}

func objStmExtendsSelf() []byte {
	// Object 2 is in object stream 7, which holds only object 8 and
	// extends itself.
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(3, page(2, 4, 5))
	w.obj(4, content(hello))
	w.obj(5, helvetica)
	body := "8 0 << /Type /Pages /Kids [3 0 R] /Count 1 >>"
	w.obj(7, fmt.Sprintf("<< /Type /ObjStm /N 1 /First 4 /Extends 7 0 R /Length %d >>\nstream\n%s\nendstream", len(body), body))
	at := w.b.Len()
	es := w.entries(at)
	es[2] = xrefEntry{2, 7, 0}
	w.xrefStream(w.max+1, es, "/Root 1 0 R")
	return w.end(at)
}

func hugeLength() []byte {
	good := simple("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page(2, 4, 5))
	return bytes.Replace(good, fmt.Appendf(nil, "/Length %d >>", len(hello)), []byte("/Length 99999999999 >>"), 1)
}

func cmapHugeCount() []byte {
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n" +
		"1 begincodespacerange <00> <FF> endcodespacerange\n" +
		"1000000000000 beginbfchar\n<41> <0041>\nendbfchar\nendcmap CMapName currentdict /CMap defineresource pop end end"
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, page(2, 4, 5))
	w.obj(4, content("BT /F1 12 Tf 72 720 Td (AAAA) Tj ET"))
	w.obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>")
	w.obj(6, content(cmap))
	return w.end(w.table("/Root 1 0 R"))
}

func deepArrays(depth int) []byte {
	return bomb("BT /F1 12 Tf 72 720 Td (Hello) Tj ET\n"+strings.Repeat("[", depth), "", 0)
}

// bomb is a one-page file whose content stream is head followed by unit
// repeated to about size bytes, compressed with FlateDecode.
func bomb(head, unit string, size int) []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	zw.Write([]byte(head))
	if unit != "" {
		chunk := []byte(strings.Repeat(unit, max(1, (64<<10)/len(unit))))
		for n := 0; n < size; n += len(chunk) {
			zw.Write(chunk)
		}
	}
	zw.Close()
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, page(2, 4, 5))
	w.obj(4, fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()))
	w.obj(5, helvetica)
	return w.end(w.table("/Root 1 0 R"))
}

func garbage() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := []byte("%PDF-1.4\n")
	for range 4096 {
		b = append(b, byte(r.UintN(256)))
	}
	return append(b, "\nstartxref\n9\n%%EOF\n"...)
}

// Slow returns a small valid PDF (about 360 kB) that takes a reader an hour:
// 2000 pages that each draw the same stream, which inflates to 50 MB of
// spaces. It needs little memory, so only a deadline stops it.
func Slow() []byte {
	const pages = 2000
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	chunk := bytes.Repeat([]byte{' '}, 64<<10)
	for n := 0; n < 50<<20; n += len(chunk) {
		zw.Write(chunk)
	}
	zw.Close()
	w := newWriter()
	kids := make([]string, pages)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", 5+i)
	}
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages))
	w.obj(3, fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()))
	w.obj(4, helvetica)
	for i := range pages {
		w.obj(5+i, page(2, 3, 4))
	}
	return w.end(w.table("/Root 1 0 R"))
}

// Operators returns a one-page PDF of about size bytes whose content
// stream, stored uncompressed, is millions of short text-showing
// operators: a word, a move to the next line, another word. The file is
// valid and its text is real words, but laying out that many glyphs takes
// a reader far more memory than the file's size (several hundred bytes
// per glyph in PDFium), so a bounded reader stops with out of memory.
func Operators(size int) []byte {
	words := []string{"Acme", "supplies", "Globex", "with", "sensors", "and", "renews", "in", "June"}
	var s bytes.Buffer
	s.Grow(size + 64)
	s.WriteString("BT /F1 9 Tf 36 756 Td 10 TL\n")
	for i := 0; s.Len() < size; i++ {
		fmt.Fprintf(&s, "(%s) Tj T*\n", words[i%len(words)])
	}
	s.WriteString("ET")
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, page(2, 4, 5))
	w.obj(4, content(s.String()))
	w.obj(5, helvetica)
	return w.end(w.table("/Root 1 0 R"))
}
