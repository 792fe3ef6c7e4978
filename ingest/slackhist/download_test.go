package slackhist

import (
	"bytes"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/ingest/chat/chattest"
)

// A file is downloaded whole into one buffer (see chattest).
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
	chattest.TestDownloadHoldsTheFileOnce(t, s, data)
}
