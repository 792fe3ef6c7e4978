package sqlite

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/retrieval"
)

var _ agent.Retriever = (*Retriever)(nil)

// Retriever is the vector route over the embedded store: a hybrid search
// that ranks chunks by FTS5 bm25 and, separately, by cosine similarity of
// embeddings, then fuses the two rankings with Reciprocal Rank Fusion.
// Keyword search finds exact names and codes that embeddings blur;
// embeddings find paraphrases that share no words with the question.
//
// The similarity search is a brute-force scan of the chunks in scope,
// streamed and kept in a top-k heap: for the few thousand chunks an
// embedded store holds it costs tens of milliseconds, linear in the
// chunks, and needs no vector index to keep in sync. Larger knowledge
// bases belong in PostgreSQL with pgvector.
type Retriever struct {
	db  *DB
	emb retrieval.Embedder

	// Logger hears about queries answered by keyword search alone because
	// the query could not be embedded. Nil discards.
	Logger *slog.Logger
}

// NewRetriever returns a Retriever over db. emb embeds the query; with a
// nil emb the search is keyword-only.
func NewRetriever(db *DB, emb retrieval.Embedder) *Retriever {
	return &Retriever{db: db, emb: emb}
}

// scopeSQL limits a query joined as "documents d" to what a scope may see:
// its own workspace and the shared files (workspace ""), public documents,
// and private ones only from the asking channel.
const scopeSQL = `d.workspace IN (:ws, '') AND (d.private = 0 OR (:ch <> '' AND d.channel = :ch))`

func scopeArgs(sc agent.Scope) []any {
	return []any{sql.Named("ws", sc.Workspace), sql.Named("ch", sc.Channel)}
}

// Retrieve returns up to req.Limit chunks (default 6) for req.Query (or,
// when it is empty, req.Question), best first. Score is the fused RRF
// score. When the query cannot be embedded the keyword ranking alone is
// used rather than failing the run.
func (r *Retriever) Retrieve(ctx context.Context, req agent.Request) ([]agent.Document, error) {
	query, limit, pool := retrieval.Query(req)
	if query == "" {
		return nil, nil
	}

	// Embedding the query is usually a call to a model API, so the keyword
	// search runs meanwhile. The result is always received, so the
	// goroutine never outlives the call.
	type embedded struct {
		vec []float32
		ok  bool
	}
	qc := make(chan embedded, 1)
	go func() {
		v, ok := r.embedQuery(ctx, query)
		qc <- embedded{v, ok}
	}()
	set, err := r.db.chunkSet(ctx)
	var text []int64
	if err == nil {
		text, err = r.searchText(ctx, query, req.Scope, pool, set)
	}
	q := <-qc
	if err != nil {
		return nil, fmt.Errorf("sqlite: retrieve %.80q: %w", query, err)
	}
	if err := ctx.Err(); err != nil {
		// Not the embedder's failure: the run is over.
		return nil, fmt.Errorf("sqlite: retrieve %.80q: %w", query, err)
	}
	var vec []int64
	if q.ok {
		vec, err = r.searchVector(ctx, q.vec, req.Scope, pool, set)
		if errors.Is(err, errDimension) {
			r.log().WarnContext(ctx, "sqlite: vector search skipped", "err", err)
			r.log().DebugContext(ctx, "sqlite: vector search skipped", "query", query) // the asker's words: debug only
			vec, err = nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("sqlite: retrieve %.80q: %w", query, err)
		}
	}

	preferred, err := r.preferred(ctx, req.Scope.Prefer, text, vec)
	if err != nil {
		return nil, fmt.Errorf("sqlite: retrieve %.80q: %w", query, err)
	}
	docs, err := r.load(ctx, fuse(limit, preferred, text, vec))
	if err != nil {
		return nil, fmt.Errorf("sqlite: retrieve %.80q: %w", query, err)
	}
	return docs, nil
}

func (r *Retriever) log() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// embedQuery embeds the query; ok is false when there is no embedder or it
// failed, which is logged: the keyword ranking still answers.
func (r *Retriever) embedQuery(ctx context.Context, query string) ([]float32, bool) {
	if r.emb == nil {
		return nil, false
	}
	v, err := retrieval.EmbedQuery(ctx, r.emb, query)
	if err != nil {
		r.log().WarnContext(ctx, "sqlite: query not embedded, keyword search only", "err", err)
		r.log().DebugContext(ctx, "sqlite: query not embedded", "query", query) // the asker's words: debug only
		return nil, false
	}
	return v, true
}

// searchTextSQL is searchText's query: the FTS5 index, joined to the
// chunks' documents for their scope.
const searchTextSQL = `SELECT c.id
		FROM chunks_fts
		JOIN chunks c ON c.id = chunks_fts.rowid
		JOIN documents d ON d.id = c.document_id
		WHERE chunks_fts MATCH :q AND ` + scopeSQL + `
		ORDER BY bm25(chunks_fts, 3.0, 2.0, 1.0), c.id
		LIMIT :n`

// searchText returns the ids of the best bm25 matches in scope, best
// first. A hit in the title weighs more than one in a heading, which
// weighs more than one in the body. set, when not nil, holds the chunks.
func (r *Retriever) searchText(ctx context.Context, query string, sc agent.Scope, n int, set *chunkSet) ([]int64, error) {
	terms, err := r.selective(ctx, ftsTerms(query), set)
	if err != nil {
		return nil, err
	}
	match := matchExpr(terms)
	if match == "" {
		return nil, nil
	}
	st, err := r.db.prepared(ctx, searchTextSQL)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	args := append(scopeArgs(sc), sql.Named("q", match), sql.Named("n", n))
	ids, err := column[int64](st.QueryContext(ctx, args...))
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	return ids, nil
}

// column reads rows of one column, closing them; err is the query's.
func column[T any](rows *sql.Rows, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// minCommonCheck is the store size, in chunks, from which searchText drops
// terms that occur in most chunks; below it every query is cheap anyway.
const minCommonCheck = 200

// selective drops terms found in more than half of all chunks, as long as
// another term remains. FTS5's bm25 clamps the IDF of such a term to
// almost zero, so it adds nothing to any score, yet it makes nearly every
// chunk a match and bm25 is then computed for each: "policy" in a policy
// handbook would cost a pass over the whole index for no ranking. Counting
// a term's matches reads only its list of chunk ids, far cheaper than
// scoring them; it goes through MATCH, not the fts5vocab table, so that
// the term is stemmed as the index was.
// set, when not nil, holds the chunks, and so their number.
func (r *Retriever) selective(ctx context.Context, terms []string, set *chunkSet) ([]string, error) {
	if len(terms) < 2 {
		return terms, nil
	}
	var total int
	if set != nil {
		total = len(set.chunks)
	} else if err := r.db.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&total); err != nil {
		return nil, fmt.Errorf("count chunks: %w", err)
	}
	if total < minCommonCheck {
		return terms, nil
	}
	st, err := r.db.prepared(ctx, `SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`)
	if err != nil {
		return nil, fmt.Errorf("count matches: %w", err)
	}
	var kept []string
	for _, t := range terms {
		var n int
		if err := st.QueryRowContext(ctx, matchExpr([]string{t})).Scan(&n); err != nil {
			return nil, fmt.Errorf("count matches of %q: %w", t, err)
		}
		if 2*n <= total {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return terms, nil
	}
	return kept, nil
}

// errDimension means the query vector and the stored vectors differ in
// length: the embedder was changed without re-ingesting (DB.CheckEmbedding
// reports this at start-up).
var errDimension = errors.New("query vector dimension differs from the stored vectors")

// searchVector returns the ids of the n chunks in scope most similar to q,
// best first: from set when it is not nil, else from rows streamed and
// decoded in place, keeping only the heap of the n best.
func (r *Retriever) searchVector(ctx context.Context, q []float32, sc agent.Scope, n int, set *chunkSet) ([]int64, error) {
	qn := norm(q)
	if qn == 0 {
		return nil, nil
	}
	if set != nil {
		return set.search(q, qn, sc, n)
	}
	rows, err := r.db.db.QueryContext(ctx, `SELECT c.id, c.embedding
		FROM chunks c JOIN documents d ON d.id = c.document_id
		WHERE c.embedding IS NOT NULL AND `+scopeSQL, scopeArgs(sc)...)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	defer rows.Close()
	h := make(topK, 0, n+1)
	for rows.Next() {
		var id int64
		var blob sql.RawBytes // valid until Next: no copy per row
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		if len(blob) != 4*len(q) {
			return nil, fmt.Errorf("%w: query %d, chunk %d has %d", errDimension, len(q), id, len(blob)/4)
		}
		score, ok := cosine(q, qn, blob)
		if !ok || score <= 0 {
			// Orthogonal or opposed: no evidence of relevance, so it
			// should not earn an RRF rank.
			continue
		}
		if len(h) < n {
			heap.Push(&h, hit{id, score})
		} else if h[0].less(hit{id, score}) {
			h[0] = hit{id, score}
			heap.Fix(&h, 0)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	sort.Slice(h, func(i, j int) bool { return h[j].less(h[i]) })
	ids := make([]int64, len(h))
	for i, x := range h {
		ids[i] = x.id
	}
	return ids, nil
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// cosine returns the cosine similarity of q (with norm qn) and the
// little-endian float32 vector in b; ok is false for a zero vector.
func cosine(q []float32, qn float64, b []byte) (float64, bool) {
	var dot, bn float64
	for i, x := range q {
		y := float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		dot += float64(x) * y
		bn += y * y
	}
	if bn == 0 {
		return 0, false
	}
	return dot / (qn * math.Sqrt(bn)), true
}

// hit is a scored chunk.
type hit struct {
	id    int64
	score float64
}

// less orders hits worst first; equal scores prefer the lower id, so that
// rankings are deterministic.
func (a hit) less(b hit) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.id > b.id
}

// topK is a min-heap of hits: the root is the worst of the best kept.
type topK []hit

func (h topK) Len() int           { return len(h) }
func (h topK) Less(i, j int) bool { return h[i].less(h[j]) }
func (h topK) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topK) Push(x any)        { *h = append(*h, x.(hit)) }
func (h *topK) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// preferred returns which of the chunks ranked are of channel (none for
// ""): the one the asker looks at.
func (r *Retriever) preferred(ctx context.Context, channel string, rankings ...[]int64) (map[int64]bool, error) {
	if channel == "" {
		return nil, nil
	}
	ids, err := json.Marshal(slices.Concat(rankings...))
	if err != nil {
		return nil, err
	}
	st, err := r.db.prepared(ctx, `SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id
		WHERE d.channel = ? AND c.id IN (SELECT value FROM json_each(?))`)
	if err != nil {
		return nil, fmt.Errorf("preferred channel: %w", err)
	}
	found, err := column[int64](st.QueryContext(ctx, channel, string(ids)))
	if err != nil {
		return nil, fmt.Errorf("preferred channel: %w", err)
	}
	in := make(map[int64]bool, len(found))
	for _, id := range found {
		in[id] = true
	}
	return in, nil
}

// fuse combines rankings with Reciprocal Rank Fusion: a chunk scores
// Σ 1/(k + rank) over the rankings it appears in, and
// retrieval.PreferBonus more when preferred. RRF needs no score
// calibration between bm25 and cosine, which live on unrelated scales.
func fuse(limit int, preferred map[int64]bool, rankings ...[]int64) []hit {
	scores := map[int64]float64{}
	for _, ids := range rankings {
		for i, id := range ids {
			scores[id] += 1 / float64(retrieval.RRFK+i+1)
		}
	}
	for id := range preferred {
		scores[id] += retrieval.PreferBonus
	}
	hits := make([]hit, 0, len(scores))
	for id, s := range scores {
		hits = append(hits, hit{id, s})
	}
	sort.Slice(hits, func(i, j int) bool { return hits[j].less(hits[i]) })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// load fetches the chunks of hits with their documents, in hits' order.
func (r *Retriever) load(ctx context.Context, hits []hit) ([]agent.Document, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("load chunks: %w", err)
	}
	// The ids travel as one JSON array, so that the statement is the same
	// for any number of them and is prepared once. CROSS JOIN keeps the
	// chunks as the outer loop, looked up by id, whatever the planner's
	// statistics say (PRAGMA optimize on a small store would scan them).
	st, err := r.db.prepared(ctx, `SELECT c.id, c.idx, c.heading, c.content, c.location, c.metadata,
			d.workspace, d.key, d.title, d.location, d.metadata
		FROM chunks c CROSS JOIN documents d ON d.id = c.document_id
		WHERE c.id IN (SELECT value FROM json_each(?))`)
	if err != nil {
		return nil, fmt.Errorf("load chunks: %w", err)
	}
	rows, err := st.QueryContext(ctx, string(list))
	if err != nil {
		return nil, fmt.Errorf("load chunks: %w", err)
	}
	defer rows.Close()
	byID := map[int64]agent.Document{}
	for rows.Next() {
		var (
			id          int64
			c           retrieval.Chunk
			cmeta, meta string
		)
		if err := rows.Scan(&id, &c.Index, &c.Heading, &c.Content, &c.Location, &cmeta,
			&c.Workspace, &c.Key, &c.Title, &c.DocLocation, &meta); err != nil {
			return nil, fmt.Errorf("load chunks: %w", err)
		}
		c.Metadata, c.DocMetadata = []byte(cmeta), []byte(meta)
		d, err := c.Document()
		if err != nil {
			return nil, fmt.Errorf("load chunks: %w", err)
		}
		byID[id] = d
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load chunks: %w", err)
	}
	docs := make([]agent.Document, 0, len(hits))
	for _, h := range hits {
		// A chunk replaced since it was ranked is simply left out.
		if d, ok := byID[h.id]; ok {
			d.Score = h.score
			docs = append(docs, d)
		}
	}
	return docs, nil
}
