package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/switchboard/switchboard/kb"
)

func TestCleanMarkdown(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "template tags go, a link keeps its text",
			in:   "See [leave]({% page \"/leave/\" %}) and {{ site.name }}.\n{% alert %}\nBe careful.\n{% endalert %}\n{% include \"x.html\"\n  step=2 %}",
			want: "See leave and .\n\nBe careful.\n\n",
		},
		{
			name: "a Slack channel tag is its channel",
			in:   "Ask in {% slack_channel \"people-ops\" %}.",
			want: "Ask in #people-ops.",
		},
		{
			name: "heading attributes",
			in:   "## Introduction {#intro}\n\n### Defaults {: .note}\n{: .lead}\nText {#not-a-heading}",
			want: "## Introduction\n\n### Defaults\n\nText {#not-a-heading}",
		},
		{
			name: "comments and inline tags",
			in:   "<!-- prettier-ignore -->\nRead <a href=\"x\">this</a><br>now, <code>x</code> <!-- a\nnote -->too.",
			want: "\nRead this now, x too.",
		},
		{
			name: "a pipe table becomes rows",
			in:   "Alerts:\n\n| Priority | Response |\n| -------- | :------: |\n| High | Act **now** \\| page |\n| Low |  |\n\nAfter.",
			want: "Alerts:\n\n\n- Priority: High · Response: Act **now** | page\n- Priority: Low\n\n\nAfter.",
		},
		{
			name: "a raw HTML table in Markdown, blank lines and all",
			in:   "Levels:\n\n<table>\n<tr><th>Severity</th><th>Response</th></tr>\n\n<tr><td>SEV-5</td><td><ul><li>ticket</li></ul></td></tr>\n</table>\n\nAfter.",
			want: "Levels:\n\n\n- Severity: SEV-5 · Response: ticket\n\n\nAfter.",
		},
		{
			name: "code is left as written",
			in:   "Use `{{.Name}}` and `<br>`.\n\n```html\n<td>{% raw %}</td>\n| a | b |\n|---|---|\n```",
			want: "Use `{{.Name}}` and `<br>`.\n\n```html\n<td>{% raw %}</td>\n| a | b |\n|---|---|\n```",
		},
		{
			name: "an image goes, a link stays",
			in:   "![Stalking status](../img/stalk.png)\nSee [the bot](bot.md) ![x](y.png).",
			want: "\nSee [the bot](bot.md) .",
		},
		{
			name: "an attribute list after a link",
			in:   "Read the [guide](https://x.example/g){:target=\"_blank\"} first.",
			want: "Read the [guide](https://x.example/g) first.",
		},
		{
			name: "an admonition is its title and its body, unindented",
			in:   "Steps.\n\n!!! warning \"Ship it\"\n    Never say \"ship it\" on a Friday.\n\n    Wait for Monday.\n\n??? note\n    Folded.\nAfter.",
			want: "Steps.\n\n**Ship it**\n\nNever say \"ship it\" on a Friday.\n\nWait for Monday.\n\n**Note**\n\nFolded.\nAfter.",
		},
		{
			name: "containers and GitHub alerts",
			in:   ":::tip Ship on Mondays\nDeploys wait for Monday.\n:::\n\n:::note[Freeze]\nNo deploys.\n:::\n\n> [!WARNING]\n> Never force-push.",
			want: "**Ship on Mondays**\n\nDeploys wait for Monday.\n\n\n**Freeze**\n\nNo deploys.\n\n\n> **Warning**\n> Never force-push.",
		},
		{
			name: "a rule is not a table",
			in:   "a | b\n---\nc",
			want: "a | b\n---\nc",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cleanMarkdown(tt.in); got != tt.want {
				t.Errorf("cleanMarkdown =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// markupMarks are what stored text must never show: tags, template tags,
// heading anchors.
var markupMarks = []string{"<td", "<li", "</", "{#", "{%", "]()", "{:", "!!!", "![", ":::", "[!NOTE]"}

// TestCorporaHaveNoMarkup reads every document of the evaluation corpora
// (Go HTML and Markdown, MkDocs Markdown with raw HTML tables, Markdown
// with front matter and Liquid tags) as ingestion does and checks that no
// chunk shows markup, outside code blocks, where it is the code's.
func TestCorporaHaveNoMarkup(t *testing.T) {
	dirs, _ := filepath.Glob("../eval/corpora/*/docs")
	if len(dirs) == 0 {
		t.Fatal("no corpus under ../eval/corpora")
	}
	titles := map[string]string{}
	for _, dir := range dirs {
		rep, err := Files(context.Background(), []string{dir}, func(d kb.Document) error {
			if other, ok := titles[d.Title]; ok {
				t.Errorf("%s and %s are both titled %q", other, d.Location, d.Title)
			}
			titles[d.Title] = d.Location
			for _, c := range Split(d.Chunks[0].Content, SplitOptions{}) {
				text := withoutCode(c.Content)
				for _, m := range markupMarks {
					if strings.Contains(text, m) || strings.Contains(c.Heading, m) {
						t.Errorf("%s: chunk %d [%s] shows %q:\n%s", d.Location, c.Index, c.Heading, m, c.Content)
					}
				}
			}
			return nil
		})
		if err != nil || len(rep.Errors) > 0 || len(rep.Skipped) > 0 {
			t.Errorf("%s: %v, %v, %v", dir, err, rep.Errors, rep.Skipped)
		}
	}
}

// withoutCode is Markdown text without its fenced code blocks and code
// spans.
func withoutCode(s string) string {
	var b strings.Builder
	_ = outsideFences(s, func(line string) string {
		parts := strings.Split(line, "`")
		for i := 0; i < len(parts); i += 2 {
			b.WriteString(parts[i])
		}
		b.WriteString("\n")
		return line
	})
	return b.String()
}

// TestGoDocsTitles checks the titles of real pages that carry theirs in a
// leading JSON comment header, where the first heading ("Introduction")
// names a section.
func TestGoDocsTitles(t *testing.T) {
	want := map[string]string{
		"asm.html":     "A Quick Guide to Go's Assembler",
		"go_mem.html":  "The Go Memory Model",
		"go_spec.html": "The Go Programming Language Specification",
		"godebug.md":   "Go, Backwards Compatibility, and GODEBUG",
	}
	for name, title := range want {
		data, err := os.ReadFile(filepath.Join("../eval/corpora/go-docs/docs", name))
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := FileText(context.Background(), name, "", data)
		if err != nil || got != title {
			t.Errorf("%s: title %q, %v; want %q", name, got, err, title)
		}
	}
}

func FuzzCleanMarkdown(f *testing.F) {
	f.Add("## A {#a}\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n<table><tr><td>a</td></tr>\n\n</table>\n{% x %}")
	f.Add("<div>\n<div>\n</div>\n```\n<td>\n```\n{% unclosed\n| a |\n| - |")
	f.Add("<!-- {{ `<br>` | x | \\| -->\n|a\\|\n|-|\n<pre>\n\n</pre>")
	f.Add(":::tip[x\n:::note y\n> [!NOTE]\n:::\n")
	f.Add("!!! warning \"T\"\n    body {:x}\n\t```\n\tcode\n???+\n!!!\n    [a](b){:target=\"_blank\"}")
	f.Fuzz(func(t *testing.T, in string) {
		out := cleanMarkdown(in)
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of valid input: %q", out)
		}
		_ = Split(out, SplitOptions{Size: 64})
	})
}

// A raw HTML block the converter cannot render (a lone "#" heading among
// invalid UTF-8 made html-to-markdown panic) does not take the file down.
func TestCleanMarkdownSurvivesTheConverter(t *testing.T) {
	in := "Intro.\n\n<h1>#</h1 \xb1\xd3\n\nAfter."
	out := cleanMarkdown(in)
	if !strings.Contains(out, "Intro.") || !strings.Contains(out, "After.") {
		t.Errorf("cleanMarkdown(%q) = %q: the text around the block is lost", in, out)
	}
}
