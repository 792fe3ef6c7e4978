package postgres

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/retrieval"
)

var _ agent.Retriever = (*Retriever)(nil)

// maxEfSearch is pgvector's upper bound for hnsw.ef_search. The rest of
// the tuning is retrieval's, shared with the embedded store.
const maxEfSearch = 1000

// Retriever is the vector route over PostgreSQL: a hybrid search that
// ranks chunks by cosine similarity of embeddings (the HNSW index) and,
// separately, by full-text match (the GIN index, ts_rank), then fuses
// the two rankings with Reciprocal Rank Fusion. Keyword search finds exact
// names and codes that embeddings blur; embeddings find paraphrases that
// share no words with the question.
//
// Both rankings, the fusion and the fetch of the winning chunks are one SQL
// statement, sent with its settings in one round trip.
type Retriever struct {
	db  *DB
	emb retrieval.Embedder
}

// NewRetriever returns a Retriever over db. emb embeds the query; with a
// nil emb the search is keyword-only. Queries answered by keyword search
// alone because they could not be embedded are logged to db's
// Options.Logger.
func NewRetriever(db *DB, emb retrieval.Embedder) *Retriever {
	return &Retriever{db: db, emb: emb}
}

// scopeSQL limits a query over chunks to what a scope may see: its own
// workspace and the shared files (workspace ""), public documents, and
// private ones only from the asking channel. $3 is the workspace, $4 the
// channel.
const scopeSQL = `workspace IN ($3, '') AND (NOT private OR ($4 <> '' AND channel = $4))`

// commonFraction is the share of chunks above which a query word is
// dropped from the full-text ranking, as long as another word remains.
// ts_rank knows nothing of how rare a word is, so a common word ("policy"
// in a policy handbook) would weigh as much as the rare one the question
// is about, and it would make most chunks matches to be fetched and ranked
// one by one: for a word in half of 100,000 chunks, 50,000 rows per
// question.
const commonFraction = "0.1"

// hybridSQL ranks by vector ($1, NULL for none) and by text ($2, words
// separated by spaces, NULL for none), $5 candidates each, and returns the
// $6 best chunks by RRF, best first, those of channel $7 (if not empty)
// raised by retrieval.PreferBonus; ties go to the older chunk, so that
// rankings are deterministic.
//
// The vector candidates are MATERIALIZED, as pgvector advises for
// iterative scans: the scan's LIMIT then counts rows that passed the scope
// filter, and with relaxed ordering the rank is taken from the exact
// distances afterwards. A distance of 1 or more (cosine similarity ≤ 0) is
// no evidence of relevance, so it earns no RRF rank; it is filtered
// outside the CTE so as not to stop the index scan early.
//
// The text query OR's the words' lexemes, leaving out those that the
// planner's statistics (ANALYZE's most common elements of chunks.tsv) find
// in more than commonFraction of the chunks. A store not yet analysed has
// no such statistics and keeps every word. (The frequencies array ends
// with three statistics that are not frequencies of an element; unnest
// pairs them with NULL elements, which must not reach the IN list.) The
// lexemes come from words of letters and digits only (see queryWords), so
// quoting them is belt and braces.
//
// The text ranking is ts_rank's rather than ts_rank_cd's. For an OR query
// every occurrence of a word is a cover of its own, so ts_rank_cd is a
// weighted count of occurrences: a chunk that repeats one word outranks
// one that has all of them. ts_rank counts a word's best-weighted
// occurrence in full and the others ever less (1/n²), as bm25 saturates
// term frequency on SQLite's side. It is also a third of the cost per
// matching chunk (2.5 µs against 8 µs), and ranking every match was most
// of the query's time at 100,000 chunks. The matches are read through
// chunks_tsv with the scope's workspace test repeated in the form that
// index holds (ARRAY[workspace] && ..., migration 007), so that those of
// other workspaces are not fetched only to be filtered out.
var hybridSQL = `WITH vec AS MATERIALIZED (
	SELECT id, channel, embedding <=> $1::vector AS dist
	FROM chunks
	WHERE $1::vector IS NOT NULL AND ` + scopeSQL + `
	ORDER BY embedding <=> $1::vector
	LIMIT $5
), vec_ranked AS (
	SELECT id, channel, row_number() OVER (ORDER BY dist, id) AS rank
	FROM vec WHERE dist < 1
), words AS (
	SELECT t.lexeme, t.lexeme IN (
		SELECT e.elem
		FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e (elem, freq)
		WHERE s.schemaname = current_schema() AND s.tablename = 'chunks' AND s.attname = 'tsv'
			AND e.elem IS NOT NULL AND e.freq > ` + commonFraction + `
	) AS common
	FROM unnest(to_tsvector('english', $2::text)) AS t
), query AS (
	SELECT string_agg('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | ')::tsquery AS q
	FROM words
	WHERE NOT common OR NOT EXISTS (SELECT 1 FROM words WHERE NOT common)
), txt AS MATERIALIZED (
	SELECT id, channel, row_number() OVER (ORDER BY ts_rank(tsv, (SELECT q FROM query)) DESC, id) AS rank
	FROM chunks
	WHERE $2::text IS NOT NULL AND tsv @@ (SELECT q FROM query) AND ARRAY[workspace] && ARRAY[$3::text, '']
		AND ` + scopeSQL + `
	ORDER BY rank
	LIMIT $5
), fused AS (
	SELECT id, (sum(1.0 / (` + strconv.Itoa(retrieval.RRFK) + ` + rank)) -- RRFK: the RRF paper's k
		+ CASE WHEN $7 <> '' AND channel = $7 THEN ` + strconv.FormatFloat(retrieval.PreferBonus, 'g', -1, 64) + ` ELSE 0 END)::float8 AS score
	FROM (SELECT id, channel, rank FROM vec_ranked UNION ALL SELECT id, channel, rank FROM txt) r
	GROUP BY id, channel
	ORDER BY score DESC, id
	LIMIT $6
)
SELECT f.score, c.idx, c.heading, c.content, d.workspace, d.key, d.title, d.location, d.metadata,
	c.location, c.metadata
FROM fused f
JOIN chunks c ON c.id = f.id
JOIN documents d ON d.id = c.document_id
ORDER BY f.score DESC, f.id`

// searchSettings are the transaction's settings for hybridSQL ($1 is
// ef_search). Iterative scanning keeps reading the HNSW graph until enough
// rows pass the scope filter (without it a filter can starve the result);
// relaxed order because the query ranks by exact distance afterwards.
// Custom plans, because the best plan depends on the parameters: whether
// there is a vector or a text query at all, and how much the scope keeps.
const searchSettings = `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),
	set_config('hnsw.ef_search', $1, true),
	set_config('plan_cache_mode', 'force_custom_plan', true)`

// Retrieve returns up to req.Limit chunks (default 6) for req.Query (or,
// when it is empty, req.Question), best first, that req.Scope may see.
// Score is the fused RRF score. When the query cannot be embedded the
// keyword ranking alone is used rather than failing the run.
func (r *Retriever) Retrieve(ctx context.Context, req agent.Request) ([]agent.Document, error) {
	query, limit, pool := retrieval.Query(req)
	if query == "" {
		return nil, nil
	}

	var vec any // NULL: no vector ranking
	if v, ok := r.embedQuery(ctx, query); ok {
		vec = pgvector.NewVector(v)
	}
	if err := ctx.Err(); err != nil {
		// Not the embedder's failure: the run is over.
		return nil, fmt.Errorf("postgres: retrieve %.80q: %w", query, err)
	}
	var text any // NULL: no text ranking
	if q := queryWords(query); q != "" {
		text = q
	}
	if vec == nil && text == nil {
		return nil, nil
	}
	docs, err := r.search(ctx, vec, text, req.Scope, pool, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: retrieve %.80q: %w", query, err)
	}
	return docs, nil
}

// search runs hybridSQL in a transaction with its settings, all sent as
// one batch: one round trip.
func (r *Retriever) search(ctx context.Context, vec, text any, sc agent.Scope, pool, limit int) ([]agent.Document, error) {
	ef := min(max(r.db.opts.EfSearch, pool), maxEfSearch)
	var docs []agent.Document
	var b pgx.Batch
	b.Queue(`BEGIN READ ONLY`)
	b.Queue(searchSettings, strconv.Itoa(ef))
	b.Queue(hybridSQL, vec, text, sc.Workspace, sc.Channel, pool, limit, sc.Prefer).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			d, err := scanDocument(rows)
			if err != nil {
				return err
			}
			docs = append(docs, d)
		}
		return rows.Err()
	})
	b.Queue(`COMMIT`)
	// On an error the transaction is left aborted and the pool discards
	// the connection rather than reuse it.
	if err := r.db.pool.SendBatch(ctx, &b).Close(); err != nil {
		return nil, err
	}
	return docs, nil
}

// scanDocument reads one row of hybridSQL as an agent.Document, shaped as
// the SQLite store shapes it: the heading above the content and in
// Section, and the document key and chunk index in the metadata.
func scanDocument(rows pgx.Rows) (agent.Document, error) {
	var (
		score float64
		c     retrieval.Chunk
	)
	if err := rows.Scan(&score, &c.Index, &c.Heading, &c.Content, &c.Workspace, &c.Key, &c.Title,
		&c.DocLocation, &c.DocMetadata, &c.Location, &c.Metadata); err != nil {
		return agent.Document{}, fmt.Errorf("read chunk: %w", err)
	}
	d, err := c.Document()
	if err != nil {
		return agent.Document{}, fmt.Errorf("read chunk: %w", err)
	}
	d.Score = score
	return d, nil
}

// embedQuery embeds the query; ok is false when there is no embedder, it
// failed, or its vector cannot be compared with the stored ones. Failures
// are logged: the keyword ranking still answers.
func (r *Retriever) embedQuery(ctx context.Context, query string) ([]float32, bool) {
	if r.emb == nil {
		return nil, false
	}
	v, err := retrieval.EmbedQuery(ctx, r.emb, query)
	switch {
	case err != nil:
	case len(v) != r.db.opts.EmbeddingDim:
		// The embedder was changed without re-ingesting; CheckEmbedding
		// reports this at start-up.
		err = fmt.Errorf("query vector has %d dimensions, the store %d", len(v), r.db.opts.EmbeddingDim)
	case !usable(v):
		// pgvector refuses NaN and infinity, and a zero vector's cosine
		// distance to anything is undefined.
		err = fmt.Errorf("query vector is zero or not finite")
	}
	if err != nil {
		if ctx.Err() == nil {
			r.db.opts.Logger.WarnContext(ctx, "postgres: query not embedded, keyword search only", "err", err)
			r.db.opts.Logger.DebugContext(ctx, "postgres: query not embedded", "query", query) // the asker's words: debug only
		}
		return nil, false
	}
	return v, true
}

// usable reports whether v is finite and not zero.
func usable(v []float32) bool {
	nonzero := false
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
		nonzero = nonzero || x != 0
	}
	return nonzero
}
