package chat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/internal/text"
	"github.com/switchboard/switchboard/kb"
)

// files stores the attached files of msgs that are text, Markdown, HTML or
// PDF, each as a document visible where its message is (scope, private).
// A file whose id, size and time match the stored document is not
// downloaded again. Files that cannot be read are listed in the report.
func (in *Ingester) files(ctx context.Context, ch Channel, msgs []Message, scope string, private bool, rep *Report) error {
	max := in.MaxFileSize
	if max <= 0 {
		max = ingest.MaxFileSize
	}
	for _, m := range msgs {
		for _, f := range m.Files {
			if err := ctx.Err(); err != nil {
				return err
			}
			if f.ID == "" || f.URL == "" {
				continue
			}
			if _, ok := ingest.FileFormat(f.Name, f.MIME); !ok {
				continue // images, archives…: nothing to read
			}
			if err := in.file(ctx, ch, m, f, scope, private, max, rep); err != nil {
				return err
			}
		}
	}
	return nil
}

// file stores one attachment. It returns an error only for the store's
// failures; the file's own problems are reported.
func (in *Ingester) file(ctx context.Context, ch Channel, m Message, f File, scope string, private bool, max int64, rep *Report) error {
	key := FileKey(ch, m.ID, f.ID)
	// ingest.ReadVersion: a new way of reading files reads them again.
	hash := kb.Hash(strings.Join([]string{"file", f.ID, f.Name, strconv.FormatInt(f.Size, 10),
		f.Updated.UTC().Format(time.RFC3339Nano), scope, strconv.FormatBool(private), m.Permalink, ingest.ReadVersion}, "\x00"))
	stored, ok, err := in.Store.DocumentHash(ctx, ch.Workspace, key)
	if err != nil {
		return err
	}
	if ok && stored == hash {
		rep.Unchanged++
		return nil
	}
	name := text.OneLine(f.Name)
	if f.Size > max {
		rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s (in %s): too large (%d bytes; the limit is %d)", name, m.Permalink, f.Size, max))
		return nil
	}
	data, err := in.Source.Download(ctx, f, max)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rep.Errors = append(rep.Errors, fmt.Errorf("file %s (in %s): %w", name, m.Permalink, err))
		return nil
	}
	text, title, err := ingest.FileText(ctx, f.Name, f.MIME, data)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !errors.Is(err, ingest.ErrUnsupported) {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s (in %s): %v", name, m.Permalink, err))
		}
		return nil
	}
	if title == "" {
		title = name
	}
	loc := f.Permalink
	if loc == "" {
		loc = m.Permalink
	}
	doc := kb.Document{
		Key: key, Title: title, Location: loc, Workspace: ch.Workspace, Channel: scope, Private: private, Hash: hash,
		Metadata: map[string]string{
			"kind": KindFile, "platform": ch.Platform, "channel": ch.ID, "channel_name": ch.Name,
			"file": name, "message": m.ID, "author": m.Author, "time": m.Time.UTC().Format(time.RFC3339),
			"permalink": m.Permalink,
		},
		Chunks: []kb.Chunk{{Content: text}},
	}
	c := content{doc: doc}
	for _, para := range paragraphs(text, 2*in.chunkSize()) {
		c.passages = append(c.passages, passage(para, loc))
	}
	rep.Files++
	if err := in.store(ctx, c, rep); err != nil {
		return err
	}
	// The file's document under its key of old, which did not name its
	// message, goes: the new one replaces it.
	return in.remove(ctx, ch, legacyFileKey(ch, f.ID), rep)
}

// pruneFiles deletes the documents of the files that message no longer
// carries, all of them when it is gone (not among r.msgs, or deleted), so
// that their text is not cited any more. The graph facts read from them
// are forgotten.
func (in *Ingester) pruneFiles(ctx context.Context, r *run, message string, deleted bool) error {
	if message == "" {
		return nil
	}
	keep := map[string]bool{}
	if !deleted {
		for _, m := range r.msgs {
			if m.ID == message {
				for _, f := range m.Files {
					keep[FileKey(r.ch, m.ID, f.ID)] = true
				}
			}
		}
	}
	docs, err := in.Store.DocumentsByPrefix(ctx, r.ch.Workspace, FileKey(r.ch, message, ""))
	if err != nil {
		return err
	}
	for _, d := range docs {
		if keep[d.Key] {
			continue
		}
		if err := in.remove(ctx, r.ch, d.Key, &r.rep); err != nil {
			return err
		}
		if in.Graph != nil && d.Location != "" {
			if _, err := in.Graph.Forget(ctx, []string{d.Location}); err != nil {
				r.rep.Errors = append(r.rep.Errors, fmt.Errorf("graph facts of %s: %w", d.Key, err))
			}
		}
	}
	return nil
}

func (in *Ingester) chunkSize() int {
	if in.ChunkSize > 0 {
		return in.ChunkSize
	}
	return DefaultChunkSize
}

// paragraphs cuts text into pieces of at most about n bytes at blank
// lines, for graph extraction.
func paragraphs(text string, n int) []string {
	var out []string
	var cur strings.Builder
	for _, p := range strings.Split(text, "\n\n") {
		if cur.Len() > 0 && cur.Len()+len(p) > n {
			out = append(out, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteString("\n\n")
		}
		cur.WriteString(p)
	}
	if strings.TrimSpace(cur.String()) != "" {
		out = append(out, cur.String())
	}
	return out
}
