package discordhist_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/ingest/discordhist"
	"github.com/switchboard/switchboard/internal/testenv"
)

// An attachment is downloaded into one buffer of the size Discord gives,
// not into a slice grown by copying, which allocated three times the
// file: what the process holds for an attachment is the attachment.
func TestDownloadHoldsTheFileOnce(t *testing.T) {
	fake := discordtest.New(t)
	fake.AddChannel("G1", "C1", "general", false)
	m := fake.PostAt("C1", alice, "the file", start)
	data := bytes.Repeat([]byte("Acme Corp supplies Globex.\n"), (4<<20)/27)
	fake.Attach("C1", m.ID, "big.txt", "text/plain", data)
	src, err := discordhist.New(discordhist.Config{BotToken: fake.Token, APIURL: fake.APIURL})
	if err != nil {
		t.Fatal(err)
	}
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
