package text

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// truncated is a mark of the length a prompt uses: 13 runes.
const truncated = " …[truncated]"

func TestClipping(t *testing.T) {
	funcs := map[string]func(string, int) string{
		"Clip":      Clip,
		"ClipWith":  func(s string, n int) string { return ClipWith(s, n, truncated) },
		"ClipUTF16": ClipUTF16,
		"ClipWords": ClipWords,
		"ClipBytes": ClipBytes,
	}
	cases := []struct {
		f, name string
		s       string
		n       int
		want    string
	}{
		{"Clip", "fits", "hello", 5, "hello"},
		{"Clip", "cut, mark counted", "hello world", 8, "hello w…"},
		{"Clip", "space before the mark dropped", "hello world", 7, "hello…"},
		{"Clip", "one rune is the mark", "hello", 1, "…"},
		{"Clip", "zero", "hello", 0, ""},
		{"Clip", "negative", "hello", -3, ""},
		{"Clip", "empty", "", 10, ""},
		{"Clip", "multi-byte fits", "Grüße", 5, "Grüße"},
		{"Clip", "multi-byte cut between runes", "Grüße aus Köln", 4, "Grü…"},
		{"Clip", "CJK", "日本語のテキスト", 4, "日本語…"},
		{"Clip", "emoji count as one rune", "👍👍👍", 2, "👍…"},
		{"ClipWith", "fits", "short", 20, "short"},
		{"ClipWith", "cut", strings.Repeat("ä", 30), 20, strings.Repeat("ä", 7) + truncated},
		{"ClipWith", "no room for the mark", strings.Repeat("ä", 30), 5, "äääää"},
		{"ClipWith", "zero", "text", 0, ""},
		{"ClipUTF16", "fits", "abc", 3, "abc"},
		{"ClipUTF16", "emoji are two units", "👍👍", 4, "👍👍"},
		{"ClipUTF16", "emoji over the limit", "👍👍", 3, "👍…"},
		{"ClipUTF16", "no half surrogate pair", "a👍b", 3, "a…"},
		{"ClipUTF16", "BMP text is one unit a rune", "Grüße", 4, "Grü…"},
		{"ClipUTF16", "zero", "abc", 0, ""},
		{"ClipWords", "fits", "ten days a year", 15, "ten days a year"},
		{"ClipWords", "at a word", "ten days a year", 12, "ten days a…"},
		{"ClipWords", "what fits ends a word", "apples, pears and plums", 14, "apples, pears…"},
		{"ClipWords", "dangling comma dropped", "apples, pears and plums", 9, "apples…"},
		{"ClipWords", "no space in the second half: mid-word", "a verylongwordindeed", 10, "a verylon…"},
		{"ClipWords", "multi-byte", "Überstunden werden vergütet", 20, "Überstunden werden…"},
		{"ClipWords", "one rune is the mark", "ten days", 1, "…"},
		{"ClipWords", "zero", "ten days", 0, ""},
		{"ClipWords", "negative", "ten days", -1, ""},
		{"ClipBytes", "fits", "abc", 3, "abc"},
		{"ClipBytes", "cut", "abcdef", 4, "abcd"},
		{"ClipBytes", "not inside a character", "aü", 2, "a"}, // ü is two bytes
		{"ClipBytes", "emoji", "👍👍", 7, "👍"},
		{"ClipBytes", "zero", "abc", 0, ""},
		{"ClipBytes", "negative", "abc", -1, ""},
	}
	for _, c := range cases {
		t.Run(c.f+"/"+c.name, func(t *testing.T) {
			if got := funcs[c.f](c.s, c.n); got != c.want {
				t.Errorf("%s(%q, %d) = %q, want %q", c.f, c.s, c.n, got, c.want)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"  MATCH (n)\n  RETURN n\n", "MATCH (n) RETURN n"},
		{"a\t\tb\r\nc", "a b c"},
		{"Grüße\u00a0aus\u3000Köln", "Grüße aus Köln"}, // no-break and ideographic spaces
	}
	for _, c := range cases {
		if got := OneLine(c.in); got != c.want {
			t.Errorf("OneLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzClip checks what every caller relies on: the result fits, keeps a
// valid text valid, and is the start of s plus at most the mark.
func FuzzClip(f *testing.F) {
	f.Add("hello world", 5)
	f.Add("Grüße 👍 aus Köln", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 64
		for name, got := range map[string]string{"Clip": Clip(s, n), "ClipWords": ClipWords(s, n)} {
			if c := utf8.RuneCountInString(got); c > max(n, 0) {
				t.Errorf("%s(%q, %d) = %q: %d runes", name, s, n, got, c)
			}
			if utf8.ValidString(s) && !utf8.ValidString(got) {
				t.Errorf("%s(%q, %d) = %q: not valid UTF-8", name, s, n, got)
			}
			if !strings.HasPrefix(s, strings.TrimSuffix(got, Ellipsis)) {
				t.Errorf("%s(%q, %d) = %q: not the start of s", name, s, n, got)
			}
		}
		if got := ClipUTF16(s, n); len(utf16Units(got)) > max(n, 0) {
			t.Errorf("ClipUTF16(%q, %d) = %q: %d units", s, n, got, len(utf16Units(got)))
		}
		if got := ClipBytes(s, n); len(got) > max(n, 0) || !strings.HasPrefix(s, got) || (utf8.ValidString(s) && !utf8.ValidString(got)) {
			t.Errorf("ClipBytes(%q, %d) = %q", s, n, got)
		}
	})
}

func utf16Units(s string) []uint16 {
	var u []uint16
	for _, r := range s {
		if r > 0xFFFF {
			u = append(u, 0, 0)
		} else {
			u = append(u, 0)
		}
	}
	return u
}

func TestPack(t *testing.T) {
	for _, c := range []struct {
		pieces []string
		sep    string
		limit  int
		want   []string
	}{
		{nil, " ", 5, nil},
		{[]string{"ab", "cd", "ef"}, " ", 5, []string{"ab cd", "ef"}},
		{[]string{"ab", "cd", "ef"}, " ", 8, []string{"ab cd ef"}},
		// A piece over the limit stands alone rather than being cut.
		{[]string{"a", "toolong", "b"}, " ", 3, []string{"a", "toolong", "b"}},
		// Runes count, not bytes: "éé é" is 4 runes, 6 bytes.
		{[]string{"éé", "é"}, " ", 4, []string{"éé é"}},
		// Empty pieces: dropped at the start, a blank line later.
		{[]string{"", "a", "", "b"}, "\n", 10, []string{"a\n\nb"}},
	} {
		if got := Pack(c.pieces, c.sep, c.limit); !slices.Equal(got, c.want) {
			t.Errorf("Pack(%q, %q, %d) = %q, want %q", c.pieces, c.sep, c.limit, got, c.want)
		}
	}
}
