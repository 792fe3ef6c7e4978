package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/switchboard/switchboard/agent"
)

// Case is one question of an evaluation set and what a correct answer
// looks like. See the package documentation for the fields.
type Case struct {
	ID              string      `json:"id,omitempty"`
	Question        string      `json:"question"`
	ExpectedRoute   agent.Route `json:"expected_route,omitempty"`
	MustContain     []string    `json:"must_contain,omitempty"`
	MustCite        string      `json:"must_cite,omitempty"`
	Thread          []string    `json:"thread,omitempty"`
	ExpectDifferent bool        `json:"expect_different,omitempty"`
	PreviousAnswer  string      `json:"previous_answer,omitempty"`
	Note            string      `json:"note,omitempty"`

	// Line is where the case starts in its file (1-based); 0 for cases
	// made in code.
	Line int `json:"-"`
}

// Limits that keep a malformed or hostile file from exhausting memory.
const (
	// MaxLineBytes is the longest line Parse accepts; longer lines are
	// reported and skipped.
	MaxLineBytes = 1 << 20
	// MaxCases is the most cases Parse reads; the rest of the file is
	// reported as one error.
	MaxCases = 100_000
	// MaxThreadTurns bounds a case's thread, as the agent keeps only the
	// last 20 turns anyway.
	MaxThreadTurns = 20
)

// LineError is a line of a set that is not a valid case.
type LineError struct {
	Line int
	Err  error
}

// Error reads "line 7: expected_route "vectr" is not one of vector, graph, web, direct".
func (e LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the reason.
func (e LineError) Unwrap() error { return e.Err }

// ReadFile parses the set in the file at path; see Parse.
func ReadFile(path string) ([]Case, []LineError, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	cases, bad, err := Parse(f)
	if err != nil {
		return cases, bad, fmt.Errorf("eval: %s: %w", path, err)
	}
	return cases, bad, nil
}

// Parse reads a set: one JSON object a line, blank lines ignored. A line
// that is not a valid case (bad JSON, an unknown field, a missing question
// or route, a route that does not exist) is returned as a LineError and
// the other lines still parse, so that one typo does not hide the rest of
// the file's problems. The error is for a failure to read.
func Parse(r io.Reader) ([]Case, []LineError, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var cases []Case
	var bad []LineError
	for line := 1; ; line++ {
		text, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return cases, bad, fmt.Errorf("read line %d: %w", line, err)
		}
		switch {
		case tooLong:
			bad = append(bad, LineError{line, fmt.Errorf("longer than %d bytes", MaxLineBytes)})
		case len(bytes.TrimSpace(text)) == 0:
		case len(cases) == MaxCases:
			bad = append(bad, LineError{line, fmt.Errorf("more than %d cases; the rest of the file was not read", MaxCases)})
			return cases, bad, nil
		default:
			c, perr := parseCase(text)
			if perr != nil {
				bad = append(bad, LineError{line, perr})
				break
			}
			c.Line = line
			cases = append(cases, c)
		}
		if errors.Is(err, io.EOF) {
			return cases, bad, nil
		}
	}
}

// readLine returns the next line without its newline. A line longer than
// MaxLineBytes is consumed and reported as tooLong, without being kept.
// err is io.EOF with the last line.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, isPrefix, err := br.ReadLine()
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > MaxLineBytes {
				tooLong, line = true, nil
			}
		}
		if err != nil || !isPrefix {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				// The last line had no newline; report it now and the
				// end of the file next time.
				return line, tooLong, nil
			}
			return line, tooLong, err
		}
	}
}

// parseCase decodes and checks one line.
func parseCase(text []byte) (Case, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields() // a typo such as "must_contains" would silently score nothing
	var c Case
	if err := dec.Decode(&c); err != nil {
		return Case{}, fmt.Errorf("not a case: %w", jsonError(err))
	}
	if dec.More() {
		return Case{}, errors.New("more than one JSON value on the line")
	}
	return c, c.Validate()
}

// jsonError rewords the JSON package's errors where they name Go types.
func jsonError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %w", se.Offset, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("%s: %s is not a %s", te.Field, te.Value, jsonKind(te.Type.Kind().String()))
	}
	return err
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice":
		return "list"
	case "struct", "map":
		return "object"
	case "bool":
		return "true or false"
	case "int", "float64":
		return "number"
	}
	return goKind
}

// Validate reports what makes c unusable.
func (c Case) Validate() error {
	var problems []string
	if strings.TrimSpace(c.Question) == "" {
		problems = append(problems, "question is empty")
	}
	switch {
	case c.ExpectedRoute == "" && !c.ExpectDifferent:
		problems = append(problems, "expected_route is missing (vector, graph, web or direct)")
	case c.ExpectedRoute != "" && !c.ExpectedRoute.Valid():
		problems = append(problems, fmt.Sprintf("expected_route %q is not one of vector, graph, web, direct", c.ExpectedRoute))
	}
	for i, s := range c.MustContain {
		if strings.TrimSpace(s) == "" {
			problems = append(problems, fmt.Sprintf("must_contain[%d] is empty", i))
		}
	}
	if len(c.Thread) > MaxThreadTurns {
		problems = append(problems, fmt.Sprintf("thread has %d turns; at most %d", len(c.Thread), MaxThreadTurns))
	}
	for i, q := range c.Thread {
		if strings.TrimSpace(q) == "" {
			problems = append(problems, fmt.Sprintf("thread[%d] is empty", i))
		}
	}
	if c.ExpectDifferent && strings.TrimSpace(c.PreviousAnswer) == "" {
		problems = append(problems, "expect_different needs previous_answer")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// NoAnswerPhrase is the start of the agent's reply when it found nothing
// (agent/noanswer.go). Cases that must end without an answer list it in
// must_contain.
const NoAnswerPhrase = "couldn't find"

// ExpectsNoAnswer reports whether c must end without an answer.
func (c Case) ExpectsNoAnswer() bool {
	for _, s := range c.MustContain {
		if strings.Contains(normalize(s), normalize(NoAnswerPhrase)) {
			return true
		}
	}
	return false
}

// Label names c in reports: its id, else its line.
func (c Case) Label() string {
	switch {
	case c.ID != "":
		return c.ID
	case c.Line > 0:
		return fmt.Sprintf("line %d", c.Line)
	}
	return "case"
}
