package agent

import (
	"errors"
	"fmt"
)

// Error codes, mapped by each edge (CLI, Slack, Discord) to its own form.
const (
	EINVALID  = "invalid"  // the question itself is unusable; Message says why
	EINTERNAL = "internal" // anything else; details belong in the log
)

// ErrBadOutput means the model answered, but not with what was asked for
// (invalid JSON, a missing field, an unknown route). The server works, so
// only that call falls back to the offline engine; any other model error
// takes the rest of the run offline. llm.ErrBadOutput is this error.
var ErrBadOutput = errors.New("unusable model output")

// CutOffError is a model's reply that ended before the model finished it.
// A Generator returns it with the text written until the cut (see
// Generator); the agent never checks nor badges that text as an answer
// (check.go). A reply cut at the length limit is also ErrBadOutput where a
// client reports it (the server works, the reply cannot be used); a reply
// that stopped arriving is not, since the server or the connection to it
// failed.
type CutOffError struct {
	// AtLimit is true when the model reached the length limit it was
	// given (finish_reason "length"): a shorter reply may fit. False when
	// the reply stopped arriving: a stream that ended with neither a
	// finish reason nor [DONE].
	AtLimit bool
}

func (e *CutOffError) Error() string {
	if e.AtLimit {
		return "the reply was cut off at the model's length limit"
	}
	return "the reply stopped before the model finished it"
}

// Error is an error meant for the person who asked.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, EINTERNAL for errors that are not *Error.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns what may be shown to a user for err: the message of
// an *Error, or a generic line for anything else, whose details stay in the log.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Something went wrong while answering; the details are in the bot's log."
}
