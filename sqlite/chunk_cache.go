package sqlite

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/switchboard/switchboard/agent"
)

// maxCachedVectorBytes bounds the vectors a DB holds in memory for the
// similarity search: some 40,000 chunks of 384 dimensions, 10,000 of 1536.
// Above it the search streams them from the file on every query instead.
// A variable so that tests can lower it.
var maxCachedVectorBytes = 64 << 20

// chunkSet is every chunk as the similarity search reads it: its scope and
// its vector, decoded. Scanning these in memory costs a few microseconds
// per thousand chunks, where streaming the rows through the pure-Go driver
// costs more than the arithmetic, and needs no vector index either. It is
// never modified once built.
type chunkSet struct {
	chunks []cachedChunk // in id order
}

type cachedChunk struct {
	id                 int64
	workspace, channel string
	key                string // the document's, for the scope's sources
	private            bool
	vec                []float32 // nil: stored without an embedding
	size               int       // bytes of the stored vector, for searchVector's check
	norm               float64   // of vec, summed in cosine's order
}

// chunkSet returns the chunks as of the current docs version, or nil when
// their vectors are larger than maxCachedVectorBytes.
func (db *DB) chunkSet(ctx context.Context) (*chunkSet, error) {
	version, err := db.version(ctx, metaDocsVersion)
	if err != nil {
		return nil, err
	}
	return db.chunks.get(ctx, version, db.loadChunkSet)
}

func (db *DB) loadChunkSet(ctx context.Context) (*chunkSet, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT c.id, c.embedding, d.workspace, d.channel, d.key, d.private
		FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY c.id`)
	if err != nil {
		return nil, fmt.Errorf("load vectors: %w", err)
	}
	defer rows.Close()
	set := &chunkSet{}
	size := 0
	for rows.Next() {
		var c cachedChunk
		var blob sql.RawBytes
		if err := rows.Scan(&c.id, &blob, &c.workspace, &c.channel, &c.key, &c.private); err != nil {
			return nil, fmt.Errorf("load vectors: %w", err)
		}
		if size += len(blob); size > maxCachedVectorBytes {
			return nil, nil
		}
		if c.size = len(blob); c.size > 0 {
			c.vec = make([]float32, len(blob)/4)
			for i := range c.vec {
				c.vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
			}
			c.norm = norm(c.vec)
		}
		set.chunks = append(set.chunks, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load vectors: %w", err)
	}
	return set, nil
}

// inScope is scopeSQL in Go.
func (c *cachedChunk) inScope(sc agent.Scope) bool {
	return (c.workspace == sc.Workspace || c.workspace == "") &&
		(!c.private || (sc.Channel != "" && c.channel == sc.Channel)) &&
		sc.Cites(c.key)
}

// search is Retriever.searchVector over the set: the ids of the n chunks
// in scope most similar to q (with norm qn), best first, with the same
// scores and ties.
func (s *chunkSet) search(q []float32, qn float64, sc agent.Scope, n int) ([]int64, error) {
	h := make(topK, 0, n+1)
	for i := range s.chunks {
		c := &s.chunks[i]
		if c.vec == nil || !c.inScope(sc) {
			continue
		}
		if c.size != 4*len(q) {
			return nil, fmt.Errorf("%w: query %d, chunk %d has %d", errDimension, len(q), c.id, c.size/4)
		}
		if c.norm == 0 {
			continue
		}
		var dot float64
		for j, x := range q {
			dot += float64(x) * float64(c.vec[j])
		}
		score := dot / (qn * c.norm)
		if score <= 0 {
			continue // as in searchVector
		}
		if len(h) < n {
			heap.Push(&h, hit{c.id, score})
		} else if h[0].less(hit{c.id, score}) {
			h[0] = hit{c.id, score}
			heap.Fix(&h, 0)
		}
	}
	sort.Slice(h, func(i, j int) bool { return h[j].less(h[i]) })
	ids := make([]int64, len(h))
	for i, x := range h {
		ids[i] = x.id
	}
	return ids, nil
}
