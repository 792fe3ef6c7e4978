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
