package chat

import (
	"testing"
	"time"
)

// The status line of a run in chat.
func TestProgressLine(t *testing.T) {
	p := Progress{Channel: Channel{Name: "general"}, Messages: 12345, Documents: 80, Fraction: 0.5,
		Day: time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC), Elapsed: 10 * time.Second}
	if got := progressLine(p); got != "Ingesting #general: 12345 messages, 80 documents so far · 50% · about 10s left" {
		t.Errorf("progress line %q", got)
	}
	// Without a known start there is no share done, so no time left.
	p.Fraction = -1
	if got := progressLine(p); got != "Ingesting #general: 12345 messages, 80 documents so far" {
		t.Errorf("progress line %q", got)
	}
}
