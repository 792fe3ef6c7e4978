package ingest

import (
	"errors"
	"fmt"
	"strings"
)

// Report says what an ingest run did. Files and the lists are filled by
// Files and FilesFS; the pipeline adds Added, Updated, Unchanged and Chunks.
type Report struct {
	Files       int     // files read and handed on as documents
	Added       int     // documents new to the store
	Updated     int     // documents whose content changed
	Unchanged   int     // documents skipped because their hash matched
	Chunks      int     // chunks written for added and updated documents
	Skipped     []Skip  // files not loaded (binary, too large, empty), with the reason
	Unsupported int     // files in folders ignored for their extension
	Errors      []error // paths that could not be read, documents that failed
}

// Skip is a file that was not loaded, and why.
type Skip struct {
	Path   string // as in Document.Key: "docs/logo.md"
	Reason string // for people: "binary file (contains NUL bytes)"
}

// Err joins Report.Errors into one error, or returns nil when there were
// none. The CLI uses it for its exit status.
func (r Report) Err() error { return errors.Join(r.Errors...) }

// String summarises the run for people, one fact a line:
//
//	4 files: 1 added, 1 updated, 2 unchanged; 9 chunks written
//	skipped logo.bin: binary file (contains NUL bytes)
//	3 files of other types ignored
//	error: ingest: docs/missing.md: no such file or directory
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d added, %d updated, %d unchanged; %s written",
		plural(r.Files, "file"), r.Added, r.Updated, r.Unchanged, plural(r.Chunks, "chunk"))
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "\nskipped %s: %s", s.Path, s.Reason)
	}
	if r.Unsupported > 0 {
		fmt.Fprintf(&b, "\n%s of other types ignored", plural(r.Unsupported, "file"))
	}
	for _, err := range r.Errors {
		fmt.Fprintf(&b, "\nerror: %v", err)
	}
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
