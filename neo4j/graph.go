// Package neo4j is the production knowledge graph: the nodes and edges of
// package kb stored in Neo4j, the graph route's retriever, and the guarded
// execution of Cypher written by a language model.
//
// Every node carries the label Entity besides its own (Customer, Supplier,
// …), so that one uniqueness constraint covers all ids and one index all
// names; relationships carry the type of the kb.Edge. Where a fact came
// from is kept on it: node.source, relationship.origin.
//
// Generated Cypher cannot write (docs/DESIGN.md, rule 5): RunReadOnly refuses it
// unless a static guard, the planner (EXPLAIN must say read-only) and a
// read-access session with a timeout all agree. See RunReadOnly.
package neo4j

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	neo4jdrv "github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"

	"github.com/switchboard/switchboard/graphwalk"
	"github.com/switchboard/switchboard/internal/breaker"
	"github.com/switchboard/switchboard/internal/retry"
	"github.com/switchboard/switchboard/migrations"
)

// Defaults for the zero values of Config.
const (
	DefaultQueryTimeout    = 10 * time.Second
	DefaultMaxRows         = 50
	DefaultCacheTTL        = 5 * time.Minute
	DefaultMaxSchemaLabels = 30
	DefaultReadBudget      = 5 * time.Second
	DefaultCircuitFailures = 3
	DefaultCircuitCooldown = 30 * time.Second
)

// Config says how to reach Neo4j. cmd/bot fills it from flags and the
// environment; nothing in this package reads the environment.
type Config struct {
	URI      string // bolt://host:7687, neo4j://… for a cluster, neo4j+s://… for Aura
	User     string // "" connects without authentication
	Password string
	Database string // "" is the server's default database

	// QueryTimeout bounds every read: the generated Cypher, EXPLAIN and
	// the retriever's own queries. Zero means 10s.
	QueryTimeout time.Duration
	// MaxRows bounds the rows generated Cypher returns. Zero means 50.
	MaxRows int
	// CacheTTL is how long the introspected schema is reused (writes
	// through this Graph refresh it at once). Zero means 5 minutes.
	CacheTTL time.Duration
	// MaxSchemaLabels is the number of labels above which the schema shown
	// to the Cypher writer is trimmed to what the question mentions. Zero
	// means 30.
	MaxSchemaLabels int
	// ReadBudget bounds how long one read may spend reaching a server that
	// does not answer: connecting, waiting for a pooled connection and
	// retrying. A graph question gives up at its first read that could not
	// reach the server (see reach). Zero means 5s.
	ReadBudget time.Duration
	// CircuitFailures is how many reads in a row that could not reach the
	// server open the circuit: reads then fail at once, without touching
	// the network, for CircuitCooldown, after which one probe read is let
	// through. Zero means 3; negative turns the breaker off.
	CircuitFailures int
	// CircuitCooldown is how long an open circuit waits before it lets a
	// read through as a probe. Zero means 30s. While it is open the Graph
	// also runs RETURN 1 every second in the background (as Ping does),
	// and the first that succeeds closes it: a Neo4j that is back is used
	// again at once.
	CircuitCooldown time.Duration
	// OnCircuitChange, if set, hears the circuit's changes of state (for
	// metrics), besides the log. It is called with the breaker's lock held
	// and must be quick.
	OnCircuitChange func(CircuitState)
	// Now and Sleep are the Graph's clock: of the read budget and its
	// back-off, of the circuit's cool-down and of the waits between its
	// probes, and of the schema cache. nil means the time of day and a
	// timer; tests pass a fake clock.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger hears about refused Cypher and the retriever's fallbacks;
	// nil discards.
	Logger *slog.Logger
}

// Graph is a knowledge graph stored in Neo4j. It is safe for concurrent use.
type Graph struct {
	drv neo4jdrv.DriverWithContext
	cfg Config
	log *slog.Logger
	// now and sleep are the clock of the read budget, the circuit breaker
	// and the schema cache; tests replace them.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	circuit *circuit // nil: no breaker

	names graphwalk.IndexCache // entity names, for MatchEntities and the walk

	mu        sync.Mutex
	schema    *Schema // nil until first needed
	schemaAt  time.Time
	schemaVer string
}

// Open connects to Neo4j and checks that the server answers. It does not
// change the database: run Migrate for that.
func Open(ctx context.Context, cfg Config) (*Graph, error) {
	if cfg.URI == "" {
		return nil, errors.New("neo4j: no URI configured")
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	if cfg.MaxRows <= 0 {
		cfg.MaxRows = DefaultMaxRows
	}
	if cfg.CacheTTL <= 0 {
		cfg.CacheTTL = DefaultCacheTTL
	}
	if cfg.MaxSchemaLabels <= 0 {
		cfg.MaxSchemaLabels = DefaultMaxSchemaLabels
	}
	if cfg.ReadBudget <= 0 {
		cfg.ReadBudget = DefaultReadBudget
	}
	if cfg.CircuitFailures == 0 {
		cfg.CircuitFailures = DefaultCircuitFailures
	}
	if cfg.CircuitCooldown <= 0 {
		cfg.CircuitCooldown = DefaultCircuitCooldown
	}
	auth := neo4jdrv.NoAuth()
	if cfg.User != "" {
		auth = neo4jdrv.BasicAuth(cfg.User, cfg.Password, "")
	}
	drv, err := neo4jdrv.NewDriverWithContext(cfg.URI, auth, func(c *config.Config) {
		// The driver's defaults wait up to 5 s for a TCP connection and a
		// minute for a pooled one; a read has ReadBudget for all of it.
		// Writes keep the driver's retries (MaxTransactionRetryTime):
		// imports are worth waiting for, questions are not, and reads do
		// not use the driver's retries (see reach).
		c.SocketConnectTimeout = cfg.ReadBudget
		c.ConnectionAcquisitionTimeout = cfg.ReadBudget
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: open %s: %w", cfg.URI, err)
	}
	if err := drv.VerifyConnectivity(ctx); err != nil {
		_ = drv.Close(ctx)
		return nil, fmt.Errorf("neo4j: connect to %s: %w", cfg.URI, err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = retry.Sleep
	}
	g := &Graph{drv: drv, cfg: cfg, log: log, now: cfg.Now, sleep: cfg.Sleep}
	if cfg.CircuitFailures > 0 {
		g.circuit = newCircuit(breaker.Config{Failures: cfg.CircuitFailures, Cooldown: cfg.CircuitCooldown,
			Now: cfg.Now, OnChange: g.circuitChanged,
			Probe: g.answers, ProbeTimeout: cfg.ReadBudget, Sleep: cfg.Sleep})
	}
	return g, nil
}

// circuitChanged logs the breaker's moves and tells OnCircuitChange; it
// runs with the breaker's lock held, so it does nothing else.
func (g *Graph) circuitChanged(s CircuitState) {
	switch s {
	case CircuitOpen:
		g.log.Warn("neo4j: circuit open: graph reads fail at once until a probe succeeds",
			"failures", g.cfg.CircuitFailures, "cooldown", g.cfg.CircuitCooldown)
	case CircuitHalfOpen:
		g.log.Info("neo4j: circuit half-open: probing the server")
	case CircuitClosed:
		g.log.Info("neo4j: circuit closed: the server answers again")
	}
	if g.cfg.OnCircuitChange != nil {
		g.cfg.OnCircuitChange(s)
	}
}

// Close stops the circuit's probes and releases the driver's connections.
func (g *Graph) Close(ctx context.Context) error {
	g.circuit.stop()
	if err := g.drv.Close(ctx); err != nil {
		return fmt.Errorf("neo4j: close: %w", err)
	}
	return nil
}

// session opens a session in mode. All sessions share the driver's
// ExecuteQuery bookmark manager, so that in a cluster a read made after a
// write of this process sees it.
func (g *Graph) session(ctx context.Context, mode neo4jdrv.AccessMode) neo4jdrv.SessionWithContext {
	return g.drv.NewSession(ctx, neo4jdrv.SessionConfig{
		AccessMode:      mode,
		DatabaseName:    g.cfg.Database,
		BookmarkManager: g.drv.ExecuteQueryBookmarkManager(),
	})
}

// read runs one of this package's own read queries and returns all its
// records. The queries are written here, never by a model, so they only
// get the read-access session and the timeout, not the guard. It is an
// auto-commit query rather than ExecuteRead, whose retries would run for
// 30 s on a server that is down: reach retries it within ReadBudget.
func (g *Graph) read(ctx context.Context, cypher string, params map[string]any) ([]*neo4jdrv.Record, error) {
	var recs []*neo4jdrv.Record
	err := g.reach(ctx, true, func(ctx context.Context) error {
		s := g.session(ctx, neo4jdrv.AccessModeRead)
		defer s.Close(ctx)
		res, err := s.Run(ctx, cypher, params, neo4jdrv.WithTxTimeout(g.cfg.QueryTimeout))
		if err != nil {
			return err
		}
		recs, err = res.Collect(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// write runs work in one write transaction, retried by the driver on
// transient errors (work must be idempotent, as MERGE is), and marks the
// graph as changed in the same transaction.
func (g *Graph) write(ctx context.Context, work func(tx neo4jdrv.ManagedTransaction) error) error {
	s := g.session(ctx, neo4jdrv.AccessModeWrite)
	defer s.Close(ctx)
	_, err := s.ExecuteWrite(ctx, func(tx neo4jdrv.ManagedTransaction) (any, error) {
		if err := work(tx); err != nil {
			return nil, err
		}
		// A random version rather than a counter: a graph wiped and
		// rebuilt must not come back to a version a cache has seen.
		_, err := tx.Run(ctx, `MERGE (m:_Meta {key: 'graph'}) SET m.version = randomUUID()`, nil)
		return nil, err
	})
	if err != nil {
		return err
	}
	// This process's caches are stale at once; other processes notice the
	// new version on their next read.
	g.names.Reset()
	g.mu.Lock()
	g.schema = nil
	g.mu.Unlock()
	return nil
}

// version returns the graph's version: it changes with every write made
// through any Graph, in any process.
func (g *Graph) version(ctx context.Context) (string, error) {
	recs, err := g.read(ctx, `OPTIONAL MATCH (m:_Meta {key: 'graph'}) RETURN m.version AS v`, nil)
	if err != nil {
		return "", fmt.Errorf("graph version: %w", err)
	}
	if len(recs) == 0 {
		return "", nil
	}
	v, _ := recs[0].Values[0].(string)
	return v, nil
}

// Migrate applies the migrations in migrations.Neo4j (neo4j/NNN_name.cypher)
// that have not been applied yet, in name order, and records each in a
// (:_Migration {name}) node.
//
// Neo4j cannot change the schema and write data in one transaction, so a
// migration is not atomic: each statement (statements end with ";") runs
// on its own and the migration is recorded after the last. The files
// therefore use IF NOT EXISTS everywhere, and a migration interrupted
// half way is simply run again. Several instances starting together may
// run the same migration at once, which IF NOT EXISTS also makes harmless.
func (g *Graph) Migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations.Neo4j, "neo4j/*.cypher")
	if err != nil {
		return fmt.Errorf("neo4j: migrate: %w", err)
	}
	sort.Strings(names)
	recs, err := g.read(ctx, `MATCH (m:_Migration) RETURN m.name AS name`, nil)
	if err != nil {
		return fmt.Errorf("neo4j: migrate: read applied migrations: %w", err)
	}
	applied := map[string]bool{}
	for _, r := range recs {
		name, _ := r.Values[0].(string)
		applied[name] = true
	}
	for _, path := range names {
		name := strings.TrimPrefix(path, "neo4j/")
		if applied[name] {
			continue
		}
		src, err := fs.ReadFile(migrations.Neo4j, path)
		if err != nil {
			return fmt.Errorf("neo4j: migrate %s: %w", name, err)
		}
		if err := g.apply(ctx, name, string(src)); err != nil {
			return fmt.Errorf("neo4j: migrate %s: %w", name, err)
		}
	}
	return nil
}

// apply runs the statements of one migration file and records it.
func (g *Graph) apply(ctx context.Context, name, src string) error {
	s := g.session(ctx, neo4jdrv.AccessModeWrite)
	defer s.Close(ctx)
	for i, stmt := range statements(src) {
		res, err := s.Run(ctx, stmt, nil)
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err != nil {
			return fmt.Errorf("statement %d: %w", i+1, err)
		}
	}
	res, err := s.Run(ctx, `MERGE (m:_Migration {name: $name}) ON CREATE SET m.applied_at = datetime()`,
		map[string]any{"name": name})
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		return fmt.Errorf("record migration: %w", err)
	}
	return nil
}

// statements splits a migration file into statements: lines starting with
// "//" are comments, and a statement ends with a ";" at the end of a line.
// The files are ours, so this does not need to understand Cypher strings.
func statements(src string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		cur.WriteString(t + "\n")
		if strings.HasSuffix(t, ";") {
			if stmt := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(cur.String()), ";")); stmt != "" {
				out = append(out, stmt)
			}
			cur.Reset()
		}
	}
	if stmt := strings.TrimSpace(cur.String()); stmt != "" {
		out = append(out, stmt)
	}
	return out
}

// Ping checks that the database answers a read, for readiness checks: it
// runs the circuit's probe (see answers), outside the circuit, and its
// success closes an open circuit, so that a Neo4j that /readyz finds back
// is used again by graph questions at once.
func (g *Graph) Ping(ctx context.Context) error {
	if err := g.circuit.check(ctx, g.answers); err != nil {
		return fmt.Errorf("neo4j: %w", err)
	}
	return nil
}
