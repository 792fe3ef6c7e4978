// Package kb holds the knowledge base's data: documents split into chunks,
// and the nodes and edges of the knowledge graph. Ingest produces these
// values; the stores (sqlite, postgres, neo4j) persist and search them.
package kb

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// Document is one ingested unit: a file, or a chat thread. Key is stable
// across ingests (for a file, "file:" and its canonical path, see
// ingest.Files; for chat, a message id), so that re-ingesting replaces
// rather than duplicates.
type Document struct {
	Key       string            // stable identity, unique within a workspace
	Title     string            // shown as the source title
	Location  string            // path, URL or permalink shown with the source
	Workspace string            // Slack team / Discord guild; "" for files
	Channel   string            // channel id; "" for files
	Private   bool              // from a private channel: visible only in that channel
	Hash      string            // content hash of the whole document (see Hash)
	Metadata  map[string]string // author, timestamp, thread, ...
	Chunks    []Chunk
}

// Chunk is a searchable piece of a document.
type Chunk struct {
	Index     int    // position in the document, from 0
	Heading   string // nearest heading above the chunk, if any
	Content   string
	Embedding []float32 // filled by the ingest pipeline
	// Location is where this piece can be seen when that is more precise
	// than the document's Location: the permalink of the first chat
	// message in it, say. Empty means the document's. Retrievers show it
	// as the source's location.
	Location string
	// Metadata holds facts of this piece alone (author, timestamp of a
	// chat message); retrievers merge it over the document's Metadata.
	Metadata map[string]string
}

// Node is an entity in the knowledge graph. ID is unique; Label is its kind
// (Customer, Supplier, Person, ...); Name is what people call it.
type Node struct {
	ID     string
	Label  string
	Name   string
	Props  map[string]string
	Source string // where the fact came from: file, chunk key or permalink
}

// Edge is a relationship Source -[Type]-> Target between node ids.
type Edge struct {
	Source string
	Type   string
	Target string
	Props  map[string]string
	Origin string // where the fact came from
}

// Hash returns the hex SHA-256 of s, used as a content hash.
func Hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// EmbeddingDim returns the length shared by the chunks' vectors, 0 when
// none has one, and an error when they differ: a store cannot index
// vectors of two sizes.
func (d Document) EmbeddingDim() (int, error) {
	dim := 0
	for _, c := range d.Chunks {
		switch n := len(c.Embedding); {
		case n == 0:
		case dim == 0:
			dim = n
		case n != dim:
			return 0, fmt.Errorf("chunk %d has a %d-dimensional vector, earlier chunks %d", c.Index, n, dim)
		}
	}
	return dim, nil
}

// ContentHash stands in for a missing Hash: whatever would change what a
// search finds changes it.
func (d Document) ContentHash() string {
	var b strings.Builder
	b.WriteString(d.Title)
	for _, c := range d.Chunks {
		fmt.Fprintf(&b, "\x00%d\x00%s\x00%s", c.Index, c.Heading, c.Content)
		if c.Location != "" || len(c.Metadata) > 0 { // so that older hashes stay valid
			md, _ := json.Marshal(c.Metadata) // map keys are sorted
			fmt.Fprintf(&b, "\x00%s\x00%s", c.Location, md)
		}
	}
	return Hash(b.String())
}
