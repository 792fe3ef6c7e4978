package metrics

import (
	"net/http"
	"strconv"
)

// HTTPClient returns a copy of base (nil: http.DefaultClient) whose
// requests are counted as chat platform API calls of platform ("slack",
// "discord"): by status class, and 429s as rate-limit waits, since both
// adapters wait and retry on a 429. The adapters need no change for it.
func (m *Metrics) HTTPClient(platform string, base *http.Client) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &chatTransport{next: next, m: m, platform: platform}
	return c
}

type chatTransport struct {
	next     http.RoundTripper
	m        *Metrics
	platform string
}

func (t *chatTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	status := "error"
	switch {
	case err != nil:
	case resp.StatusCode == http.StatusTooManyRequests:
		status = "429"
		t.m.rateLimited.WithLabelValues(t.platform).Inc()
	default:
		status = strconv.Itoa(resp.StatusCode/100) + "xx"
	}
	t.m.chatCalls.WithLabelValues(t.platform, status).Inc()
	return resp, err
}
