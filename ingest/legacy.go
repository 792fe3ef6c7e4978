package ingest

import (
	"context"
	"path"

	"github.com/switchboard/switchboard/kb"
)

// LegacyFiles is what Pipeline.IngestFiles needs to take over the file
// documents of earlier versions, which keyed a file by the path as typed,
// relative to the working directory of the time ("docs/a.md",
// "../docs/a.md", "/abs/docs/a.md"): one file could be stored several
// times. The stores' migrations already merge copies with the same name
// and content; what is left is renamed to the canonical key when the file
// is next ingested. Votes and threads do not refer to documents, so they
// are kept as they are.
type LegacyFiles interface {
	// HasLegacyFiles reports whether any document LegacyFileDocuments
	// could return is stored; IngestFiles asks once per run.
	HasLegacyFiles(ctx context.Context) (bool, error)
	// LegacyFileDocuments returns the file documents (workspace "") whose
	// Key neither starts with KeyPrefix nor is a demo document's, and whose
	// last path element is base: their Key and Hash.
	LegacyFileDocuments(ctx context.Context, base string) ([]kb.Document, error)
	// RenameDocument gives the document stored under from the key to and
	// the location, in one transaction, keeping its chunks. It does
	// nothing when to is taken or from is gone.
	RenameDocument(ctx context.Context, workspace, from, to, location string) error
	DeleteDocument(ctx context.Context, workspace, key string) error
}

// adoptLegacy renames the legacy document of the file id to doc.Key, unless
// doc.Key is stored already, and deletes other legacy copies of the file.
func (p *Pipeline) adoptLegacy(ctx context.Context, doc kb.Document, id sourceID) error {
	if _, ok, err := p.Store.DocumentHash(ctx, doc.Workspace, doc.Key); err != nil || ok {
		return err
	}
	olds, err := p.Legacy.LegacyFileDocuments(ctx, path.Base(doc.Location))
	if err != nil {
		return err
	}
	// Earlier versions hashed a file's text alone, which Files hands over
	// as one chunk; doc.Hash also covers a link, when the file has one.
	hash := doc.Hash
	if len(doc.Chunks) == 1 {
		hash = kb.Hash(doc.Chunks[0].Content)
	}
	var matches []kb.Document
	best := -1
	for _, old := range olds {
		ok, weak := id.matchesLegacy(old.Key)
		if !ok || (weak && old.Hash != hash) {
			continue
		}
		matches = append(matches, old)
		// Prefer the copy with the same text, then the longest match.
		i := len(matches) - 1
		if best < 0 || (old.Hash == hash) != (matches[best].Hash == hash) && old.Hash == hash ||
			(old.Hash == hash) == (matches[best].Hash == hash) && len(old.Key) > len(matches[best].Key) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	if err := p.Legacy.RenameDocument(ctx, doc.Workspace, matches[best].Key, doc.Key, doc.Location); err != nil {
		return err
	}
	for i, m := range matches {
		if i != best {
			if err := p.Legacy.DeleteDocument(ctx, doc.Workspace, m.Key); err != nil {
				return err
			}
		}
	}
	return nil
}
