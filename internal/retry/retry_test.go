package retry_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/switchboard/switchboard/internal/retry"
)

// sleeper records the waits Do asks for and returns at once: no test
// here waits for real.
type sleeper struct{ waits []time.Duration }

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.waits = append(s.waits, d)
	return ctx.Err()
}

// low and high make the jitter take off all it may, or nothing.
func low(int64) int64    { return 0 }
func high(n int64) int64 { return n - 1 }

var errBusy = errors.New("busy")

// failing is a call that asks for another attempt n times, then succeeds.
func failing(n int, o func(err error) retry.Outcome) (call func(int) retry.Outcome, calls *int) {
	calls = new(int)
	return func(int) retry.Outcome {
		*calls++
		if *calls <= n {
			return o(errBusy)
		}
		return retry.Stop(nil)
	}, calls
}

func TestDoRetriesUntilSuccess(t *testing.T) {
	s := &sleeper{}
	call, calls := failing(2, retry.Again)
	err := retry.Do(context.Background(), retry.Policy{Attempts: 5, Sleep: s.Sleep}, call)
	if err != nil || *calls != 3 || len(s.waits) != 2 {
		t.Errorf("Do = %v after %d calls and %d waits; want nil after 3 and 2", err, *calls, len(s.waits))
	}
}

// Every loop is bounded: the attempts run out and the last error is
// returned, whatever the call keeps asking.
func TestDoBoundsAttempts(t *testing.T) {
	for _, tt := range []struct {
		attempts, calls int
	}{{0, 1}, {1, 1}, {4, 4}} {
		s := &sleeper{}
		call, calls := failing(100, retry.Again)
		err := retry.Do(context.Background(), retry.Policy{Attempts: tt.attempts, Sleep: s.Sleep}, call)
		if !errors.Is(err, errBusy) || *calls != tt.calls || len(s.waits) != tt.calls-1 {
			t.Errorf("Attempts %d: %v after %d calls, %d waits; want errBusy after %d", tt.attempts, err, *calls, len(s.waits), tt.calls)
		}
	}
}

// A failure the call calls final is returned at once.
func TestDoStop(t *testing.T) {
	s := &sleeper{}
	call, calls := failing(100, retry.Stop)
	err := retry.Do(context.Background(), retry.Policy{Attempts: 5, Sleep: s.Sleep}, call)
	if !errors.Is(err, errBusy) || *calls != 1 || len(s.waits) != 0 {
		t.Errorf("Do = %v after %d calls, %d waits; want errBusy at once", err, *calls, len(s.waits))
	}
}

// Backoff doubles from Backoff to MaxBackoff, and equal jitter keeps
// between half and all of it.
func TestDoBackoff(t *testing.T) {
	p := retry.Policy{Attempts: 7, Backoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	full := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for name, rnd := range map[string]func(int64) int64{"low": low, "high": high} {
		s := &sleeper{}
		p.Sleep, p.Rand = s.Sleep, rnd
		call, _ := failing(100, retry.Again)
		_ = retry.Do(context.Background(), p, call)
		want := make([]time.Duration, len(full))
		for i, ms := range full {
			want[i] = ms * time.Millisecond
			if name == "low" {
				want[i] /= 2
			}
		}
		if !slices.Equal(s.waits, want) {
			t.Errorf("%s jitter: waits %v, want %v", name, s.waits, want)
		}
	}

	// The defaults, and MaxWait capping MaxBackoff.
	s := &sleeper{}
	call, _ := failing(100, retry.Again)
	_ = retry.Do(context.Background(), retry.Policy{Attempts: 12, MaxWait: 20 * time.Second, Sleep: s.Sleep, Rand: high}, call)
	if s.waits[0] != retry.DefaultBackoff || s.waits[len(s.waits)-1] != 20*time.Second {
		t.Errorf("waits %v, want from %s to MaxWait", s.waits, retry.DefaultBackoff)
	}
}

// A wait the server named is kept as it is, up to MaxWait; AtLeast lifts
// a backoff, and MaxWait caps that too.
func TestDoNamedWaits(t *testing.T) {
	tests := []struct {
		name    string
		outcome retry.Outcome
		maxWait time.Duration
		want    time.Duration
	}{
		{"named", retry.Later(errBusy, 3*time.Second), 0, 3 * time.Second},
		{"named zero", retry.Later(errBusy, 0), 0, 0},
		{"named negative", retry.Later(errBusy, -time.Second), 0, 0},
		{"named past MaxWait", retry.Later(errBusy, time.Hour), 5 * time.Second, 5 * time.Second},
		{"backoff at least", retry.Again(errBusy).AtLeast(time.Second), 0, time.Second},
		{"at least past MaxWait", retry.Again(errBusy).AtLeast(time.Minute), 5 * time.Second, 5 * time.Second},
		{"named at least", retry.Later(errBusy, 2*time.Second).AtLeast(time.Second), 0, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &sleeper{}
			call, _ := failing(1, func(error) retry.Outcome { return tt.outcome })
			err := retry.Do(context.Background(), retry.Policy{Attempts: 2, MaxWait: tt.maxWait, Sleep: s.Sleep, Rand: high}, call)
			if err != nil || !slices.Equal(s.waits, []time.Duration{tt.want}) {
				t.Errorf("Do = %v, waits %v; want nil after %s", err, s.waits, tt.want)
			}
		})
	}
}

// A wait that would take the waits past Budget is not begun: the last
// attempt's error is returned instead.
func TestDoBudget(t *testing.T) {
	s := &sleeper{}
	waits := []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second}
	calls := 0
	err := retry.Do(context.Background(), retry.Policy{Attempts: 10, Budget: 5 * time.Second, Sleep: s.Sleep}, func(attempt int) retry.Outcome {
		calls++
		return retry.Later(errBusy, waits[attempt-1])
	})
	if !errors.Is(err, errBusy) || calls != 3 || !slices.Equal(s.waits, waits[:2]) {
		t.Errorf("Do = %v after %d calls, waits %v; want errBusy after 3 calls and 4s of waits", err, calls, s.waits)
	}

	// A 5xx answer is no error to an HTTP transport: running out is then nil.
	s = &sleeper{}
	err = retry.Do(context.Background(), retry.Policy{Attempts: 3, Budget: time.Second, Sleep: s.Sleep}, func(int) retry.Outcome {
		return retry.Later(nil, time.Hour)
	})
	if err != nil || len(s.waits) != 0 {
		t.Errorf("Do = %v, waits %v; want nil and no wait", err, s.waits)
	}
}

// The context ends the retries, in a wait or between an attempt and its
// retry, and the error says so while keeping the last attempt's.
func TestDoContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := retry.Do(ctx, retry.Policy{Attempts: 5, Sleep: func(ctx context.Context, _ time.Duration) error {
		cancel()
		return ctx.Err()
	}}, func(int) retry.Outcome {
		calls++
		return retry.Again(errBusy)
	})
	var stopped *retry.StoppedError
	if !errors.As(err, &stopped) || !errors.Is(err, context.Canceled) || !errors.Is(err, errBusy) || calls != 1 {
		t.Errorf("cancelled in a wait: %v after %d calls", err, calls)
	}
	if got := err.Error(); got != "busy, then context canceled" {
		t.Errorf("message %q", got)
	}

	ctx, cancel = context.WithCancel(context.Background())
	s := &sleeper{}
	calls = 0
	err = retry.Do(ctx, retry.Policy{Attempts: 5, Sleep: s.Sleep}, func(int) retry.Outcome {
		calls++
		cancel()
		return retry.Again(nil)
	})
	if !errors.As(err, &stopped) || stopped.Err != nil || err.Error() != "context canceled" || calls != 1 || len(s.waits) != 0 {
		t.Errorf("cancelled in an attempt: %v after %d calls and %d waits", err, calls, len(s.waits))
	}
}

func TestDoOnRetry(t *testing.T) {
	type heard struct {
		attempt int
		err     error
		wait    time.Duration
	}
	var got []heard
	p := retry.Policy{Attempts: 3, Sleep: (&sleeper{}).Sleep, OnRetry: func(attempt int, err error, wait time.Duration) {
		got = append(got, heard{attempt, err, wait})
	}}
	call, _ := failing(100, func(err error) retry.Outcome { return retry.Later(err, time.Second) })
	_ = retry.Do(context.Background(), p, call)
	want := []heard{{1, errBusy, time.Second}, {2, errBusy, time.Second}}
	if !slices.Equal(got, want) {
		t.Errorf("OnRetry heard %v, want %v", got, want)
	}
}

// The default sleeper ends with its ctx: were it to wait out the hour,
// the test would time out.
func TestSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := retry.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep = %v, want Canceled", err)
	}
	if err := retry.Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v, want nil", err)
	}
	if err := retry.Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) after cancel = %v, want Canceled", err)
	}
}
