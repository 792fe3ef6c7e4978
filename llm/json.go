package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// checkTarget rejects an out that json.Unmarshal could not fill.
func checkTarget(out any) error {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("out must be a non-nil pointer, not %T", out)
	}
	return nil
}

// requiredFields reads the top-level "required" list of an object schema.
func requiredFields(schema json.RawMessage) ([]string, error) {
	var s struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	return s.Required, nil
}

// decodeJSON finds the JSON object in a reply and decodes it into out. out is
// only written when everything succeeds, so a failed first reply leaves no
// stale fields behind for the retry.
func decodeJSON(content string, required []string, out any) error {
	raw, ok := extractJSON(content)
	if !ok {
		return errors.New("no JSON object in reply")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &fields); err != nil {
		return err
	}
	var missing []string
	for _, f := range required {
		if _, ok := fields[f]; !ok {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		if _, ok := fields["properties"]; ok {
			// A small model held to "some JSON object" repeats the schema.
			return fmt.Errorf("that is the JSON schema itself; reply with an object that has the properties it describes (%s)", strings.Join(missing, ", "))
		}
		return fmt.Errorf("missing required properties %s", strings.Join(missing, ", "))
	}
	target := reflect.New(reflect.TypeOf(out).Elem())
	if err := json.Unmarshal([]byte(raw), target.Interface()); err != nil {
		return err
	}
	reflect.ValueOf(out).Elem().Set(target.Elem())
	return nil
}

// extractJSON returns the first valid JSON object in s. Models that were not
// held to a schema wrap their JSON in ```json fences or in a sentence or two;
// scanning for a balanced object covers both.
func extractJSON(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
		return s, true
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		end := objectEnd(s[i:])
		if end == 0 {
			continue
		}
		if obj := s[i : i+end]; json.Valid([]byte(obj)) {
			return obj, true
		} else if fixed := repairJSON(obj); json.Valid([]byte(fixed)) {
			return fixed, true
		}
	}
	return "", false
}

// repairJSON mends what small models get almost right: a raw line break
// or tab inside a string (escaped), and a trailing comma before } or ]
// (dropped). Anything else stays as it is, for json.Valid to judge.
func repairJSON(s string) string {
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString && c < 0x20:
			switch c {
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				fmt.Fprintf(&b, `\u%04x`, c)
			}
			continue
		case !inString && c == ',':
			if j := nextNonSpace(s, i+1); j < len(s) && (s[j] == '}' || s[j] == ']') {
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func nextNonSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
		i++
	}
	return i
}

// objectEnd returns the length of the balanced {...} at the start of s,
// skipping braces inside strings, or 0 if it is not closed.
func objectEnd(s string) int {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

var thinkBlock = regexp.MustCompile(`(?s)^\s*<think>.*?</think>\s*`)

// stripThinking removes the leading <think>…</think> block that reasoning
// models served by Ollama or vLLM put in the content: it is not the answer,
// and its braces would confuse the JSON scan.
func stripThinking(s string) string {
	return thinkBlock.ReplaceAllString(s, "")
}
