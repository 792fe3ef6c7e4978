// Package retrieval holds what the stores' retrievers (sqlite, postgres)
// share, so that the embedded store and PostgreSQL rank and shape their
// results alike: the tuning of the hybrid search, the embedding of the
// query, and a stored chunk read back as an agent.Document.
package retrieval

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/agent"
)

// Retrieval tuning.
const (
	DefaultLimit = 6  // documents returned when the request names no limit
	RRFK         = 60 // Reciprocal Rank Fusion constant, as in the RRF paper
	MinPool      = 40 // candidates taken from each of the two rankings
	// PreferBonus is what a chunk of the channel the asker looks at
	// (agent.Scope.Prefer) adds to its fused score: a first place in a
	// third ranking. The channel's history that both rankings found
	// then comes first; what only one found comes after chunks that both
	// ranked well.
	PreferBonus = 1.0 / (RRFK + 1)
)

// Query returns what req asks to search for: its Query or, when that is
// empty, its Question, trimmed ("" for nothing); limit is req.Limit or
// DefaultLimit, and pool the candidates to take from each ranking so that
// fusion has enough to choose from.
func Query(req agent.Request) (query string, limit, pool int) {
	query = strings.TrimSpace(req.Query)
	if query == "" {
		query = strings.TrimSpace(req.Question)
	}
	limit = req.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	return query, limit, max(4*limit, MinPool)
}

// Embedder turns texts into vectors, one per text, all of the same length.
// It is declared here because the retrievers need it for the query;
// implementations live with the model clients.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedQuery returns emb's vector for query, or an error when emb failed
// or did not return one non-empty vector.
func EmbedQuery(ctx context.Context, emb Embedder, query string) ([]float32, error) {
	vs, err := emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	if len(vs) != 1 || len(vs[0]) == 0 {
		return nil, fmt.Errorf("embedder returned %d vectors for 1 text", len(vs))
	}
	return vs[0], nil
}

// Chunk is a stored chunk as the retrievers read it, with its document's
// fields; the metadata are the stored JSON objects.
type Chunk struct {
	Index                 int
	Heading, Content      string
	Location              string // the chunk's own; "" for the document's
	Metadata              []byte // the chunk's own facts
	Workspace, Key, Title string
	DocLocation           string
	DocMetadata           []byte
}

// Document returns c as the agent sees a source: the heading above the
// content and in Section, the chunk's location and metadata over the
// document's, and the document key and chunk index in Key and Chunk (and
// in the metadata). The ID is "key#index", after "workspace/" for a chat
// workspace's, whose chunks are of KindChat.
func (c Chunk) Document() (agent.Document, error) {
	md := map[string]string{}
	if err := json.Unmarshal(c.DocMetadata, &md); err != nil {
		return agent.Document{}, fmt.Errorf("metadata of %q: %w", c.Key, err)
	}
	if md == nil { // stored as JSON null
		md = map[string]string{}
	}
	// The chunk's own facts (the message it starts at) are more precise
	// than its document's.
	var chunkMD map[string]string
	if err := json.Unmarshal(c.Metadata, &chunkMD); err != nil {
		return agent.Document{}, fmt.Errorf("chunk metadata of %q: %w", c.Key, err)
	}
	for k, v := range chunkMD {
		md[k] = v
	}
	loc := c.DocLocation
	if c.Location != "" {
		loc = c.Location
	}
	setDefault(md, "key", c.Key)
	setDefault(md, "chunk", strconv.Itoa(c.Index))
	content := c.Content
	if c.Heading != "" {
		content = c.Heading + "\n\n" + content
	}
	key, kind := c.Key, agent.KindDocument
	if c.Workspace != "" {
		key, kind = c.Workspace+"/"+key, agent.KindChat
	}
	return agent.Document{
		ID:       key + "#" + strconv.Itoa(c.Index),
		Title:    c.Title,
		Location: loc,
		Content:  content,
		Route:    agent.RouteVector,
		Metadata: md,
		Section:  c.Heading,
		Kind:     kind,
		Key:      key,
		Chunk:    c.Index,
	}, nil
}

func setDefault(m map[string]string, k, v string) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}
