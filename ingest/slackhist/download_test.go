package slackhist

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/internal/testenv"
)

// A file is downloaded into one buffer of the size Slack gives, not into
// a slice grown by copying, which allocated three times the file: what
// the process holds for an attachment is the attachment.
func TestDownloadHoldsTheFileOnce(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("C1", "files", false)
	fake.AddUser("U1", "Alice")
	ts := fake.PostAt("C1", "U1", "the file", time.Date(2024, 2, 3, 10, 0, 0, 0, time.UTC))
	data := bytes.Repeat([]byte("Acme Corp supplies Globex.\n"), (4<<20)/27)
	fake.AttachFile("C1", ts, "big.txt", "text/plain", data)
	s, err := New(Config{BotToken: fake.BotToken, APIURL: fake.APIURL()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ch, err := s.Channel(ctx, "C1")
	if err != nil {
		t.Fatal(err)
	}
	var files []chat.File
	if err := s.History(ctx, ch, time.Time{}, time.Time{}, func(p []chat.Message) error {
		for _, m := range p {
			files = append(files, m.Files...)
		}
		return nil
	}); err != nil || len(files) != 1 {
		t.Fatalf("files %+v, %v", files, err)
	}

	var got []byte
	allocated := testenv.Allocated(func() { got, err = s.Download(ctx, files[0], 8<<20) })
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded %d bytes of %d, %v", len(got), len(data), err)
	}
	if limit := uint64(len(data)) * 3 / 2; allocated > limit {
		t.Errorf("downloading %d bytes allocated %d; want at most %d", len(data), allocated, limit)
	}
	if _, err := s.Download(ctx, files[0], 1<<20); err == nil {
		t.Error("a file over the limit was downloaded")
	}
}
