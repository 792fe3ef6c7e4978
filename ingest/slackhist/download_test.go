package slackhist

import (
	"bytes"
	"testing"
	"time"

	"github.com/switchboard/switchboard/ingest/chat/chattest"
)

// A file is downloaded whole into one buffer (see chattest).
func TestDownloadHoldsTheFileOnce(t *testing.T) {
	fake, s := fakeSlack(t, "files")
	ts := fake.PostAt("C1", "U1", "the file", time.Date(2024, 2, 3, 10, 0, 0, 0, time.UTC))
	data := bytes.Repeat([]byte("Acme Corp supplies Globex.\n"), (4<<20)/27)
	fake.AttachFile("C1", ts, "big.txt", "text/plain", data)
	chattest.TestDownloadHoldsTheFileOnce(t, s, data)
}
