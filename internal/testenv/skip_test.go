package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// Without the services, the store tests skip and one line says so where
// the person running go test reads: this test binary is run as go test
// runs it, a child of a parent (TestSkipParent, standing for the go
// command) that discards the output of packages that pass, with no
// terminal, as in CI. Two packages of that run skip store tests; the
// notice reaches the parent's stderr, where go test's own output goes,
// once.
func TestSkipNoticeReachesGoTest(t *testing.T) {
	if os.Getenv("TESTENV_SKIP_ROLE") != "" {
		t.Skip("in a child")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the go command's stderr is reached through /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSkipParent$", "-test.v", "-test.count=1")
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "TEST_DATABASE_URL" && k != "TEST_NEO4J_URI" && k != "CI" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "TESTENV_SKIP_ROLE=parent")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal, as in CI
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("parent: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	notice := "testenv: TEST_DATABASE_URL and TEST_NEO4J_URI not set: the PostgreSQL/Neo4j store tests are skipped; "
	if n := strings.Count(stderr.String(), notice); n != 1 {
		t.Errorf("the go command's stderr got %d notices, want 1:\n%s", n, stderr.String())
	}
}

// TestSkipParent stands for the go command of `go test ./...`: it runs
// two packages' tests (TestSkipChild, twice) and shows nothing of their
// output, since they pass.
func TestSkipParent(t *testing.T) {
	if os.Getenv("TESTENV_SKIP_ROLE") != "parent" {
		t.Skip("run by TestSkipNoticeReachesGoTest")
	}
	t.Cleanup(func() {
		os.Remove(filepath.Join(os.TempDir(), fmt.Sprintf("switchboard-testenv-skip-%d", os.Getpid())))
	})
	for range 2 {
		child := exec.Command(os.Args[0], "-test.run=^TestSkipChild$", "-test.v", "-test.count=1")
		child.Env = append(os.Environ(), "TESTENV_SKIP_ROLE=child")
		out, err := child.CombinedOutput()
		if err != nil || strings.Count(string(out), "--- SKIP") < 3 {
			t.Fatalf("child: %v\n%s", err, out)
		}
	}
}

// TestSkipChild is run by TestSkipParent: three tests that skip.
func TestSkipChild(t *testing.T) {
	if os.Getenv("TESTENV_SKIP_ROLE") != "child" {
		t.Skip("run by TestSkipParent")
	}
	t.Run("postgres", func(t *testing.T) { PostgresURL(t) })
	t.Run("postgres again", func(t *testing.T) { PostgresURL(t) })
	t.Run("neo4j", func(t *testing.T) { Neo4jURI(t) })
}
