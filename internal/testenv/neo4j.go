package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	neo4jdrv "github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// neo4jLockWait bounds how long a test waits for another to finish with
// Neo4j before failing, so that a hung test elsewhere shows up as a
// failure here rather than as a silent stall until go test's timeout.
const neo4jLockWait = 5 * time.Minute

// Neo4jURI returns the URI of the test Neo4j server (TEST_NEO4J_URI;
// authentication disabled, as scripts/services.sh starts it) after making
// the test its only user and emptying it.
//
// Neo4j Community has a single database, and go test runs the test
// binaries of several packages at once, so tests cannot be kept apart the
// way PostgresURL keeps them apart with schemas. Instead Neo4jURI takes an
// exclusive lock (flock on a file in os.TempDir(), shared by every test
// process on the machine) that is held until the test and its cleanups
// end, then deletes every node and relationship: each test starts from an
// empty graph and nothing it writes can be seen by another. Constraints
// and indexes are kept (see wipeNeo4j).
//
// Call it once per test, from the test that needs the database: a second
// call while the first test holds the lock, such as from a subtest, waits
// for itself and fails after five minutes.
//
// Without TEST_NEO4J_URI the test is skipped, or fails under CI=true.
func Neo4jURI(t testing.TB) string {
	t.Helper()
	uri := os.Getenv("TEST_NEO4J_URI")
	if uri == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("TEST_NEO4J_URI not set; CI must run the Neo4j tests (scripts/services.sh)")
		}
		skip(t, "TEST_NEO4J_URI not set; run scripts/services.sh")
	}
	unlock, err := lockNeo4j()
	if err != nil {
		t.Fatalf("lock the test Neo4j: %v", err)
	}
	// Registered first, so it runs last: after the test's own cleanups
	// have closed their drivers.
	t.Cleanup(unlock)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := wipeNeo4j(ctx, uri); err != nil {
		t.Fatalf("empty the test Neo4j: %v", err)
	}
	return uri
}

// lockNeo4j takes the machine-wide Neo4j test lock. flock locks belong to
// an open file, so two tests of one process exclude each other too.
func lockNeo4j() (unlock func(), err error) {
	path := filepath.Join(os.TempDir(), "switchboard-neo4j-test.lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(neo4jLockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			f.Close()
			return nil, fmt.Errorf("flock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("another test has held %s for %v", path, neo4jLockWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// wipeNeo4j deletes every node and relationship. Constraints and indexes
// stay: they are what migrations create, every test applies the same ones
// idempotently, and dropping them would flush Neo4j's query plan cache,
// which makes the suite several times slower. A test that needs an empty
// schema drops it itself while it holds the lock.
func wipeNeo4j(ctx context.Context, uri string) error {
	drv, err := neo4jdrv.NewDriverWithContext(uri, neo4jdrv.NoAuth())
	if err != nil {
		return err
	}
	defer drv.Close(ctx)
	s := drv.NewSession(ctx, neo4jdrv.SessionConfig{AccessMode: neo4jdrv.AccessModeWrite})
	defer s.Close(ctx)
	res, err := s.Run(ctx, `MATCH (n) DETACH DELETE n`, nil)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	return err
}
