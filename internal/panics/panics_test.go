package panics_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/internal/panics"
)

func TestCatch(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	err := panics.Catch(log, "answer", func() error {
		var s []int
		_ = s[3] // index out of range, as a splitter bug would
		return nil
	})
	var pe *panics.Error
	if !errors.As(err, &pe) || pe.What != "answer" {
		t.Fatalf("err = %v, want a *panics.Error for answer", err)
	}
	if !strings.Contains(buf.String(), "index out of range") || !strings.Contains(buf.String(), "panics_test.go") {
		t.Errorf("log lacks the panic or its stack:\n%s", buf.String())
	}

	want := errors.New("plain")
	if err := panics.Catch(log, "x", func() error { return want }); err != want {
		t.Errorf("Catch passed %v, want %v", err, want)
	}
}
