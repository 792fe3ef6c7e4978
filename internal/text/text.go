// Package text holds the small string helpers that the chat adapters, the
// prompts, ingestion, the offline engine and the command line all need:
// shortening a string to a limit, folding it onto one line, and packing
// pieces into parts of a limit.
//
// They live in one place because each copy used to count differently
// (bytes here, runes there) and some cut a character in half. Here the
// rules are fixed: a limit counts runes unless the name says otherwise
// (ClipUTF16, ClipBytes); a cut never splits a character; a cut made for
// people to read is marked, and the mark counts towards the limit, so the
// result always fits; and a limit of zero or less gives "".
//
// Markdown structure (code fences) is in package markdown; the words the
// stores search on, stopwords included, are in kb/words.
package text

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Ellipsis is the mark Clip and ClipWords end a cut string with.
const Ellipsis = "…"

// Clip shortens s to at most n runes, ending it with Ellipsis when it cut.
// White space before the mark is dropped ("word…", not "word …").
func Clip(s string, n int) string {
	return clip(s, n, Ellipsis, runeWidth)
}

// ClipWith is Clip with another mark, such as " …[truncated]" in a prompt,
// where a model should know that the text goes on. The mark counts towards
// n; when it does not fit, s is cut to n runes unmarked.
func ClipWith(s string, n int, mark string) string {
	return clip(s, n, mark, runeWidth)
}

// ClipUTF16 is Clip for limits counted in UTF-16 code units, as Discord
// counts them: an emoji outside the Basic Multilingual Plane is two.
func ClipUTF16(s string, n int) string {
	return clip(s, n, Ellipsis, utf16Width)
}

// ClipWords is Clip at a word boundary: unless what fits ends a word, it
// cuts at the last white space in the second half of it, if there is one,
// so that it does not quote half a word or half a number. A comma, colon or
// semicolon left dangling before the mark is dropped.
func ClipWords(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	head := s[:prefix(s, n-utf8.RuneCountInString(Ellipsis), runeWidth)]
	next, _ := utf8.DecodeRuneInString(s[len(head):])
	if k := strings.LastIndexFunc(head, unicode.IsSpace); k > len(head)/2 && !unicode.IsSpace(next) {
		head = head[:k]
	}
	return strings.TrimRightFunc(head, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(",;:", r) }) + Ellipsis
}

// ClipBytes returns the longest prefix of s of at most n bytes that does
// not end inside a character. Unlike Clip it adds no mark: it is for
// bounding how much of an input is worked on or stored, not for display.
func ClipBytes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// OneLine folds every run of white space in s, line breaks included, into
// one space, and trims both ends: for titles, log fields and list entries
// made from text that may span lines.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Pack joins pieces, in order, with sep into as few strings of at most
// limit runes as a greedy fill gives; a piece is never split, so one longer
// than limit stands alone. Empty pieces at the start of a string are
// dropped, later ones keep their separator (a blank line, for "\n").
// Callers cut pieces to the limit first, each at its own boundaries (words,
// characters).
func Pack(pieces []string, sep string, limit int) []string {
	var out []string
	var cur strings.Builder
	n, sepLen := 0, utf8.RuneCountInString(sep)
	for _, p := range pieces {
		m := utf8.RuneCountInString(p)
		if n > 0 && n+sepLen+m > limit {
			out = append(out, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteString(sep)
			n += sepLen
		}
		cur.WriteString(p)
		n += m
	}
	if n > 0 {
		out = append(out, cur.String())
	}
	return out
}

// clip is Clip, ClipWith and ClipUTF16, with the width of each rune
// given by width.
func clip(s string, n int, mark string, width func(rune) int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n || prefix(s, n, width) == len(s) {
		return s // a rune is at least one byte wide, so len(s) <= n fits
	}
	room := n
	for _, r := range mark {
		room -= width(r)
	}
	if room < 0 {
		return s[:prefix(s, n, width)]
	}
	return strings.TrimRightFunc(s[:prefix(s, room, width)], unicode.IsSpace) + mark
}

// prefix returns the length in bytes of the longest prefix of s that is at
// most n wide.
func prefix(s string, n int, width func(rune) int) int {
	for i, r := range s {
		if n -= width(r); n < 0 {
			return i
		}
	}
	return len(s)
}

func runeWidth(rune) int { return 1 }

// utf16Width is 2 for a rune UTF-16 writes as a surrogate pair, else 1
// (an invalid byte is written as U+FFFD, one unit).
func utf16Width(r rune) int { return max(utf16.RuneLen(r), 1) }
