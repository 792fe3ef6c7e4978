package llm

import (
	"errors"
	"testing"
	"time"
)

func TestBreakerStates(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	b := newBreaker(BreakerConfig{Failures: 3, Cooldown: time.Minute, Now: func() time.Time { return now }})
	fail := func() {
		t.Helper()
		if err := b.allow(); err != nil {
			t.Fatalf("refused while %s: %v", b.state, err)
		}
		b.record(failed)
	}
	fail()
	fail()
	if err := b.allow(); err != nil {
		t.Fatal(err)
	}
	b.record(succeeded) // a success in between resets the count
	fail()
	fail()
	if b.state != CircuitClosed {
		t.Fatalf("state after 2 failures = %s", b.state)
	}
	fail()
	var open *CircuitOpenError
	if err := b.allow(); !errors.As(err, &open) || open.Failures != 3 || open.RetryIn != time.Minute {
		t.Fatalf("after 3 failures: %v", err)
	}

	now = now.Add(time.Minute)
	if err := b.allow(); err != nil || b.state != CircuitHalfOpen {
		t.Fatalf("after the cool-down: %v, %s", err, b.state)
	}
	if err := b.allow(); !errors.Is(err, ErrCircuitOpen) {
		t.Errorf("a second request during the probe: %v", err)
	}
	b.record(abandoned) // the probe's caller gave up: another may probe
	if err := b.allow(); err != nil {
		t.Fatalf("next probe: %v", err)
	}
	b.record(failed) // a failed probe reopens at once
	if err := b.allow(); !errors.As(err, &open) || open.RetryIn != time.Minute {
		t.Fatalf("after a failed probe: %v", err)
	}
	now = now.Add(time.Minute)
	if err := b.allow(); err != nil {
		t.Fatal(err)
	}
	b.record(succeeded)
	if b.state != CircuitClosed || b.failures != 0 {
		t.Errorf("after a good probe: %s, %d failures", b.state, b.failures)
	}
}
