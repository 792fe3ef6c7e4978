package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLayoutListsEveryPackage keeps the layout of docs/DESIGN.md true
// (the README links to it): every folder of the module that holds Go code
// is named in it, and every folder it names exists.
var folder = regexp.MustCompile(`^[a-z][a-z0-9]*(/[a-z][a-z0-9]*)*/$`)

func TestLayoutListsEveryPackage(t *testing.T) {
	design, err := os.ReadFile("../../docs/DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(design), "\n## Layout\n")
	if !ok {
		t.Fatal("docs/DESIGN.md has no ## Layout section")
	}
	section, _, _ := strings.Cut(after, "\n## ")
	// Each line of the layout starts with the folders it describes
	// ("ingest/slackhist/, ingest/discordhist/  the readers…").
	named := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		for _, f := range strings.Fields(line) {
			f = strings.TrimSuffix(f, ",")
			if !folder.MatchString(f) {
				break
			}
			named[strings.TrimSuffix(f, "/")] = true
		}
	}
	root := "../.."
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		if !named[dir] {
			t.Errorf("the layout of docs/DESIGN.md does not name %s/", dir)
			named[dir] = true // once per folder
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range named {
		if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
			t.Errorf("the layout of docs/DESIGN.md names %s/, which does not exist", dir)
		}
	}
}
