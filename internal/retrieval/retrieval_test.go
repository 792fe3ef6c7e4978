package retrieval

import (
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// TestChunkDocument checks what the agent learns of a chunk's document
// from the fields the stores set, not from its ID: a chat workspace's
// chunk is a chat of a key within that workspace, a file's a document.
func TestChunkDocument(t *testing.T) {
	tests := []struct {
		c         Chunk
		id, key   string
		kind      agent.Kind
		chunk     int
		wantTitle string
	}{
		{Chunk{Index: 3, Key: "docs/refunds.md", Title: "Refunds", Metadata: []byte(`{}`), DocMetadata: []byte(`{}`)},
			"docs/refunds.md#3", "docs/refunds.md", agent.KindDocument, 3, "Refunds"},
		{Chunk{Index: 0, Workspace: "T1", Key: "slack/C1/1700.1", Title: "#general", Metadata: []byte(`{}`), DocMetadata: []byte(`null`)},
			"T1/slack/C1/1700.1#0", "T1/slack/C1/1700.1", agent.KindChat, 0, "#general"},
	}
	for _, tt := range tests {
		d, err := tt.c.Document()
		if err != nil {
			t.Fatal(err)
		}
		if d.ID != tt.id || d.Key != tt.key || d.Kind != tt.kind || d.Chunk != tt.chunk || d.Title != tt.wantTitle {
			t.Errorf("%+v: got ID %q key %q kind %q chunk %d title %q", tt.c, d.ID, d.Key, d.Kind, d.Chunk, d.Title)
		}
	}
}
