// Package tavily is the web route's retriever: it asks Tavily's search API
// (https://docs.tavily.com) for pages about the search query and returns
// them as agent documents.
package tavily

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/retry"
	"github.com/switchboard/switchboard/internal/text"
)

// Defaults for Config.
const (
	DefaultBaseURL    = "https://api.tavily.com"
	DefaultTimeout    = 15 * time.Second
	DefaultMaxResults = 5
)

const (
	// maxResultsLimit is the most results the API returns for one search.
	maxResultsLimit = 20
	// maxQueryRunes bounds the query: Tavily rejects long queries, and a
	// search query that long is a pasted question anyway.
	maxQueryRunes = 400
	// maxRetryAfter bounds how long a rate-limited search waits to retry.
	// A user is watching the progress message; past this, failing with a
	// clear error is better than waiting.
	maxRetryAfter = 5 * time.Second
	// defaultRetryAfter is the wait after a 429 without a usable Retry-After.
	defaultRetryAfter = time.Second
	// maxBody bounds how much of a response is read.
	maxBody = 4 << 20
)

// Config configures a Retriever. cmd/ fills it from the environment
// (TAVILY_API_KEY); nothing here reads the environment.
type Config struct {
	// APIKey is the Tavily key ("tvly-..."). Empty means web search is not
	// configured: Retrieve then returns an error matching
	// agent.ErrNotConfigured.
	APIKey string
	// BaseURL is the API's address. Default https://api.tavily.com; tests
	// point it at an httptest server.
	BaseURL string
	// HTTPClient makes the requests. Default http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds one Retrieve, retry included. Default 15s.
	Timeout time.Duration
	// MaxResults is the most results asked for; a smaller Request.Limit
	// wins. Default 5, at most 20.
	MaxResults int
}

// Retriever searches the web with Tavily. It is safe for concurrent use.
type Retriever struct {
	cfg   Config
	sleep func(ctx context.Context, d time.Duration) error // tests replace it
}

var _ agent.Retriever = (*Retriever)(nil)

// New returns a Retriever for cfg, filling in defaults. It never fails: an
// empty APIKey gives a Retriever that reports it is not configured.
func New(cfg Config) *Retriever {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxResults <= 0 {
		cfg.MaxResults = DefaultMaxResults
	}
	cfg.MaxResults = min(cfg.MaxResults, maxResultsLimit)
	return &Retriever{cfg: cfg, sleep: retry.Sleep}
}

// Configured reports whether the Retriever has an API key.
func (r *Retriever) Configured() bool { return r.cfg.APIKey != "" }

// notConfigured is the error for a missing key. It matches
// agent.ErrNotConfigured, which the agent turns into a notice to the user,
// and its message says how to fix it.
type notConfigured struct{}

func (notConfigured) Error() string { return "web search is not configured: set TAVILY_API_KEY" }
func (notConfigured) Unwrap() error { return agent.ErrNotConfigured }

// StatusError is a non-2xx answer from Tavily.
type StatusError struct {
	Code int    // HTTP status code
	Body string // the start of the response body, for the log
}

// Error reads "tavily: search: 401 Unauthorized (check TAVILY_API_KEY): {...}".
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("tavily: search: %d %s", e.Code, http.StatusText(e.Code))
	switch e.Code {
	case http.StatusUnauthorized, http.StatusForbidden:
		msg += " (check TAVILY_API_KEY)"
	case http.StatusTooManyRequests:
		msg += " (rate limited)"
	}
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// searchRequest is the body of POST /search. The key travels in the
// Authorization header, as the current API wants, and in api_key too, which
// older API versions read instead.
type searchRequest struct {
	APIKey        string `json:"api_key"`
	Query         string `json:"query"`
	MaxResults    int    `json:"max_results"`
	SearchDepth   string `json:"search_depth"`
	IncludeAnswer bool   `json:"include_answer"`
}

// searchResponse is the part of the answer we use. Other fields
// (response_time, images, answer) are ignored; response_time has been both
// a number and a string, so it is deliberately not decoded.
type searchResponse struct {
	Results []struct {
		Title         string  `json:"title"`
		URL           string  `json:"url"`
		Content       string  `json:"content"`
		Score         float64 `json:"score"`
		PublishedDate string  `json:"published_date"`
	} `json:"results"`
}

// Retrieve searches the web for req.Query (req.Question when Query is
// empty) and returns up to min(req.Limit, MaxResults) results, best first,
// as documents with Route agent.RouteWeb: Title, Location (the URL),
// Content (Tavily's extract of the page) and Score.
//
// It fails with an error matching agent.ErrNotConfigured when there is no
// API key, with *StatusError on a non-2xx answer (a 429 is retried once,
// after its Retry-After when that is at most 5s), and with a decode error
// on a malformed answer. The whole call, retry included, is bounded by
// Config.Timeout.
func (r *Retriever) Retrieve(ctx context.Context, req agent.Request) ([]agent.Document, error) {
	if !r.Configured() {
		return nil, notConfigured{}
	}
	query := strings.TrimSpace(req.Query)
	if query == "" {
		query = strings.TrimSpace(req.Question)
	}
	if query == "" {
		return nil, errors.New("tavily: search: empty query")
	}
	n := r.cfg.MaxResults
	if req.Limit > 0 && req.Limit < n {
		n = req.Limit
	}
	body, err := json.Marshal(searchRequest{
		APIKey:      r.cfg.APIKey,
		Query:       text.ClipWith(query, maxQueryRunes, ""),
		MaxResults:  n,
		SearchDepth: "basic",
	})
	if err != nil {
		return nil, fmt.Errorf("tavily: encode request: %w", err)
	}

	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	// Only a 429 is retried, once, after its Retry-After (a second when
	// it names none); one that asks for more than maxRetryAfter is
	// returned at once.
	var resp *response
	p := retry.Policy{Attempts: 2, Budget: maxRetryAfter, Sleep: r.sleep}
	err = retry.Do(ctx, p, func(int) retry.Outcome {
		var err error
		resp, err = r.post(ctx, body)
		if se := (*StatusError)(nil); errors.As(err, &se) && se.Code == http.StatusTooManyRequests {
			wait, ok := retry.After(resp.header, time.Now())
			if !ok {
				wait = defaultRetryAfter
			}
			return retry.Later(err, wait)
		}
		return retry.Stop(err)
	})
	if stopped := (*retry.StoppedError)(nil); errors.As(err, &stopped) {
		return nil, fmt.Errorf("tavily: search: waiting to retry: %w", stopped.Ctx)
	}
	if err != nil {
		return nil, err
	}

	var sr searchResponse
	if err := json.Unmarshal(resp.body, &sr); err != nil {
		return nil, fmt.Errorf("tavily: decode response: %w (body: %s)", err, excerpt(resp.body, r.cfg.APIKey))
	}
	docs := make([]agent.Document, 0, len(sr.Results))
	for _, res := range sr.Results {
		if strings.TrimSpace(res.Content) == "" || res.URL == "" {
			continue // nothing to ground an answer on, or nothing to cite
		}
		title := strings.TrimSpace(res.Title)
		if title == "" {
			title = res.URL
		}
		doc := agent.Document{
			ID:       res.URL,
			Title:    title,
			Location: res.URL,
			Content:  strings.TrimSpace(res.Content),
			Score:    res.Score,
			Route:    agent.RouteWeb,
			Kind:     agent.KindWeb,
		}
		if res.PublishedDate != "" {
			doc.Metadata = map[string]string{"published_date": res.PublishedDate}
		}
		docs = append(docs, doc)
		if len(docs) == n {
			break
		}
	}
	return docs, nil
}

// response is what post read from one answer.
type response struct {
	header http.Header
	body   []byte
}

// post sends one search request. A non-2xx answer is a *StatusError, with
// the response returned too so that the caller can read Retry-After.
func (r *Retriever) post(ctx context.Context, body []byte) (*response, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, r.cfg.BaseURL+"/search", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("tavily: search: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	hresp, err := r.cfg.HTTPClient.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("tavily: search: %w", err)
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("tavily: search: read response: %w", err)
	}
	resp := &response{header: hresp.Header, body: data}
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		return resp, &StatusError{Code: hresp.StatusCode, Body: excerpt(data, r.cfg.APIKey)}
	}
	return resp, nil
}

// excerpt returns the start of a response body for an error message, on
// one line, with the API key blanked in case the server echoed it.
func excerpt(body []byte, key string) string {
	s := text.OneLine(strings.ToValidUTF8(string(body), "\uFFFD"))
	if key != "" {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	return text.ClipWords(s, 200)
}
