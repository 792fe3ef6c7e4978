package retry

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// After reads how long a server asked us to wait before trying again:
// Retry-After-Ms (OpenAI's, in milliseconds), else the standard
// Retry-After in seconds or as an HTTP date, measured from now. Seconds
// and milliseconds may have a fraction; a negative number or a date in
// the past means now. ok is false when neither header holds a wait.
//
// A wait too long to be a time.Duration is the longest one: the caller's
// MaxWait or Budget decides what to do with it.
func After(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if d, ok := number(h.Get("Retry-After-Ms"), time.Millisecond); ok {
		return d, true
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if d, ok := number(v, time.Second); ok {
		return d, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true // Sub saturates rather than overflows
	}
	return 0, false
}

// number reads v as a count of units.
func number(v string, unit time.Duration) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" || strings.ContainsFunc(v, notDecimal) {
		return 0, false // ParseFloat would also take "Inf", "0x1p4" and "1_0"
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false // out of range is ±Inf, which the cases below take
	}
	ns := n * float64(unit)
	switch {
	case ns <= 0:
		return 0, true
	case ns >= math.MaxInt64: // converting it would overflow
		return math.MaxInt64, true
	}
	return time.Duration(ns), true
}

// notDecimal reports whether r cannot be part of a decimal number.
func notDecimal(r rune) bool {
	return (r < '0' || r > '9') && r != '.' && r != '-' && r != '+' && r != 'e' && r != 'E'
}
