package links

import (
	"strings"
	"testing"
)

func TestHTTP(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/a?b=c#d":                        "https://example.com/a?b=c#d",
		"http://localhost:8080/x":                            "http://localhost:8080/x",
		"HTTPS://Example.com/":                               "HTTPS://Example.com/",
		"https://x.example/a|b<c>\"d\"":                      "https://x.example/a%7Cb%3Cc%3E%22d%22",
		"javascript:alert(1)":                                "",
		"JavaScript://example.com/%0Aalert(1)":               "",
		"data:text/html;base64,PHNjcmlwdD4=":                 "",
		"vbscript:msgbox":                                    "",
		"file:///etc/passwd":                                 "",
		"mailto:someone@example.com":                         "",
		"//example.com/a":                                    "",
		"/docs/a.md":                                         "",
		"docs/a.md":                                          "",
		"https:example.com":                                  "",
		"https://":                                           "",
		"https://bank.example@evil.example/":                 "",
		"https://example.com/a b":                            "",
		"https://example.com/a\tb":                           "",
		"https://example.com/\u2028":                         "",
		"https://example.com/" + strings.Repeat("a", MaxLen): "",
		"https://example.com\\@evil.example/":                "",
		"":                                                   "",
	} {
		if got := HTTP(in); got != want {
			t.Errorf("HTTP(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzHTTP: a link given out is an http(s) URL with a host, and checking
// it again changes nothing.
func FuzzHTTP(f *testing.F) {
	for _, s := range []string{"https://example.com/a|b", "http://0\"0000000", "javascript:alert(1)", "https://a.example/%3C"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := HTTP(s)
		if out == "" {
			return
		}
		if !absolute(out) || HTTP(out) != out {
			t.Errorf("HTTP(%q) = %q, which is not a stable http(s) link", s, out)
		}
	})
}
