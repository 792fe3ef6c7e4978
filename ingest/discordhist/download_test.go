package discordhist_test

import (
	"bytes"
	"testing"

	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/ingest/chat/chattest"
	"github.com/switchboard/switchboard/ingest/discordhist"
)

// An attachment is downloaded whole into one buffer (see chattest).
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
	chattest.TestDownloadHoldsTheFileOnce(t, src, data)
}
