package main

import (
	"bufio"
	"debug/elf"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// The Dockerfile has no Docker engine to test it here, so the test checks
// what the image depends on: its build stage runs the project's release
// build, and that build makes a static binary that prints the version it
// was given.
//
// The build itself runs only when this test binary was built as the
// release build is (releaseLike): then every package it links is in the
// build cache already and the build compiles package main and links, a
// few seconds. Built otherwise, such as by a plain `go test ./...` with a
// C compiler (cgo on, no -trimpath), it would compile the whole module and
// its dependencies a second time, most of a cold first run; it then says
// how to run it, and CI (.ci/run builds everything as the release does)
// must.
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
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary has no build information")
	}
	if why := releaseLike(bi.Settings); why != "" {
		msg := "the release build is checked when the tests are built as it is (CGO_ENABLED=0 GOFLAGS=-trimpath go test ./cmd/bot, as .ci/run does); these were built " + why
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
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

// releaseLike returns "" when a binary of these build settings was built
// as scripts/build.sh builds the release (CGO_ENABLED=0, -trimpath, no
// race detector, tags or sanitizers), so that the packages the release
// links are the ones compiled for it; else how it differs.
func releaseLike(settings []debug.BuildSetting) string {
	want := map[string]string{"CGO_ENABLED": "0", "-trimpath": "true", "-race": "", "-tags": "", "-asan": "", "-msan": ""}
	got := map[string]string{}
	for _, s := range settings {
		got[s.Key] = s.Value
	}
	var diff []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		v := got[k]
		if v == "" && want[k] == "true" {
			v = "false" // a flag not given
		}
		if v != want[k] && !(want[k] == "" && v == "false") {
			diff = append(diff, fmt.Sprintf("%s=%s", k, v))
		}
	}
	if len(diff) == 0 {
		return ""
	}
	return "with " + strings.Join(diff, ", ")
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

// A plain `go test ./...` (cgo on where there is a C compiler, no
// -trimpath) does not build the release again; CI's build does.
func TestReleaseLike(t *testing.T) {
	set := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{set("CGO_ENABLED", "0", "-trimpath", "true", "GOOS", "linux"), ""},
		{set("CGO_ENABLED", "1"), "with -trimpath=false, CGO_ENABLED=1"},
		{set("CGO_ENABLED", "0", "-trimpath", "true", "-race", "true"), "with -race=true"},
		{set("CGO_ENABLED", "0", "-trimpath", "true", "-tags", "netgo"), "with -tags=netgo"},
	} {
		if got := releaseLike(c.settings); got != c.want {
			t.Errorf("releaseLike(%v) = %q, want %q", c.settings, got, c.want)
		}
	}
}
