// Package discordapi holds what the Discord adapter and the Discord history
// reader both need around discordgo: sending its REST calls elsewhere.
package discordapi

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
)

// Rewrite sends requests for Discord's REST API to another base URL (a
// proxy or a test fake). discordgo builds its URLs from package variables;
// changing those would redirect every session in the process (and race in
// parallel tests), so each client rewrites its own requests instead.
type Rewrite struct {
	Base http.RoundTripper // nil: http.DefaultTransport
	To   *url.URL          // ends in "/"
}

// apiPath matches discordgo's API prefix, whatever version it speaks.
var apiPath = regexp.MustCompile(`^/api/v[0-9]+/`)

// RoundTrip implements http.RoundTripper.
func (rt Rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	base := rt.Base
	if base == nil {
		base = http.DefaultTransport
	}
	esc := req.URL.EscapedPath()
	prefix := apiPath.FindString(esc)
	if req.URL.Host != "discord.com" || prefix == "" {
		return base.RoundTrip(req)
	}
	u := *req.URL
	u.Scheme, u.Host = rt.To.Scheme, rt.To.Host
	u.RawPath = rt.To.EscapedPath() + esc[len(prefix):]
	p, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("discord: rewrite %s: %w", esc, err)
	}
	u.Path = p
	r2 := req.Clone(req.Context()) // a RoundTripper must not change the request
	r2.URL, r2.Host = &u, ""
	return base.RoundTrip(r2)
}
