package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Without the services, a package whose store tests skip prints one line
// saying so, however many tests skip; a second package of the same go test
// run (the same parent process) prints none.
func TestSkipNoticeOncePerRun(t *testing.T) {
	if os.Getenv("TESTENV_SKIP_CHILD") == "1" {
		t.Skip("in the child")
	}
	marker := filepath.Join(os.TempDir(), fmt.Sprintf("switchboard-testenv-skip-%d", os.Getpid()))
	os.Remove(marker)
	t.Cleanup(func() { os.Remove(marker) })
	child := func() string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSkipChild$", "-test.v", "-test.count=1")
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); k != "TEST_DATABASE_URL" && k != "TEST_NEO4J_URI" && k != "CI" {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "TESTENV_SKIP_CHILD=1", "TESTENV_NOTICE=stderr")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return string(out)
	}
	first := child()
	if n := strings.Count(first, "testenv: TEST_DATABASE_URL and TEST_NEO4J_URI not set: "); n != 1 ||
		strings.Count(first, "--- SKIP") < 3 {
		t.Errorf("first package: %d notices:\n%s", n, first)
	}
	if second := child(); strings.Contains(second, "testenv:") {
		t.Errorf("second package printed the notice again:\n%s", second)
	}
}

// TestSkipChild is run by TestSkipNoticeOncePerRun: three tests that skip.
func TestSkipChild(t *testing.T) {
	if os.Getenv("TESTENV_SKIP_CHILD") != "1" {
		t.Skip("run by TestSkipNoticeOncePerRun")
	}
	t.Run("postgres", func(t *testing.T) { PostgresURL(t) })
	t.Run("postgres again", func(t *testing.T) { PostgresURL(t) })
	t.Run("neo4j", func(t *testing.T) { Neo4jURI(t) })
}
