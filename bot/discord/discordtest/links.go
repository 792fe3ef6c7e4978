package discordtest

import (
	"regexp"
	"strings"
)

// Link is a masked link people may see in a message's Markdown: the
// words shown and where a click goes.
type Link struct {
	Text, URL string
}

// Links returns every masked link, [text](url), that Discord's Markdown
// may make of md, generously: Discord's parser descends from
// simple-markdown, whose link rule reads at any "[" that is not escaped
// and not in code
//
//	^\[((?:\[[^\]]*\]|[^\[\]]|\](?=[^\[]*\]))*)\]\(\s*<?((?:\([^)]*\)|[^\s\\])*?)>?(?:\s+['"]([\s\S]*?)['"])?\s*\)
//
// so link text may hold brackets in pairs, a "]" that another follows,
// backslashes (which do not escape there) and line breaks. Every way
// that rule can match is returned, not only the one the parser takes,
// and for every URL with a scheme, not only those Discord follows: a
// test that finds no link hiding its host here finds none in Discord.
// Bare URLs and <url> read as where they go and are left out.
func Links(md string) []Link {
	var out []Link
	for i := 0; i < len(md); i++ {
		switch md[i] {
		case '\\':
			i++ // an escaped character is text
		case '`':
			if end := codeEnd(md, i); end > i {
				i = end - 1
			}
		case '[':
			out = append(out, linksAt(md, i)...)
		}
	}
	return out
}

// codeEnd is the index after the inline code or code block that starts
// at md[i], a run of backticks closed by a run as long, or i when none
// closes it (then the backticks are text).
func codeEnd(md string, i int) int {
	n := 0
	for i+n < len(md) && md[i+n] == '`' {
		n++
	}
	run := md[i : i+n]
	for j := i + n; j < len(md); {
		k := strings.Index(md[j:], run)
		if k < 0 {
			return i
		}
		k += j
		m := 0
		for k+m < len(md) && md[k+m] == '`' {
			m++
		}
		if m == n && k > i+n {
			return k + n
		}
		j = k + m
	}
	return i
}

// linksAt returns the links whose text starts after the "[" at md[p].
// The text's rule has one choice, at a "]" followed by "(": close the
// link there or read on, so one walk finds every closing.
func linksAt(md string, p int) []Link {
	var out []Link
	for i := p + 1; i < len(md); {
		switch md[i] {
		case '[': // a pair, to its first "]"
			k := strings.IndexByte(md[i+1:], ']')
			if k < 0 {
				return out
			}
			i += k + 2
		case ']':
			if i+1 < len(md) && md[i+1] == '(' {
				if url, ok := href(md[i+2:]); ok && scheme.MatchString(url) {
					out = append(out, Link{Text: md[p+1 : i], URL: url})
				}
			}
			// Read on only if another "]" comes before any "[".
			if k := strings.IndexAny(md[i+1:], "[]"); k < 0 || md[i+1+k] != ']' {
				return out
			}
			i++
		default:
			i++
		}
	}
	return out
}

var scheme = regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9+.\-]*:|//)`)

// href reads the rule's destination from s, just after "](": the
// shortest one after which the rest of the rule matches.
func href(s string) (string, bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '<' {
		i++
	}
	start := i
	for {
		if closes(s[i:]) {
			return s[start:i], true
		}
		switch {
		case i >= len(s):
			return "", false
		case s[i] == '(':
			k := strings.IndexByte(s[i+1:], ')')
			if k < 0 {
				return "", false
			}
			i += k + 2
		case isSpace(s[i]) || s[i] == '\\':
			return "", false
		default:
			i++
		}
	}
}

// closes reports whether s starts with the rest of the rule after the
// destination: >?(?:\s+['"][\s\S]*?['"])?\s*\)
func closes(s string) bool {
	if strings.HasPrefix(s, ">") && closes(s[1:]) {
		return true
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && s[i] == ')' {
		return true
	}
	if i == 0 || i >= len(s) || (s[i] != '"' && s[i] != '\'') {
		return false
	}
	for j := i + 1; j < len(s); j++ {
		if s[j] == '"' || s[j] == '\'' {
			k := j + 1
			for k < len(s) && isSpace(s[k]) {
				k++
			}
			if k < len(s) && s[k] == ')' {
				return true
			}
		}
	}
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
