// Package testpdf writes small PDF files for tests: text pages in
// Helvetica, content streams compressed with FlateDecode, a classic
// cross-reference table and a document title.
package testpdf

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// New returns a PDF with one page per element of pages; each page's lines
// are separated by "\n". Characters outside Latin-1 are not supported.
func New(title string, pages ...string) []byte {
	var objs []string // object i+1
	add := func(s string) int {
		objs = append(objs, s)
		return len(objs)
	}
	catalog := add("") // filled in below
	tree := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, page := range pages {
		var content bytes.Buffer
		content.WriteString("BT /F1 12 Tf 72 720 Td 16 TL\n")
		for i, line := range strings.Split(page, "\n") {
			if i > 0 {
				content.WriteString("T*\n")
			}
			fmt.Fprintf(&content, "(%s) Tj\n", escape(line))
		}
		content.WriteString("ET\n")
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write(content.Bytes())
		w.Close()
		stream := add(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String()))
		p := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> >> >>", tree, stream, font))
		kids = append(kids, fmt.Sprintf("%d 0 R", p))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree)
	objs[tree-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	info := add(fmt.Sprintf("<< /Title (%s) /Producer (testpdf) >>", escape(title)))

	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, info, xref)
	return b.Bytes()
}

func escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s)
}
