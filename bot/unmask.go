package bot

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// unmask is Markdown that others wrote (a model's answer, or the text of
// a document it quotes, which any member of an ingested channel may have
// planted) as the bot shows it: nothing in it may pass for what only the
// bot says.
//
//   - No link hides where it goes. A link with words of its own becomes
//     those words and its host: "[Reset password](https://evil.example/r)"
//     reads "Reset password (evil.example)", and is no longer a link. The
//     same for every other way text can carry a link: [text](<url>),
//     images, Slack's <url|text>, an HTML <a href>, and reference links,
//     whose definitions ("[r]: https://…") are shown as text so that no
//     [text][r] resolves. Bare URLs and <url> show their host already and
//     stay. The only links in an answer are the ones the bot makes
//     itself, later: its citations (Final.Links, Final.Text.Link).
//   - No line passes for the confidence badge: a line that starts with
//     emoji, or :shortcodes:, before a badge's name ("🟢 High
//     confidence…") loses them. In a draft, whose last line is still
//     being written, the start of a name is enough ("🟢 High con"), so
//     that no draft shows what the finished answer would not.
//   - Control characters go (a terminal's escape sequences can draw links
//     and move the cursor), and so do the Unicode controls that reorder
//     text as it is shown.
//
// The rules are read generously, as the most lenient of the platforms
// would read the Markdown (Discord takes [text]( https://… "title") and
// link text across lines), and in code too: Discord and the terminal
// disagree with CommonMark about where code starts and ends, and a link
// rewritten inside code costs less than one left live outside it. A
// rewrite may make another construct (a link whose text was a link), so
// they run until nothing changes.
func unmask(md string, draft bool) string {
	md = withoutControls(md)
	for range maxRounds {
		next := badgeLines(definitions(inlineLinks(slackLinks(anchors(md)))), draft)
		if next == md {
			return md
		}
		md = next
	}
	// Nested deeper than any writer nests: break what is left.
	return strings.NewReplacer("](", "] (", "<", "‹", "]:", "] :").Replace(md)
}

// maxRounds bounds the rewrites of nested links; each round undoes one
// level of nesting.
const maxRounds = 16

// withoutControls drops the control characters but tabs and line breaks
// ("\r\n" and "\r" become "\n"), and the bidirectional controls, which
// show text in another order than it is read (Trojan Source).
func withoutControls(s string) string {
	if !hasHidden(s) {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\r':
			return '\n'
		case hidden(r):
			return -1
		}
		return r
	}, s)
}

// hasHidden is strings.ContainsFunc(s, hidden), decoding only the runes
// that can be one: those of one byte below 0x20 or 0x7F, and those
// starting 0xC2 (C1 controls) or 0xE2 (the bidirectional ones). It runs
// on every draft.
func hasHidden(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7F || c == 0xC2 || c == 0xE2 {
			if r, _ := utf8.DecodeRuneInString(s[i:]); hidden(r) {
				return true
			}
		}
	}
	return false
}

func hidden(r rune) bool {
	return (unicode.IsControl(r) && r != '\n' && r != '\t') ||
		(r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// target matches the start of a link's destination that leads somewhere
// a reader can be taken: a scheme (https:, javascript:, mailto:) or a
// host without one (//evil.example). "docs/a.md" and "fns[i](x)" do not.
var target = regexp.MustCompile(`^\s*<?\s*(?:[A-Za-z][A-Za-z0-9+.\-]*:|[/\\]{2})`)

// inlineLinks rewrites [text](destination) and ![alt](destination) as
// the text and the destination's host. A "](" whose destination never
// closes is broken apart; one whose "[" is not found keeps its "]".
func inlineLinks(s string) string {
	if !strings.Contains(s, "](") {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is written
	for i := strings.Index(s, "]("); i >= 0; {
		next := i + 1
		if target.MatchString(s[i+2:]) {
			dest, end := destination(s, i+2)
			open := opener(s, i)
			switch {
			case end < 0: // never closed: no link, but no "](" either
				b.WriteString(s[done : i+1])
				b.WriteByte(' ')
				done = i + 1
			case open >= 0 && open < done:
				// The text holds a link rewritten just now: the next
				// round has this one's text plain.
			case open < 0:
				b.WriteString(s[done : i+1])
				if host := hostOf(dest); host != "" {
					b.WriteString(" (" + host + ")")
				}
				done, next = end, end
			default:
				start := open
				if start > done && s[start-1] == '!' { // an image
					start--
				}
				b.WriteString(s[done:start])
				b.WriteString(withHost(s[open+1:i], dest))
				done, next = end, end
			}
		}
		k := strings.Index(s[next:], "](")
		if k < 0 {
			break
		}
		i = next + k
	}
	b.WriteString(s[done:])
	return b.String()
}

// maxLinkText bounds how far back the "[" of a link's text is looked for.
const maxLinkText = 2000

// opener returns the index of the "[" that the "]" at close ends, or -1
// (brackets in the text pair up).
func opener(s string, close int) int {
	depth := 0
	for i := close - 1; i >= 0 && close-i <= maxLinkText; i-- {
		switch s[i] {
		case ']':
			depth++
		case '[':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

// destination reads a link's destination from s[i:], just after "](": an
// optional <…> or a run without white space (parentheses in it paired),
// then an optional title, then ")". It returns the destination and the
// index after the ")", or -1 when the link is never closed.
func destination(s string, i int) (string, int) {
	i = skipSpace(s, i)
	start, depth := i, 0
	if i < len(s) && s[i] == '<' {
		end := strings.IndexAny(s[i+1:], ">\n")
		if end < 0 || s[i+1+end] != '>' {
			return "", -1
		}
		start, i = i+1, i+1+end
	} else {
		for ; i < len(s) && !isSpace(s[i]); i++ {
			if s[i] == '(' {
				depth++
			} else if s[i] == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
		}
	}
	dest := s[start:i]
	if i < len(s) && s[i] == '>' {
		i++
	}
	i = skipSpace(s, i)
	if i < len(s) && strings.IndexByte(`"'(`, s[i]) >= 0 { // a title
		closing := s[i]
		if closing == '(' {
			closing = ')'
		}
		end := strings.IndexByte(s[i+1:], closing)
		if end < 0 {
			return "", -1
		}
		i = skipSpace(s, i+1+end+1)
	}
	if i >= len(s) || s[i] != ')' {
		return "", -1
	}
	return dest, i + 1
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// slackLink is Slack's <url|text>, written into a document or an answer.
// <url> alone shows its URL and stays; <@U1|name> and <#C1|name> name
// people and channels, not places.
var slackLink = regexp.MustCompile(`<((?:[A-Za-z][A-Za-z0-9+.\-]*:|[/\\]{2})[^<>|]*)\|([^<>]*)>`)

func slackLinks(s string) string {
	if !strings.Contains(s, "|") {
		return s
	}
	return slackLink.ReplaceAllStringFunc(s, func(m string) string {
		sub := slackLink.FindStringSubmatch(m)
		return withHost(sub[2], sub[1])
	})
}

var (
	anchorOpen  = regexp.MustCompile(`(?i)<a\b[^>]*>`)
	anchorClose = regexp.MustCompile(`(?i)</a\s*>`)
	anchorHref  = regexp.MustCompile(`(?i)\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`)
	anchorStart = regexp.MustCompile(`(?i)<(a\b)`)
)

// anchors rewrites HTML's <a href="url">text</a> as the text and the
// host; an <a> never closed leaves its host where it was. An opening "<a"
// that no ">" follows loses its "<", so that no reader takes what follows
// for a tag (fuzzing found "<A").
func anchors(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	if tail := strings.LastIndexByte(s, '>') + 1; anchorStart.MatchString(s[tail:]) {
		s = s[:tail] + anchorStart.ReplaceAllString(s[tail:], "$1")
	}
	if anchorOpen.FindStringIndex(s) == nil {
		return s
	}
	var b strings.Builder
	for {
		loc := anchorOpen.FindStringIndex(s)
		if loc == nil {
			b.WriteString(s)
			return b.String()
		}
		dest := ""
		if m := anchorHref.FindStringSubmatch(s[loc[0]:loc[1]]); m != nil {
			dest = html.UnescapeString(m[1] + m[2] + m[3])
		}
		b.WriteString(s[:loc[0]])
		rest := s[loc[1]:]
		if end := anchorClose.FindStringIndex(rest); end != nil {
			b.WriteString(withHost(rest[:end[0]], dest))
			s = rest[end[1]:]
		} else {
			if host := hostOf(dest); host != "" {
				b.WriteString("(" + host + ") ")
			}
			s = rest
		}
	}
}

// definition is a reference link's definition, "[label]: url": shown as
// "label: url", it defines nothing, and [text][label] stays text.
var definition = regexp.MustCompile(`(?m)^([ \t]*)\[([^\]]*)\]:(\s*<?\s*(?:[A-Za-z][A-Za-z0-9+.\-]*:|[/\\]{2}))`)

func definitions(s string) string {
	if !strings.Contains(s, "]:") {
		return s
	}
	return definition.ReplaceAllString(s, "$1$2:$3")
}

// withHost is a link's text followed by the host it leads to, "text
// (host)", or the text alone when it already names the destination or
// the host, or when the destination has no host (javascript:, mailto:).
func withHost(text, dest string) string {
	host := hostOf(dest)
	trimmed := strings.TrimSpace(text)
	switch {
	case host == "":
		return text
	case trimmed == "":
		return host
	case strings.EqualFold(trimmed, strings.TrimSpace(dest)) || strings.EqualFold(trimmed, host):
		return text
	}
	return strings.TrimRight(text, " \t\n") + " (" + host + ")"
}

// specialSchemes are those browsers read a host after without slashes
// ("https:evil.example").
var specialSchemes = map[string]bool{"http": true, "https": true, "ftp": true, "ws": true, "wss": true}

// hostOf is the host a browser would go to for dest, lower case and in
// ASCII (a look-alike Unicode name in its xn-- form), or "" when there is
// none or it is not a host name.
func hostOf(dest string) string {
	rest := strings.TrimSpace(dest)
	special := false
	if k := strings.IndexByte(rest, ':'); k > 0 && !strings.ContainsAny(rest[:k], "/\\?#") {
		special = specialSchemes[strings.ToLower(rest[:k])]
		rest = rest[k+1:]
	}
	slashes := len(rest) - len(strings.TrimLeft(rest, `/\`))
	if slashes < 2 && !special {
		return ""
	}
	rest = rest[slashes:]
	if k := strings.IndexAny(rest, `/\?#`); k >= 0 {
		rest = rest[:k]
	}
	if k := strings.LastIndexByte(rest, '@'); k >= 0 {
		rest = rest[k+1:]
	}
	if strings.HasPrefix(rest, "[") { // an IPv6 address
		if k := strings.IndexByte(rest, ']'); k > 0 {
			rest = rest[1:k]
		}
	} else if k := strings.IndexByte(rest, ':'); k >= 0 {
		rest = rest[:k]
	}
	if u, err := url.PathUnescape(rest); err == nil {
		rest = u
	}
	host := strings.ToLower(rest)
	if ascii, err := idna.Lookup.ToASCII(host); err == nil {
		host = ascii
	} else if ascii, err := idna.Punycode.ToASCII(host); err == nil {
		host = ascii
	}
	if host == "" || len(host) > 253 || strings.ContainsFunc(host, func(r rune) bool {
		return !(r < utf8.RuneSelf && (r == '.' || r == '-' || r == '_' || r == ':' ||
			('a' <= r && r <= 'z') || ('0' <= r && r <= '9')))
	}) {
		return ""
	}
	return host
}

// badgeLines takes the emoji and :shortcodes: off the start of a line
// that would otherwise read as a confidence badge, whatever its markup
// ("> 🟢 **High confidence** — checked against 9 documents"); in a
// draft, off a last line that may yet become one.
func badgeLines(s string, draft bool) string {
	lines := strings.Split(s, "\n")
	changed := false
	for i, line := range lines {
		if l := badgeLine(line, draft && i == len(lines)-1); l != line {
			lines[i], changed = l, true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(lines, "\n")
}

func badgeLine(line string, partial bool) string {
	start := skipMarkup(line, 0)
	end := skipMarks(line, start)
	if end == start || !isBadgeName(line[end:], partial) {
		return line
	}
	return line[:start] + line[end:]
}

// skipMarkup skips white space and the marks of quotes, headings, lists
// and emphasis.
func skipMarkup(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t>#*_~-+|`.)0123456789", s[i]) >= 0 {
		i++
	}
	return i
}

var shortcode = regexp.MustCompile(`^:[a-z0-9_+\-]+:`)

// skipMarks skips emoji (symbols, with their modifiers and joiners) and
// :shortcodes:, and the white space after them.
func skipMarks(s string, i int) int {
	end := i
	for j := i; j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		switch {
		case unicode.In(r, unicode.So, unicode.Sk, unicode.Cf, unicode.Mn, unicode.Me) && r != '`' && r != '^':
			j += n
			end = j
		case r == ':' && shortcode.MatchString(s[j:]):
			j += len(shortcode.FindString(s[j:]))
			end = j
		case r == ' ' || r == '\t':
			j += n
			if end > i {
				end = j
			}
		default:
			return end
		}
	}
	return end
}

// isBadgeName reports whether s, less its markup, starts with the name
// of a confidence level ("High confidence"), in any case and spacing, or
// when partial, is the start of one.
func isBadgeName(s string, partial bool) bool {
	var b strings.Builder
	space := false
	for _, r := range s {
		if b.Len() > 40 {
			break
		}
		switch {
		case unicode.IsLetter(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(unicode.ToLower(r))
			space = false
		case unicode.IsSpace(r):
			space = true
		case strings.ContainsRune("*_~`", r):
		default:
			space = true
		}
	}
	words := b.String()
	for _, l := range levels {
		name := strings.ToLower(l.name)
		if strings.HasPrefix(words, name) || (partial && words != "" && strings.HasPrefix(name, words)) {
			return true
		}
	}
	return false
}
