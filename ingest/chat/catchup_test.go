package chat_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/ingest/chat"
)

// memSource is an in-memory chat.Source: one public channel, no threads.
type memSource struct {
	ch   chat.Channel
	msgs []chat.Message // any order
}

func (s *memSource) Platform() string { return "slack" }
func (s *memSource) Channel(context.Context, string) (chat.Channel, error) {
	return s.ch, nil
}
func (s *memSource) History(ctx context.Context, ch chat.Channel, oldest, latest time.Time, fn func([]chat.Message) error) error {
	var page []chat.Message
	for i := len(s.msgs) - 1; i >= 0; i-- { // newest first: msgs are kept oldest first
		m := s.msgs[i]
		if (!oldest.IsZero() && m.Time.Before(oldest)) || (!latest.IsZero() && !m.Time.Before(latest)) {
			continue
		}
		page = append(page, m)
	}
	return fn(page)
}
func (s *memSource) Threads(context.Context, chat.Channel, time.Time, time.Time) ([]chat.Thread, error) {
	return nil, nil
}
func (s *memSource) Replies(context.Context, chat.Channel, string) (chat.Thread, []chat.Message, error) {
	return chat.Thread{}, nil, chat.ErrNotFound
}
func (s *memSource) Download(context.Context, chat.File, int64) ([]byte, error) { return nil, nil }
func (s *memSource) Link(context.Context, chat.Channel, string, string) string  { return "" }

// A channel that was empty when first ingested must still pick up what is
// posted afterwards: the next run catches up rather than declaring the
// (empty) history complete forever.
func TestIngestCatchesUpAChannelThatWasEmpty(t *testing.T) {
	ctx := context.Background()
	b := sqliteBackend(t)
	now := time.Date(2024, 5, 10, 12, 0, 0, 0, time.UTC)
	src := &memSource{ch: chat.Channel{Platform: "slack", Workspace: "T1", ID: "C1", Name: "general",
		Created: now.Add(-30 * 24 * time.Hour)}}
	in := &chat.Ingester{Source: src, Pipeline: &ingest.Pipeline{Store: b.docs, Embedder: &hashEmbedder{}},
		Store: b.docs, Cursors: b.cursors, Now: func() time.Time { return now }}
	if _, err := in.Ingest(ctx, "C1", chat.Options{}); err != nil {
		t.Fatal(err)
	}
	// Later, someone posts.
	now = now.Add(time.Hour)
	src.msgs = append(src.msgs, chat.Message{ID: "1", Author: "ann", Text: "the deploy key rotates monthly",
		Time: now.Add(-time.Minute), Permalink: "https://x/p1"})
	if _, err := in.Ingest(ctx, "C1", chat.Options{}); err != nil {
		t.Fatal(err)
	}
	chunks, _ := b.chunks(t)
	found := false
	for _, cs := range chunks {
		for _, c := range cs {
			found = found || strings.Contains(c, "deploy key rotates")
		}
	}
	if !found {
		t.Fatalf("a message posted after the first run of an empty channel was never ingested: %v", chunks)
	}
}
