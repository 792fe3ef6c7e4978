package sqlite

import (
	"context"
	"testing"

	"github.com/switchboard/switchboard/kb"
)

// The contract shared with package postgres is checked by
// TestDocumentStore (internal/storetest); these are SQLite's own.

// A graph node alone makes the store not Empty: the graph lives in the
// same file.
func TestEmptyWithAGraphNode(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	s := NewDocumentStore(db, "bow")
	mustUpsert(t, s, testDoc(t, "", "a.md", "A", "one", "two"))
	if err := s.DeleteDocument(ctx, "", "a.md"); err != nil {
		t.Fatal(err)
	}
	if empty, err := s.Empty(ctx); err != nil || !empty {
		t.Fatalf("Empty after delete = %v, %v", empty, err)
	}
	if err := NewGraphStore(db).UpsertNodes(ctx, []kb.Node{{ID: "n", Name: "N"}}); err != nil {
		t.Fatal(err)
	}
	if empty, _ := s.Empty(ctx); empty {
		t.Error("Empty with a graph node")
	}
}
