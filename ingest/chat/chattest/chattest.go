// Package chattest holds the checks that every chat.Source is held to, so
// that the Slack and Discord sources are tested alike, each against its
// platform's fake server.
package chattest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/internal/testenv"
)

// TestDownloadHoldsTheFileOnce checks src, whose channel C1 holds one
// attachment, data, of some megabytes: it is downloaded into one buffer of
// the size the platform gives, not into a slice grown by copying, which
// allocated three times the file (what the process holds for an
// attachment is the attachment), and refused over a smaller limit.
func TestDownloadHoldsTheFileOnce(t *testing.T, src chat.Source, data []byte) {
	t.Helper()
	ctx := context.Background()
	ch, err := src.Channel(ctx, "C1")
	if err != nil {
		t.Fatal(err)
	}
	var files []chat.File
	if err := src.History(ctx, ch, time.Time{}, time.Time{}, func(p []chat.Message) error {
		for _, m := range p {
			files = append(files, m.Files...)
		}
		return nil
	}); err != nil || len(files) != 1 {
		t.Fatalf("files %+v, %v", files, err)
	}

	var got []byte
	allocated := testenv.Allocated(func() { got, err = src.Download(ctx, files[0], 8<<20) })
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded %d bytes of %d, %v", len(got), len(data), err)
	}
	if limit := uint64(len(data)) * 3 / 2; allocated > limit {
		t.Errorf("downloading %d bytes allocated %d; want at most %d", len(data), allocated, limit)
	}
	if _, err := src.Download(ctx, files[0], 1<<20); err == nil {
		t.Error("a file over the limit was downloaded")
	}
}
