package ingest

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExtractHTML(t *testing.T) {
	tests := []struct {
		name, in, want, title string
	}{
		{
			name:  "page",
			in:    `<!DOCTYPE html><html><head><title> Refunds |  Brightline </title><meta charset="utf-8"></head><body><h1>Refund &amp; returns</h1><p>Within <b>30&nbsp;days</b> of purchase.</p></body></html>`,
			want:  "# Refund & returns\n\nWithin 30 days of purchase.",
			title: "Refunds | Brightline",
		},
		{
			name: "scripts, styles and comments are dropped",
			in:   `<p>Before</p><script type="text/javascript">if (a < b) { document.write("<p>x</p>") }</script><STYLE>p { color: red }</STYLE><!-- <p>hidden</p> --><noscript>Enable JS</noscript><p>After</p>`,
			want: "Before\n\nAfter",
		},
		{
			name: "headings keep their level and stay on one line",
			in:   "<h2>Annual\n   <em>plans</em><br>prorated</h2><h3></h3><p>text</p><h6>Six</h6>",
			want: "## Annual plans prorated\n\ntext\n\n###### Six",
		},
		{
			name: "lists",
			in:   "<p>Steps:</p><ol><li>Open billing</li><li>Click <a href='/refund'>Request refund</a></li></ol><ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>",
			want: "Steps:\n\n1. Open billing\n2. Click Request refund\n\n- one\n  - nested\n- two",
		},
		{
			name: "pre becomes a fenced block with its whitespace",
			in:   "<p>Run:</p><pre><code>go test ./...\n  -run X &amp;&amp; echo ok</code></pre>",
			want: "Run:\n\n```\ngo test ./...\n  -run X && echo ok\n```",
		},
		{
			name: "pre containing a fence gets a longer fence",
			in:   "<pre>```\nx\n```</pre>",
			want: "````\n```\nx\n```\n````",
		},
		{
			name: "tables become rows that name their columns",
			in:   "<table><tr><th>Tier</th><th>First response</th></tr><tr><td>Enterprise</td><td>1 hour</td></tr><tr><td>Free</td><td></td></tr></table>",
			want: "- Tier: Enterprise · First response: 1 hour\n- Tier: Free",
		},
		{
			name: "a cell's paragraphs and lists become one line; a note across the table is unnamed",
			in: `<table class="x"><thead><tr><td>Severity</td><td>Response</td></tr></thead><tbody>
				<tr><td>SEV-1</td><td><p>Major incident response.</p><ul><li>Page an <a href="/ic">IC</a></li><li>Notify <code>#ops</code></li></ul></td></tr>
				<tr><td colspan="2">Anything above is a major incident.</td></tr>
				<tr><td>SEV-5</td><td>ticket</td></tr></tbody></table>`,
			want: "- Severity: SEV-1 · Response: Major incident response. Page an IC; Notify `#ops`\n- Anything above is a major incident.\n- Severity: SEV-5 · Response: ticket",
		},
		{
			name: "a table without a header row gives its cells unnamed; a nested table stays in its cell",
			in:   "<table><tr><td>a</td><td><table><tr><th>k</th></tr><tr><td>v</td></tr></table></td></tr></table>",
			want: "- a · k: v",
		},
		{
			name:  "a leading JSON comment header gives the title",
			in:    "<!--{\n\t\"Title\": \"The Go Memory Model\",\n\t\"Path\": \"/ref/mem\"\n}-->\n<h2 id=\"introduction\">Introduction</h2>\n<p>Text.</p>",
			want:  "## Introduction\n\nText.",
			title: "The Go Memory Model",
		},
		{
			name: "navigation and images are dropped",
			in:   "<nav><ul><li><a href='/'>Home</a></li></ul></nav><main><p>Body <img src=x alt=y> text.</p></main>",
			want: "Body text.",
		},
		{
			name: "entities",
			in:   "<p>a &lt; b &gt; c &quot;d&quot; &#39;e&#39; &#8212; &eacute;t&eacute; &copy; &unknown;</p>",
			want: "a < b > c \"d\" 'e' — été © &unknown;",
		},
		{
			name: "quoted > in attributes and stray <",
			in:   `<p title="a > b" data-x='<p>'>x < y and 3<4</p>`,
			want: "x < y and 3<4",
		},
		{
			name: "broken markup keeps its text",
			in:   "<div><p>unclosed <b>bold<p>next</div></span></p><h1>end",
			want: "unclosed bold\n\nnext\n\n# end",
		},
		{
			name: "unterminated tag and comment at the end",
			in:   "text <p class=\"x",
			want: "text",
		},
		{
			// HTML5 reads CDATA outside SVG and MathML as a comment, as browsers do.
			name: "cdata and processing instructions",
			in:   "<?xml version=\"1.0\"?><p><![CDATA[raw <text>]]></p>",
			want: "]]>",
		},
		{
			name: "form controls and svg drop their text",
			in:   "<p>Kept</p><textarea>typed</textarea><svg><text>chart label</text></svg>",
			want: "Kept",
		},
		{
			name:  "a JSON comment header: its title names the page, its subtitle opens the text",
			in:    "<!--{\n\t\"Title\": \"The Widget Manual\",\n\t\"Subtitle\": \"Version of May 2, 2024\",\n\t\"Path\": \"/w\"\n}-->\n<h2>Introduction</h2><p>Widgets turn.</p>",
			want:  "Version of May 2, 2024\n\n## Introduction\n\nWidgets turn.",
			title: "The Widget Manual",
		},
		{
			name: "empty",
			in:   "",
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, title, _ := extractHTML(tt.in)
			if got != tt.want {
				t.Errorf("text =\n%q\nwant\n%q", got, tt.want)
			}
			if title != tt.title {
				t.Errorf("title = %q, want %q", title, tt.title)
			}
		})
	}
}

func FuzzExtractHTML(f *testing.F) {
	f.Add(`<html><head><title>x</title><script>a<b</script></head><body><h1>T</h1><p>a &amp; b</p></body>`)
	f.Add("<pre><pre>x</pre>y</pre><ol><li>1<li>2</ol></ul></ul>")
	f.Add("<!--<![CDATA[<?<a href='>\"'<")
	f.Add("<table><td>a<td>b<tr><th>c")
	f.Add("<h1><h2>x</h1></h2><br/><hr><p/>&#0;&#xD800;&")
	f.Fuzz(func(t *testing.T, in string) {
		text, title, _ := extractHTML(in)
		if utf8.ValidString(in) && (!utf8.ValidString(text) || !utf8.ValidString(title)) {
			t.Fatalf("invalid UTF-8 out of valid input: %q, %q", text, title)
		}
		if strings.Contains(text, "\n\n\n") {
			t.Fatalf("more than one blank line in %q", text)
		}
		// The output must itself be splittable.
		_ = Split(text, SplitOptions{Size: 64})
	})
}
