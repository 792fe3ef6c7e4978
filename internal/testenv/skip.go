package testenv

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// skipNotice is printed at most once per test binary, that is once per
// package, and at most once per `go test` run (see firstInRun).
var skipNotice sync.Once

// skip skips t because a test service is not configured, and says so once
// where the person running the tests sees it. go test hides everything a
// passing package prints, skip reasons included, unless -v; without the
// notice `go test ./...` would pass quietly with the store tests not run.
func skip(t testing.TB, reason string) {
	t.Helper()
	skipNotice.Do(func() {
		if !firstInRun() {
			return
		}
		var missing []string
		for _, v := range []string{"TEST_DATABASE_URL", "TEST_NEO4J_URI"} {
			if os.Getenv(v) == "" {
				missing = append(missing, v)
			}
		}
		w, closeW := noticeWriter()
		defer closeW()
		fmt.Fprintf(w, "testenv: %s not set: the PostgreSQL/Neo4j store tests are skipped; start the services with eval \"$(scripts/services.sh start)\" (docs/SERVICES.md)\n",
			strings.Join(missing, " and "))
	})
	t.Skip(reason)
}

// noticeWriter is where the person running go test reads the notice. go
// test shows nothing of what a passing package prints in package list
// mode (`go test ./...`), not even on a terminal, so the notice goes to
// the go command's own stderr, reached as this process's parent's (on
// Linux, /proc): a terminal, a pipe or a CI log alike. When that is not
// reachable, or is a regular file (a shell's `2> log` writes at an offset
// of its own, which would write over the notice), the terminal, if there
// is one; else stderr, shown with -v and on failure.
func noticeWriter() (io.Writer, func()) {
	if f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/2", os.Getppid()), os.O_WRONLY|os.O_APPEND, 0); err == nil {
		if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
			return f, func() { f.Close() }
		}
		f.Close()
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		return tty, func() { tty.Close() }
	}
	return os.Stderr, func() {}
}

// firstInRun reports whether no other test binary of the same `go test`
// run (the same parent process) has printed the notice yet, using a marker
// file named after the parent's pid. A marker older than a day is left
// from an earlier process that had the same pid.
func firstInRun() bool {
	marker := filepath.Join(os.TempDir(), fmt.Sprintf("switchboard-testenv-skip-%d", os.Getppid()))
	if fi, err := os.Stat(marker); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
		os.Remove(marker)
	}
	f, err := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return !os.IsExist(err) // another binary printed it; any other error: print
	}
	f.Close()
	return true
}
