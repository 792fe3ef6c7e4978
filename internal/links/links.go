// Package links decides what may become a link people click: front
// matter's url:, DOCS_BASE_URL, a web result's or a chat message's
// location. It is one check, used where links are read (ingest) and where
// they are made (the agent's sources, the presenter), because they come
// from documents and the web and a check in one place only would trust
// whatever older versions stored.
package links

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLen bounds a link: longer ones are not links people follow.
const MaxLen = 2048

// unsafe are the characters RFC 3986 never allows raw; encoded, they
// cannot end a link in chat markup (<url|title>, [title](url)).
var unsafe = strings.NewReplacer("<", "%3C", ">", "%3E", "\"", "%22", "|", "%7C", "`", "%60", "{", "%7B", "}", "%7D", "^", "%5E")

// HTTP returns s as a link if it is an absolute http or https URL with a
// host, with the characters RFC 3986 never allows raw percent-encoded,
// and "" for anything else: javascript:, data: and other schemes,
// relative paths, a user name in the host part
// ("https://bank.example@evil.example/"), white space, control
// characters, backslashes (browsers read them as slashes), invalid UTF-8,
// or more than MaxLen bytes.
func HTTP(s string) string {
	if s == "" || len(s) > MaxLen || strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == '\\' || r == utf8.RuneError
	}) {
		return ""
	}
	// The encoded form is what people get, so it is the one that must be
	// a URL: a host with a quote in it parses raw but not encoded.
	out := unsafe.Replace(s)
	if !absolute(s) || !absolute(out) {
		return ""
	}
	return out
}

// absolute reports whether s parses as an http(s) URL with a host and no
// user name.
func absolute(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil && u.Opaque == ""
}
