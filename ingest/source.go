package ingest

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// KeyPrefix starts the Key of every document loaded from the host's files
// by Files. Keys without it were written by earlier versions, which keyed a
// file by the path as typed ("docs/a.md", "../docs/a.md", "/abs/docs/a.md"
// for one file); see LegacyFiles for how those are taken over.
const KeyPrefix = "file:"

// sourceID is a file's canonical identity: where it really is (absolute,
// cleaned, symbolic links resolved), said relative to its source root.
//
// The source root is the top of the Git checkout holding the file, named
// after the checkout's origin remote ("git@host:acme/handbook.git" →
// "handbook"), else after its folder. So Location is
// "handbook/docs/parking.md" however the folder was named on the command
// line, from whatever working directory, and the same on every machine and
// checkout of that repository. A file outside any checkout is identified
// by its real absolute path.
type sourceID struct {
	location string // shown with the source: "handbook/docs/parking.md"
	rel      string // path from the checkout's top: "docs/parking.md"; "" outside any checkout
	abs      string // absolute path as reached, links not resolved
	real     string // absolute path with links resolved
}

func (id sourceID) key() string { return KeyPrefix + id.location }

// sourceRoots finds and names source roots, remembering each folder's.
type sourceRoots struct {
	root map[string]string // folder → its root ("" for none)
	name map[string]string // root → its name
	// codeOwners holds each root's CODEOWNERS, read once (nil: none).
	codeOwners map[string]codeOwners
}

// owners returns the owners its checkout's CODEOWNERS gives the file id,
// nil outside any checkout or when no rule matches it.
func (r *sourceRoots) owners(id *sourceID) []string {
	if id == nil || id.rel == "" {
		return nil
	}
	root := r.rootOf(filepath.Dir(id.real))
	if root == "" {
		return nil
	}
	if r.codeOwners == nil {
		r.codeOwners = map[string]codeOwners{}
	}
	co, ok := r.codeOwners[root]
	if !ok {
		co = readCodeOwners(root)
		r.codeOwners[root] = co
	}
	return co.Owners(id.rel)
}

func (r *sourceRoots) identify(p string) sourceID {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = filepath.Clean(p)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	id := sourceID{abs: abs, real: real, location: filepath.ToSlash(real)}
	if root := r.rootOf(filepath.Dir(real)); root != "" {
		if rel, err := filepath.Rel(root, real); err == nil {
			id.rel = filepath.ToSlash(rel)
			id.location = r.nameOf(root) + "/" + id.rel
		}
	}
	return id
}

// rootOf returns the nearest folder at or above dir holding .git (a folder,
// or a file in a worktree or submodule), or "".
func (r *sourceRoots) rootOf(dir string) string {
	if r.root == nil {
		r.root = map[string]string{}
	}
	var walked []string
	root := ""
	for d := dir; ; {
		if known, ok := r.root[d]; ok {
			root = known
			break
		}
		walked = append(walked, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for _, d := range walked {
		r.root[d] = root
	}
	return root
}

func (r *sourceRoots) nameOf(root string) string {
	if r.name == nil {
		r.name = map[string]string{}
	}
	if n, ok := r.name[root]; ok {
		return n
	}
	n := originName(filepath.Join(root, ".git", "config"))
	if n == "" {
		n = filepath.Base(root)
	}
	r.name[root] = n
	return n
}

// originName returns the repository name of the origin remote in a Git
// config file ("https://github.com/acme/handbook.git" → "handbook"), or "".
func originName(config string) string {
	f, err := os.Open(config)
	if err != nil {
		return ""
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = strings.ReplaceAll(line, " ", "") == `[remote"origin"]`
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !in || !ok || strings.TrimSpace(k) != "url" {
			continue
		}
		u := strings.TrimSuffix(strings.TrimRight(strings.TrimSpace(v), "/"), ".git")
		u = u[strings.LastIndexAny(u, ":/")+1:]
		if u != "" && u != "." && u != ".." {
			return u
		}
		return ""
	}
	return ""
}

// matchesLegacy reports whether a key an earlier version stored (the path
// as typed then, from some working directory) can name the file id:
// absolute keys must be its path; relative ones, less any leading "./" and
// "../", must end its path. weak is true when only the file name matched,
// which the caller trusts only together with equal content.
func (id sourceID) matchesLegacy(key string) (ok, weak bool) {
	if key == "" || strings.HasPrefix(key, KeyPrefix) {
		return false, false
	}
	native := filepath.FromSlash(key)
	if filepath.IsAbs(native) {
		c := filepath.Clean(native)
		if c == id.abs || c == id.real {
			return true, false
		}
		if r, err := filepath.EvalSymlinks(c); err == nil && r == id.real {
			return true, false
		}
		return false, false
	}
	rest := path.Clean(key)
	for strings.HasPrefix(rest, "../") {
		rest = rest[3:]
	}
	if rest == "." || rest == ".." || rest == "" {
		return false, false
	}
	for _, p := range []string{filepath.ToSlash(id.abs), filepath.ToSlash(id.real)} {
		if p == rest || strings.HasSuffix(p, "/"+rest) {
			return true, !strings.Contains(rest, "/")
		}
	}
	return false, false
}
