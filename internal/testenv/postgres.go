package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresURL returns a URL for the test PostgreSQL server (from
// TEST_DATABASE_URL) whose search_path puts a new, empty schema first,
// then public, where pgvector's types live. Everything a test creates
// lands in that schema, which is dropped, with its contents, when the test
// ends. Tests of all packages share one database and run in parallel: the
// schema is what keeps them apart.
//
// Without TEST_DATABASE_URL the test is skipped, or fails under CI=true.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv("TEST_DATABASE_URL")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("TEST_DATABASE_URL not set; CI must run the PostgreSQL tests (scripts/services.sh)")
		}
		skip(t, "TEST_DATABASE_URL not set; run scripts/services.sh")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		// Do not print the URL: it may hold a password.
		t.Fatal("TEST_DATABASE_URL is not a postgres:// URL")
	}

	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "t_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := execAdmin(ctx, base, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() {
		// Runs after the cleanups the test registered later, such as
		// closing its pools. CASCADE drops everything the test created.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := execAdmin(ctx, base, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop test schema %s: %v", schema, err)
		}
	})

	q := u.Query()
	// pgx sends query parameters it does not know as run-time settings.
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}

// execAdmin runs one statement on a connection of its own.
func execAdmin(ctx context.Context, url, sql string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}
