package retry_test

import (
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard/switchboard/internal/retry"
)

func TestAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		header, value string
		want          time.Duration
		ok            bool
	}{
		{"Retry-After", "2", 2 * time.Second, true},
		{"Retry-After", " 3 ", 3 * time.Second, true},
		{"Retry-After", "0", 0, true},
		{"Retry-After", "1.5", 1500 * time.Millisecond, true},
		{"Retry-After", "-1", 0, true}, // nonsense, but it means now
		{"Retry-After", now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{"Retry-After", now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"Retry-After", "soon", 0, false},
		{"Retry-After", "", 0, false},
		{"Retry-After", "Inf", 0, false},
		{"Retry-After", "NaN", 0, false},
		{"Retry-After", "0x10", 0, false},
		{"Retry-After", "1e400", math.MaxInt64, true},
		{"Retry-After", "99999999999999999999", math.MaxInt64, true},
		{"Retry-After-Ms", "250", 250 * time.Millisecond, true},
		{"Retry-After-Ms", "0.5", 500 * time.Microsecond, true},
		{"Retry-After-Ms", "later", 0, false},
		{"X-Other", "5", 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		h.Set(tt.header, tt.value)
		got, ok := retry.After(h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %q = %v, %v; want %v, %v", tt.header, tt.value, got, ok, tt.want, tt.ok)
		}
	}

	// Retry-After-Ms is the finer of the two, so it wins; when it is not a
	// number, Retry-After still counts.
	h := http.Header{"Retry-After": {"2"}, "Retry-After-Ms": {"20"}}
	if got, _ := retry.After(h, now); got != 20*time.Millisecond {
		t.Errorf("both headers: %v, want Retry-After-Ms's 20ms", got)
	}
	h.Set("Retry-After-Ms", "x")
	if got, _ := retry.After(h, now); got != 2*time.Second {
		t.Errorf("malformed Retry-After-Ms: %v, want Retry-After's 2s", got)
	}
}

// FuzzAfter: no header makes After panic or name a negative wait, a
// whole number of seconds means that many, and a date is read against
// now.
func FuzzAfter(f *testing.F) {
	for _, seed := range [][2]string{
		{"", "2"}, {"", "0"}, {"", "1.25"}, {"", "-3"}, {"", "soon"}, {"", "1e400"}, {"", "9223372036.854775807"},
		{"", "Wed, 21 Oct 2015 07:28:00 GMT"}, {"", "Sunday, 06-Nov-94 08:49:37 GMT"}, {"", "Sun Nov  6 08:49:37 1994"},
		{"250", ""}, {"0.5", "2"}, {"x", "2"}, {"NaN", "Inf"}, {"+1", "1e-400"},
	} {
		f.Add(seed[0], seed[1])
	}
	now := time.Date(2015, 10, 21, 7, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ms, s string) {
		h := http.Header{}
		if ms != "" {
			h.Set("Retry-After-Ms", ms)
		}
		if s != "" {
			h.Set("Retry-After", s)
		}
		d, ok := retry.After(h, now)
		if d < 0 || (!ok && d != 0) {
			t.Fatalf("After(%q, %q) = %v, %v", ms, s, d, ok)
		}
		if again, ok2 := retry.After(h, now); again != d || ok2 != ok {
			t.Fatalf("After(%q, %q) = %v, %v, then %v, %v", ms, s, d, ok, again, ok2)
		}
		if ms == "" {
			if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < 1<<30 && (!ok || d != time.Duration(n)*time.Second) {
				t.Fatalf("After(Retry-After: %q) = %v, %v; want %ds", s, d, ok, n)
			}
			if at, err := http.ParseTime(s); err == nil && (!ok || d != max(at.Sub(now), 0)) {
				t.Fatalf("After(Retry-After: %q) = %v, %v; want until %v", s, d, ok, at)
			}
		}
	})
}
