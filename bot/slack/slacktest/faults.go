package slacktest

import (
	"fmt"
	"net/http"
	"strconv"
)

// This file lets a test fail Web API calls the ways Slack and networks
// do. A fault is served instead of the call's answer; an Applied fault is
// served after the call was done, which is the case a caller cannot tell
// from a call that did nothing (a post made, then a 500 or a lost
// connection).

// AnyMethod, as Fail's method, fails calls of every method; faults queued
// for the method itself are served first.
const AnyMethod = "*"

// Fault is one failed answer of the fake.
type Fault struct {
	// Status is the HTTP status to answer with: 429, 500, 502, 503… (0:
	// 200). Without Error, the body is HTML, as Slack's edge sends it.
	Status int
	// Error, if set, answers {"ok":false,"error":Error}: "internal_error",
	// "fatal_error", "service_unavailable", "invalid_auth"…
	Error string
	// RetryAfter is the Retry-After header of a 429, in seconds (-1 or a
	// Status other than 429: none).
	RetryAfter int
	// Drop closes the connection without answering.
	Drop bool
	// Hang answers nothing until the caller gives up (its timeout) or the
	// server closes.
	Hang bool
	// Applied does the call first: the message is posted, edited or
	// deleted, and the caller hears only the fault.
	Applied bool
}

// ServerError is an HTTP 5xx (500, 502, 503, 504) with an HTML body.
func ServerError(status int) Fault { return Fault{Status: status} }

// SlackError is {"ok":false,"error":code} at HTTP 200.
func SlackError(code string) Fault { return Fault{Error: code} }

// RateLimited is a 429 with a Retry-After of retryAfter seconds (-1: none).
func RateLimited(retryAfter int) Fault {
	return Fault{Status: http.StatusTooManyRequests, Error: "ratelimited", RetryAfter: retryAfter}
}

// Faults of the network.
var (
	Dropped = Fault{Drop: true} // the connection closes before any answer
	Hung    = Fault{Hang: true} // no answer at all
)

// AfterDoing returns f served after the call was done.
func (f Fault) AfterDoing() Fault {
	f.Applied = true
	return f
}

// String names the fault in test names and logs.
func (f Fault) String() string {
	var s string
	switch {
	case f.Drop:
		s = "dropped connection"
	case f.Hang:
		s = "hung connection"
	case f.Status == http.StatusTooManyRequests:
		s = fmt.Sprintf("429 (Retry-After %d)", f.RetryAfter)
	case f.Status != 0 && f.Error != "":
		s = fmt.Sprintf("%d %s", f.Status, f.Error)
	case f.Status != 0:
		s = strconv.Itoa(f.Status)
	default:
		s = f.Error
	}
	if f.Applied {
		s += " after doing it"
	}
	return s
}

type faultRun struct {
	f Fault
	n int // calls left; < 0: until Heal
}

// Fail makes the next n calls of method (or of any method, AnyMethod)
// fail with f, after the faults already queued for it; n < 0 fails every
// call until Heal. Calls counts failed calls too.
func (s *Server) Fail(method string, n int, f Fault) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[method] = append(s.faults[method], &faultRun{f: f, n: n})
}

// Heal removes the faults queued for method (AnyMethod: for every method
// and AnyMethod itself), so that calls succeed again.
func (s *Server) Heal(method string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if method == AnyMethod {
		clear(s.faults)
		return
	}
	delete(s.faults, method)
}

// Pending reports how many injected faults of method (AnyMethod: of
// AnyMethod's own queue) are still to be served; -1 if one is unbounded.
func (s *Server) Pending(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	total := 0
	for _, r := range s.faults[method] {
		if r.n < 0 {
			return -1
		}
		total += r.n
	}
	return total
}

// nextFault takes the fault the next call of method gets, if any. Callers
// hold s.mu.
func (s *Server) nextFault(method string) (Fault, bool) {
	for _, key := range []string{method, AnyMethod} {
		runs := s.faults[key]
		if len(runs) == 0 {
			continue
		}
		r := runs[0]
		if r.n > 0 {
			r.n--
			if r.n == 0 {
				s.faults[key] = runs[1:]
			}
		}
		return r.f, true
	}
	return Fault{}, false
}

// serveFault writes f's answer, or none.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, f Fault) {
	switch {
	case f.Hang:
		select {
		case <-r.Context().Done():
		case <-s.quit:
		}
		fallthrough // and then drop the connection: nothing is ever answered
	case f.Drop:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler) // net/http closes the connection unanswered
	}
	if f.Status == http.StatusTooManyRequests && f.RetryAfter >= 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	status := f.Status
	if status == 0 {
		status = http.StatusOK
	}
	if f.Error != "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		writeJSON(w, fail(f.Error))
		return
	}
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>\n", status, http.StatusText(status))
}
