package ingest

import (
	"bufio"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// OwnerKey is the document metadata key of the people who own a file
// (issue 26): a Markdown front matter "owner:" (or "owners:"), else the
// file's CODEOWNERS entry in its Git checkout. It holds their names as
// written there (chat user ids, e-mail addresses, GitHub handles), joined
// by ", "; the bot asks them when it cannot answer from the file and no
// experts are set for the channel.
const OwnerKey = "owner"

// maxOwners bounds the owners kept of one file, and maxOwnersFile the
// CODEOWNERS file read: both are written by people, for people.
const (
	maxOwners     = 10
	maxOwnersFile = 1 << 20
)

// ownerList reads a front matter owner value: one name, a comma-separated
// list or a YAML flow list ("[a, b]"), each name unquoted. Names with
// white space or control characters inside are dropped: a handle, an
// e-mail address or a user id has none.
func ownerList(v string) []string {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "[") {
		v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	} else {
		v = yamlScalar(v)
	}
	var out []string
	for _, name := range strings.Split(v, ",") {
		if name = strings.Trim(strings.TrimSpace(name), `"'`); validOwner(name) && len(out) < maxOwners {
			out = append(out, name)
		}
	}
	return out
}

// validOwner reports whether name can be an owner: not empty, at most 100
// bytes, without white space, control characters or the characters chat
// markup would read ("<", ">", "&", "|", "`").
func validOwner(name string) bool {
	return name != "" && len(name) <= 100 && !strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r == 0x7f || strings.ContainsRune("<>&|`\u2028\u2029\u0085\u00a0", r)
	})
}

// codeOwners is a CODEOWNERS file read: its rules in order, the last
// matching one winning, as GitHub reads it.
type codeOwners []ownerRule

type ownerRule struct {
	pattern *regexp.Regexp
	owners  []string // none: the path has no owner
}

// codeOwnersPaths are where GitHub looks for the file, in its order.
var codeOwnersPaths = []string{".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"}

// readCodeOwners reads the CODEOWNERS file of the checkout at root, nil
// when it has none or it cannot be read.
func readCodeOwners(root string) codeOwners {
	for _, p := range codeOwnersPaths {
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		co := parseCodeOwners(io.LimitReader(f, maxOwnersFile))
		_ = f.Close()
		return co
	}
	return nil
}

// parseCodeOwners reads CODEOWNERS rules: a pattern and owners a line,
// "#" comments, blank lines; a line that is not a rule is skipped, as
// GitHub skips it.
func parseCodeOwners(r io.Reader) codeOwners {
	var rules codeOwners
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64*1024)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		re := ownerPattern(fields[0])
		if re == nil {
			continue
		}
		rule := ownerRule{pattern: re}
		for _, o := range fields[1:] {
			if strings.HasPrefix(o, "#") {
				break
			}
			if validOwner(o) && len(rule.owners) < maxOwners {
				rule.owners = append(rule.owners, o)
			}
		}
		rules = append(rules, rule)
	}
	return rules
}

// Owners returns the owners of the file at rel (a slash path from the
// checkout's top): the last matching rule's, nil when none matches.
func (co codeOwners) Owners(rel string) []string {
	rel = strings.TrimPrefix(path.Clean("/"+rel), "/")
	for i := len(co) - 1; i >= 0; i-- {
		if co[i].pattern.MatchString(rel) {
			return co[i].owners
		}
	}
	return nil
}

// ownerPattern translates a CODEOWNERS pattern (gitignore's syntax, less
// "!" and "[ ]", which GitHub does not support) into a regular expression
// over slash paths from the checkout's top, nil for one it does not
// support. A pattern with a "/" other than at its end is anchored at the
// top; one without matches at any depth; one ending in "/" matches
// what is under the folder; "*" matches within one path element, "**"
// across them; a match of a folder owns everything under it.
func ownerPattern(p string) *regexp.Regexp {
	if p == "" || strings.HasPrefix(p, "!") || strings.ContainsAny(p, "[]\\") || len(p) > 1000 {
		return nil
	}
	anchored := strings.Contains(strings.TrimSuffix(p, "/"), "/")
	p = strings.TrimPrefix(p, "/")
	dir := strings.HasSuffix(p, "/")
	p = strings.TrimSuffix(p, "/")
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(p); i++ {
		switch {
		case strings.HasPrefix(p[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(".*")
			i++
		case p[i] == '*':
			b.WriteString("[^/]*")
		case p[i] == '?':
			b.WriteString("[^/]")
		default:
			_, n := utf8.DecodeRuneInString(p[i:])
			b.WriteString(regexp.QuoteMeta(p[i : i+n]))
			i += n - 1
		}
	}
	if dir {
		b.WriteString("/.*$")
	} else {
		b.WriteString("(?:/.*)?$")
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return re
}
