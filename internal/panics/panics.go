// Package panics turns a panic in one piece of work (one answer, one
// ingest run, one live update, one chat event) into that piece's error, so
// that the process and every other piece in flight carry on.
package panics

import (
	"fmt"
	"log/slog"
	"runtime/debug"
)

// Error is a recovered panic. Its message says only that something broke:
// the value and the stack are for the log, not for the people in a chat.
type Error struct {
	What  string // the work that panicked, e.g. "answer"
	Value any
	Stack []byte
}

func (e *Error) Error() string { return e.What + ": internal error" }

// Catch runs f. A panic in f is logged at error level with its stack (to
// slog.Default() when log is nil) and returned as an *Error; otherwise
// Catch returns what f returned. A panic
// on another goroutine that f started is not caught: each goroutine that
// runs outside input through code that may panic needs its own Catch.
func Catch(log *slog.Logger, what string, f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			stack := debug.Stack()
			if log == nil {
				log = slog.Default()
			}
			log.Error("recovered from a panic", "in", what, "panic", fmt.Sprint(v), "stack", string(stack))
			err = &Error{What: what, Value: v, Stack: stack}
		}
	}()
	return f()
}
