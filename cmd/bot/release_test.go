package main

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The Dockerfile has no Docker engine to test it here, so the test checks
// what the image depends on: its build stage runs the project's release
// build, and that build makes a static binary that prints the version it
// was given.
func TestReleaseBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("checks a Linux ELF binary")
	}
	if got := dockerfileBuild(t); got != "scripts/build.sh" {
		t.Fatalf("the Dockerfile builds with %q; it must RUN scripts/build.sh, the release build", got)
	}
	make, err := os.ReadFile("../../Makefile")
	if err != nil || !strings.Contains(string(make), "scripts/build.sh") {
		t.Errorf("make build does not run scripts/build.sh (%v)", err)
	}

	bin := filepath.Join(t.TempDir(), "switchboard")
	cmd := exec.Command("bash", "../../scripts/build.sh")
	cmd.Env = append(os.Environ(), "OUT="+bin, "VERSION=v9.8.7-test", "COMMIT=0123abc", "DATE=2025-01-02T03:04:05Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/build.sh: %v\n%s", err, out)
	}

	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary has a %v program header: it is dynamically linked", p.Type)
		}
	}
	if f.Section(".dynamic") != nil || f.Section(".interp") != nil {
		t.Error("the binary has a .dynamic or .interp section: it is dynamically linked")
	}

	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("switchboard version: %v\n%s", err, out)
	}
	if want := "switchboard v9.8.7-test (commit 0123abc, built 2025-01-02T03:04:05Z)"; strings.TrimSpace(string(out)) != want {
		t.Errorf("switchboard version printed %q, want %q", out, want)
	}
}

// dockerfileBuild returns the command of the Dockerfile's RUN line that
// builds the binary: the one that mentions a build script or go build.
func dockerfileBuild(t *testing.T) string {
	t.Helper()
	f, err := os.Open("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var found []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cmd, ok := strings.CutPrefix(line, "RUN "); ok && (strings.Contains(cmd, "build.sh") || strings.Contains(cmd, "go build") || strings.Contains(cmd, "make")) {
			found = append(found, strings.TrimSpace(cmd))
		}
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one build step in the Dockerfile, found %q", found)
	}
	return found[0]
}
