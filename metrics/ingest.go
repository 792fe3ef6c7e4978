package metrics

import (
	"context"
	"time"

	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/kb"
)

// DocumentStore returns s with ingestion throughput counted: documents by
// result, chunks written, and the time each document took to store.
// Documents of a channel count as source "channel", the rest as "files".
func (m *Metrics) DocumentStore(s ingest.DocumentStore) ingest.DocumentStore {
	return &documentStore{DocumentStore: s, m: m}
}

type documentStore struct {
	ingest.DocumentStore
	m *Metrics
}

func (s *documentStore) UpsertDocument(ctx context.Context, doc kb.Document) (bool, error) {
	source := "files"
	if doc.Channel != "" {
		source = "channel"
	}
	start := time.Now()
	changed, err := s.DocumentStore.UpsertDocument(ctx, doc)
	s.m.ingestSeconds.WithLabelValues(source).Observe(time.Since(start).Seconds())
	switch {
	case err != nil:
		s.m.ingestDocs.WithLabelValues(source, "failed").Inc()
	case changed:
		s.m.ingestDocs.WithLabelValues(source, "changed").Inc()
		s.m.ingestChunks.WithLabelValues(source).Add(float64(len(doc.Chunks)))
	default:
		s.m.ingestDocs.WithLabelValues(source, "unchanged").Inc()
	}
	return changed, err
}
