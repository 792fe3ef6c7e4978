package chat

import (
	"strings"
	"testing"
	"time"
)

func TestReportPlurals(t *testing.T) {
	r := Report{Channel: Channel{Name: "general"}, Messages: 12, Threads: 1, Days: 8, Files: 0, Added: 9,
		Chunks: 20, Entities: 3, Relations: 1, Elapsed: 2 * time.Second, Complete: true}
	got := r.String()
	for _, want := range []string{"12 messages", "1 thread,", "8 days", "0 files", "9 documents", "3 entities", "1 relation;"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "daies") {
		t.Errorf("summary %q", got)
	}
}
