package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/kb"
)

// ingest loads files and folders into the document store.
func (m *Main) ingest(ctx context.Context, app *App, args []string) error {
	fs := m.newFlags("ingest", "ingest PATH...")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	// The pipeline as wired, with a store that reports each document as
	// it reaches it, for the progress bar.
	bar := newProgressBar(m.Stderr, app.Log)
	if m.terminal {
		bar.tty = true
	}
	prog := &fileProgress{total: countFiles(fs.Args()), start: m.clock(), now: m.clock, bar: bar}
	p := *app.Ingest
	p.Store = progressStore{DocumentStore: p.Store, seen: prog.document}
	p.DocsBaseURL = app.Config.DocsBaseURL // links the files to where people read them
	rep, err := p.IngestFiles(ctx, fs.Args())
	bar.done()
	fmt.Fprintln(m.Stdout, rep.String())
	if err != nil {
		return err
	}
	if n := len(rep.Errors); n > 0 {
		return fmt.Errorf("%d of the paths failed (listed above); the rest were ingested", n)
	}
	return nil
}

// clock is m.now, or the time of day.
func (m *Main) clock() time.Time {
	if m.now != nil {
		return m.now()
	}
	return time.Now()
}

// progressStore tells seen about every document the pipeline looks up,
// which it does before embedding it (once or more: seen counts keys).
type progressStore struct {
	ingest.DocumentStore
	seen func(key string)
}

func (s progressStore) DocumentHash(ctx context.Context, workspace, key string) (string, bool, error) {
	s.seen(key)
	return s.DocumentStore.DocumentHash(ctx, workspace, key)
}

func (s progressStore) UpsertDocument(ctx context.Context, doc kb.Document) (bool, error) {
	return s.DocumentStore.UpsertDocument(ctx, doc)
}

// fileProgress is where a file ingest is: files reached of the files
// found, drawn by the progress bar of chat ingestion.
type fileProgress struct {
	total, done int
	key         string
	keys        map[string]bool // documents reached
	start       time.Time
	now         func() time.Time
	bar         *progressBar
}

func (p *fileProgress) document(key string) {
	if p.keys[key] {
		return
	}
	if p.keys == nil {
		p.keys = make(map[string]bool)
	}
	p.keys[key] = true
	p.done++
	p.key = key
	p.bar.files(p)
}

// countFiles counts the files below paths that ingest will read (named
// files, and files of an indexed type in folders, not hidden), so that
// the bar can show a fraction and the time left. It is an estimate: files
// that turn out binary or too large are counted but never reached.
func countFiles(paths []string) int {
	n := 0
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			continue
		}
		if !info.IsDir() {
			n++
			continue
		}
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real // ingest follows a link it was given
		}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if p != root && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if _, ok := ingest.FileFormat(d.Name(), ""); ok && !d.IsDir() {
				n++
			}
			return nil
		})
	}
	return n
}

// files shows a file ingest's progress: a bar redrawn in place on a
// terminal, at most ten times a second; otherwise a log line every
// logEvery.
func (b *progressBar) files(p *fileProgress) {
	now := p.now()
	elapsed := now.Sub(p.start)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.done) / elapsed.Seconds()
	}
	var eta time.Duration
	left := p.total - p.done
	if rate > 0 && left > 0 && elapsed >= time.Second {
		eta = time.Duration(float64(left) / rate * float64(time.Second))
	}
	if !b.tty {
		if b.last.IsZero() {
			b.last = now // the first line after logEvery, not at once: short runs stay quiet
			return
		}
		if now.Sub(b.last) >= logEvery {
			b.last = now
			args := []any{"files", p.done, "of", p.total, "rate", perSecond(rate), "file", p.key}
			if eta > 0 {
				args = append(args, "eta", eta.Round(time.Second).String())
			}
			b.log.Info("ingesting files", args...)
		}
		return
	}
	if now.Sub(b.last) < 100*time.Millisecond && p.done < p.total {
		return
	}
	b.last = now
	b.drew = true
	fmt.Fprint(b.w, "\r"+fileBarLine(p.done, p.total, rate, eta, p.key)+"\x1b[K")
}

// fileBarLine is one line of the bar of a file ingest:
//
//	▕██████░░░░░░░░░░░░░░░░░░▏  25% · 750 of 3,000 files · 240/s · ETA 9s · docs/hr/leave.md
func fileBarLine(done, total int, rate float64, eta time.Duration, key string) string {
	const width = 24
	var b strings.Builder
	if total > 0 {
		f := min(float64(done)/float64(total), 1)
		n := int(f*width + 0.5)
		b.WriteString("▕" + strings.Repeat("█", n) + strings.Repeat("░", width-n) + "▏")
		fmt.Fprintf(&b, " %3d%% · %s of %s files", int(f*100), thousands(done), thousands(total))
	} else {
		fmt.Fprintf(&b, "%s files", thousands(done))
	}
	fmt.Fprintf(&b, " · %s", perSecond(rate))
	if eta > 0 {
		fmt.Fprintf(&b, " · ETA %s", eta.Round(time.Second))
	}
	if r := []rune(key); len(r) > 40 {
		key = "…" + string(r[len(r)-39:])
	}
	return b.String() + " · " + key
}

// perSecond writes a rate: "240/s", "0.3/s".
func perSecond(r float64) string {
	if r < 10 {
		return fmt.Sprintf("%.1f/s", r)
	}
	return fmt.Sprintf("%.0f/s", r)
}
