package llm

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestSchemasAskForReasonsFirst: a model writes the properties in the
// schema's order (llama.cpp's grammar does), and a small one decides
// better once it has written what it looked for: the router says what the
// question asks for before it chooses, the grader quotes the sentence
// before its verdict. The order is the raw schema's, as it is sent.
func TestSchemasAskForReasonsFirst(t *testing.T) {
	for _, tt := range []struct {
		name          string
		schema        json.RawMessage
		first, second string
	}{
		{"route", routeSchema, `"reason"`, `"route"`},
		{"grade", gradeSchema, `"evidence"`, `"relevant"`},
	} {
		if !json.Valid(tt.schema) {
			t.Fatalf("%s schema is not JSON: %s", tt.name, tt.schema)
		}
		a, b := bytes.Index(tt.schema, []byte(tt.first)), bytes.Index(tt.schema, []byte(tt.second))
		if a < 0 || b < 0 || a > b {
			t.Errorf("%s schema asks for %s before %s: %s", tt.name, tt.second, tt.first, tt.schema)
		}
	}
}
