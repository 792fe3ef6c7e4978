package ingest

import (
	"errors"
	"fmt"
	"strings"
)

// Report says what an ingest run did. Files and the lists are filled by
// Files and FilesFS; the pipeline adds Added, Updated, Unchanged and Chunks.
type Report struct {
	Files       int    // files read and handed on as documents
	Added       int    // documents new to the store
	Updated     int    // documents whose content changed
	Unchanged   int    // documents skipped because their hash matched
	Chunks      int    // chunks written for added and updated documents
	Skipped     []Skip // files not loaded (binary, too large, empty), with the reason
	Unsupported int    // files in folders ignored for their extension
	// Ignored names the first MaxIgnoredListed of them (as reports show
	// paths), so that people see which files those were; bounded, since a
	// folder may hold thousands of images.
	Ignored []string
	Errors  []error // paths that could not be read, documents that failed
}

// MaxIgnoredListed bounds Report.Ignored: String names that many of the
// files ignored, then says how many more there were.
const MaxIgnoredListed = 10

// ignore counts a file ignored for its type, named by path.
func (r *Report) ignore(path string) {
	r.Unsupported++
	if len(r.Ignored) < MaxIgnoredListed {
		r.Ignored = append(r.Ignored, path)
	}
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
//	3 files of other types ignored: logo.png, data.xlsx, slides.pptx
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
		if len(r.Ignored) > 0 {
			fmt.Fprintf(&b, ": %s", strings.Join(r.Ignored, ", "))
		}
		if more := r.Unsupported - len(r.Ignored); more > 0 && len(r.Ignored) > 0 {
			fmt.Fprintf(&b, " and %d more", more)
		}
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
