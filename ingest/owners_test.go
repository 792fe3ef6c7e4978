package ingest

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/kb"
)

func TestOwnerList(t *testing.T) {
	for in, want := range map[string][]string{
		" alice@example.com":           {"alice@example.com"},
		` "@acme/docs" # the team`:     {"@acme/docs"},
		" [U123, '@bob', carol@x.org]": {"U123", "@bob", "carol@x.org"},
		" U1, U2":                      {"U1", "U2"},
		" <!channel>":                  nil, // markup is no name
		" two words":                   nil,
		"":                             nil,
		" " + strings.Repeat("a,", 40): slices.Repeat([]string{"a"}, maxOwners),
	} {
		if got := ownerList(in); !slices.Equal(got, want) {
			t.Errorf("ownerList(%q) = %q, want %q", in, got, want)
		}
	}
	_, fm := stripFrontMatter("---\ntitle: T\nowner: \"@acme/hr\"\n---\nbody")
	if !slices.Equal(fm.owners, []string{"@acme/hr"}) {
		t.Errorf("front matter owners %q", fm.owners)
	}
}

// The last matching rule of a CODEOWNERS file wins, patterns read as
// GitHub reads them.
func TestCodeOwners(t *testing.T) {
	co := parseCodeOwners(strings.NewReader(`# Owners
*            @acme/all
*.md         docs@example.com   # Markdown
/docs/hr/    @acme/hr @dana
docs/**/pay* @payroll
/build/      
apps/        @apps
!nope        @x
[ab].md      @y
`))
	for rel, want := range map[string][]string{
		"README.txt":             {"@acme/all"},
		"README.md":              {"docs@example.com"},
		"docs/hr/leave.md":       {"@acme/hr", "@dana"},
		"docs/hr/x/pay-slips.md": {"@payroll"},
		"docs/pay.md":            {"@payroll"},
		"build/out.md":           nil, // a rule with no owners
		"src/apps/a.go":          {"@apps"},
		"nope":                   {"@acme/all"},
	} {
		if got := co.Owners(rel); !slices.Equal(got, want) {
			t.Errorf("Owners(%q) = %q, want %q", rel, got, want)
		}
	}
}

// IngestFiles stores a file's owners: its front matter's, else its
// checkout's CODEOWNERS entry; the owners are part of the hash.
func TestIngestFilesOwners(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "handbook")
	writeFiles(t, repo, map[string]string{
		".git/HEAD":          "ref: refs/heads/main\n",
		".github/CODEOWNERS": "*.md @acme/docs\n/docs/hr/ @acme/hr dana@example.com\n",
		"docs/hr/leave.md":   "# Leave\n\nTwenty days.",
		"docs/own.md":        "---\nowner: U0ALICE\n---\n# Own\n\nOwned by Alice.",
		"docs/misc.md":       "# Misc\n\nThe docs team's.",
		"docs/plain.txt":     "No owner.",
	})
	t.Chdir(dir)
	got := map[string]string{}
	if _, err := Files(context.Background(), []string{"handbook/docs"}, func(d kb.Document) error {
		got[d.Location] = d.Metadata[OwnerKey]
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"handbook/docs/hr/leave.md": "@acme/hr, dana@example.com",
		"handbook/docs/own.md":      "U0ALICE",
		"handbook/docs/misc.md":     "@acme/docs",
		"handbook/docs/plain.txt":   "",
	}
	for loc, w := range want {
		if got[loc] != w {
			t.Errorf("%s: owner %q, want %q", loc, got[loc], w)
		}
	}
	if fileHash("x", "", "") == fileHash("x", "", "U1") {
		t.Error("the owner is not part of the hash")
	}
}

// FuzzCodeOwners feeds the CODEOWNERS reader any text: it never panics,
// and every owner it returns is a name chat markup cannot read.
func FuzzCodeOwners(f *testing.F) {
	for _, s := range []string{"* @a\n", "/docs/ @b c@d.org # x\n**/x?.md @e", "[a] @x\n!y @z", "docs/\xff @u", "a/**/b/ @v\n\\# @w"} {
		f.Add(s, "docs/x.md")
	}
	f.Fuzz(func(t *testing.T, file, rel string) {
		for _, o := range parseCodeOwners(strings.NewReader(file)).Owners(rel) {
			if !validOwner(o) {
				t.Fatalf("owner %q from %q", o, file)
			}
		}
	})
}

// FuzzOwnerList feeds the front matter's owner value any text: every
// owner it returns is a name chat markup cannot read, and there are at
// most maxOwners.
func FuzzOwnerList(f *testing.F) {
	for _, s := range []string{"a@b.c", "[U1, '@x']", "\"<@U9>\"", "[", "'", "a,,b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got := ownerList(v)
		if len(got) > maxOwners {
			t.Fatalf("%d owners", len(got))
		}
		for _, o := range got {
			if !validOwner(o) {
				t.Fatalf("owner %q from %q", o, v)
			}
		}
	})
}
