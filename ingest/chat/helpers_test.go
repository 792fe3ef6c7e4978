package chat_test

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/ingest/extract"
	"github.com/switchboard/switchboard/ingest/slackhist"
	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/postgres"
	"github.com/switchboard/switchboard/sqlite"
)

// testDim is the embedder's dimension in these tests.
const testDim = 16

// hashEmbedder is a deterministic local embedder that counts its calls
// and can cancel a context after a number of calls, to interrupt a run.
type hashEmbedder struct {
	calls    atomic.Int64
	texts    atomic.Int64
	cancel   func() // called when calls reaches cancelAt
	cancelAt int64
}

func (e *hashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	n := e.calls.Add(1)
	e.texts.Add(int64(len(texts)))
	if e.cancel != nil && n == e.cancelAt {
		e.cancel()
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, testDim)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%testDim]++
		}
		v[0] += 0.5 // never the zero vector
		out[i] = v
	}
	return out, nil
}

// backend is a document store under test, with a way to read back what
// it holds.
type backend struct {
	name string
	docs interface {
		ingest.DocumentStore
		chat.Store
	}
	cursors chat.Cursors
	graph   extract.GraphWriter // nil on PostgreSQL (the graph is Neo4j's)
	// chunks returns every stored chunk: document key → chunk contents in
	// order, and each document's channel and privacy.
	chunks func(t *testing.T) (map[string][]string, map[string]string)
	// reopen returns a backend on the same database, as a new process
	// would see it.
	reopen func(t testing.TB) *backend
	// retriever searches the store as answers do (keyword search only).
	retriever agent.Retriever
}

func sqliteBackend(t testing.TB) *backend {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kb.db")
	var open func(t testing.TB) *backend
	open = func(t testing.TB) *backend {
		db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return &backend{
			name: "sqlite", docs: sqlite.NewDocumentStore(db, "hash"), cursors: sqlite.NewCursors(db),
			graph: sqlite.NewGraphStore(db), retriever: sqlite.NewRetriever(db, nil),
			chunks: func(t *testing.T) (map[string][]string, map[string]string) {
				raw, err := sql.Open("sqlite", path)
				if err != nil {
					t.Fatal(err)
				}
				defer raw.Close()
				return readChunks(t, func(q string) (rows, error) { return raw.Query(q) })
			},
			reopen: open,
		}
	}
	return open(t)
}

func postgresBackend(t testing.TB) *backend {
	t.Helper()
	url := testenv.PostgresURL(t)
	var open func(t testing.TB) *backend
	open = func(t testing.TB) *backend {
		ctx := context.Background()
		db, err := postgres.Open(ctx, url, postgres.Options{EmbeddingDim: testDim, Embedder: "hash"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		return &backend{
			name: "postgres", docs: postgres.NewDocumentStore(db), cursors: postgres.NewCursors(db),
			retriever: postgres.NewRetriever(db, nil),
			chunks: func(t *testing.T) (map[string][]string, map[string]string) {
				conn, err := pgx.Connect(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				return readChunks(t, func(q string) (rows, error) {
					r, err := conn.Query(ctx, q)
					return pgRows{r}, err
				})
			},
			reopen: open,
		}
	}
	return open(t)
}

type rows interface {
	Next() bool
	Scan(...any) error
	Close() error
	Err() error
}

type pgRows struct{ pgx.Rows }

func (r pgRows) Close() error { r.Rows.Close(); return nil }

func readChunks(t *testing.T, query func(string) (rows, error)) (map[string][]string, map[string]string) {
	t.Helper()
	r, err := query(`SELECT d.key, d.channel, d.private, c.content FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.key, c.idx`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	chunks, scope := map[string][]string{}, map[string]string{}
	for r.Next() {
		var key, channel, content string
		var private bool
		if err := r.Scan(&key, &channel, &private, &content); err != nil {
			t.Fatal(err)
		}
		chunks[key] = append(chunks[key], content)
		scope[key] = fmt.Sprintf("%s private=%v", channel, private)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return chunks, scope
}

// backends runs f on SQLite and on PostgreSQL.
func backends(t *testing.T, f func(t *testing.T, b func(testing.TB) *backend)) {
	t.Run("sqlite", func(t *testing.T) { f(t, sqliteBackend) })
	t.Run("postgres", func(t *testing.T) { f(t, postgresBackend) })
}

// channelSpec describes a generated channel.
type channelSpec struct {
	id, name string
	private  bool
	messages int // in all, replies included
	threads  int
	days     int
	start    time.Time
}

// generated is what a generated channel holds, for checking.
type generated struct {
	texts   []string          // every message's text
	threads []string          // the threads' first ts
	byText  map[string]string // text → ts
}

// generate fills a fake Slack channel: spec.threads threads of equal
// length and standalone messages between them, spread evenly over
// spec.days days, authored by five people. Every text is unique.
func generate(fake *slacktest.Server, spec channelSpec) generated {
	fake.AddChannel(spec.id, spec.name, spec.private)
	for i, n := range []string{"Alice", "Bob", "Carol", "Dan", "Eve"} {
		fake.AddUser(fmt.Sprintf("U%d", i+1), n)
	}
	g := generated{byText: map[string]string{}}
	perThread := 0
	if spec.threads > 0 {
		perThread = spec.messages / 2 / spec.threads // half of the messages are in threads
	}
	standalone := spec.messages - perThread*spec.threads
	units := standalone + spec.threads // a thread is posted as one unit
	step := time.Duration(spec.days) * 24 * time.Hour / time.Duration(max(units, 1))
	at := spec.start
	threadEvery := max(units/max(spec.threads, 1), 1)
	posted, threads := 0, 0
	for u := 0; u < units; u++ {
		user := fmt.Sprintf("U%d", u%5+1)
		if threads < spec.threads && u%threadEvery == threadEvery-1 {
			text := fmt.Sprintf("%s thread %d starts with message %d about topic%d", spec.name, threads, posted, threads)
			ts := fake.PostAt(spec.id, user, text, at)
			g.add(text, ts)
			g.threads = append(g.threads, ts)
			for r := 1; r < perThread; r++ {
				rt := fmt.Sprintf("%s reply %d in thread %d, message %d", spec.name, r, threads, posted+r)
				g.add(rt, fake.ReplyAt(spec.id, ts, fmt.Sprintf("U%d", (u+r)%5+1), rt, at.Add(time.Duration(r)*time.Second)))
			}
			posted += perThread
			threads++
		} else {
			text := fmt.Sprintf("%s standalone message %d says hello", spec.name, posted)
			g.add(text, fake.PostAt(spec.id, user, text, at))
			posted++
		}
		at = at.Add(step)
	}
	// Whatever is left for lack of threads is posted standalone.
	for ; posted < spec.messages; posted++ {
		text := fmt.Sprintf("%s late message %d", spec.name, posted)
		g.add(text, fake.PostAt(spec.id, "U1", text, at))
		at = at.Add(time.Second)
	}
	return g
}

func (g *generated) add(text, ts string) {
	g.texts = append(g.texts, text)
	g.byText[text] = ts
}

// newIngester wires an Ingester for the fake Slack and a backend.
func newIngester(t testing.TB, fake *slacktest.Server, b *backend, emb *hashEmbedder) *chat.Ingester {
	t.Helper()
	src, err := slackhist.New(slackhist.Config{BotToken: fake.BotToken, APIURL: fake.APIURL()})
	if err != nil {
		t.Fatal(err)
	}
	in := &chat.Ingester{
		Source:   src,
		Pipeline: &ingest.Pipeline{Store: b.docs, Embedder: emb},
		Store:    b.docs,
		Cursors:  b.cursors,
	}
	if b.graph != nil {
		in.Graph = &extract.Graph{Extractor: extract.Rules{Schema: extract.DefaultSchema()}, Writer: b.graph}
	}
	return in
}

// occurrences counts, for every text, the stored chunks' lines that end
// with it ("Author: text").
func occurrences(chunks map[string][]string, texts []string) map[string]int {
	want := map[string]bool{}
	for _, t := range texts {
		want[t] = true
	}
	got := map[string]int{}
	for _, cs := range chunks {
		for _, c := range cs {
			for _, line := range strings.Split(c, "\n") {
				if _, text, ok := strings.Cut(line, ": "); ok && want[text] {
					got[text]++
				}
			}
		}
	}
	return got
}

// checkEachOnce fails unless every text is stored exactly once.
func checkEachOnce(t *testing.T, chunks map[string][]string, texts []string) {
	t.Helper()
	got := occurrences(chunks, texts)
	var missing, doubled []string
	for _, text := range texts {
		switch n := got[text]; {
		case n == 0:
			missing = append(missing, text)
		case n > 1:
			doubled = append(doubled, fmt.Sprintf("%s (%d times)", text, n))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 || len(doubled) > 0 {
		t.Fatalf("%d of %d messages missing (first: %.3q), %d stored more than once (first: %.3q)",
			len(missing), len(texts), missing, len(doubled), doubled)
	}
}

// progressLog records Progress calls.
type progressLog struct {
	mu    sync.Mutex
	calls []chat.Progress
}

func (p *progressLog) add(pr chat.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, pr)
}
