package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"path"
	"strings"
)

// ErrUnsupported means a file is of a type that is not indexed (an image,
// an archive, a spreadsheet).
var ErrUnsupported = errors.New("file type not indexed")

// mimeFormats maps media types to formats, for files known by their type
// rather than their name (chat attachments).
var mimeFormats = map[string]string{
	"text/plain":      formatText,
	"text/markdown":   formatMarkdown,
	"text/x-markdown": formatMarkdown,
	"text/html":       formatHTML,
	"application/pdf": formatPDF,
}

// FileFormat returns the format a file is indexed as, from its name's
// extension or else its media type, and false for files that are not
// indexed: "report.pdf" → "pdf", "notes" with "text/plain" → "text".
func FileFormat(name, mimeType string) (string, bool) {
	if f, ok := formats[strings.ToLower(path.Ext(name))]; ok {
		return f, true
	}
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(mimeType))
	}
	f, ok := mimeFormats[mt]
	return f, ok
}

// FileText returns the text to index of a file's content, and a title if
// the file carries one (front matter, <title>, PDF information, a first
// heading). The format comes from FileFormat. It returns an error wrapping
// ErrUnsupported for other files, and an error saying why for binary,
// non-UTF-8 or empty text files, for unreadable PDFs and for files of
// more than MaxFileText bytes of text. It never panics. A PDF's read is
// bounded in time and memory and stops when ctx ends, returning ctx's
// error (see extractPDFContext); PDFium reads data where it is, without
// a copy.
func FileText(ctx context.Context, name, mimeType string, data []byte) (text, title string, err error) {
	format, ok := FileFormat(name, mimeType)
	declared := false
	if !ok {
		return "", "", fmt.Errorf("%s: %w", name, ErrUnsupported)
	}
	if format == formatPDF {
		text, title, err = extractPDFContext(ctx, bytes.NewReader(data), int64(len(data)), MaxFileText)
		if err != nil {
			return "", "", err
		}
	} else {
		if reason := binaryReason(data); reason != "" {
			return "", "", errors.New(reason)
		}
		text, title, _, declared = decodeText(data, format) // a chat file's link is its message's
		if len(text) > MaxFileText {
			return "", "", tooMuchText(MaxFileText)
		}
	}
	if strings.TrimSpace(text) == "" {
		return "", "", errors.New("no text")
	}
	return text, docTitle(format, text, title, declared, false), nil
}
