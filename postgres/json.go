package postgres

import (
	"bytes"
	"encoding/json"
)

var nulEscape = []byte(`\u0000`)

// stripNULEscapes removes the \u0000 escapes from JSON text, which jsonb
// refuses (PostgreSQL text cannot hold NUL) while json.Marshal writes one
// for every NUL in a string. Other escapes, "\\u0000" included, are kept.
func stripNULEscapes(b []byte) []byte {
	if !bytes.Contains(b, nulEscape) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] != '\\' || i+1 == len(b):
			out = append(out, b[i])
		case bytes.HasPrefix(b[i:], nulEscape):
			i += len(nulEscape) - 1
		default:
			// An escape is a backslash and at least one more byte; copying
			// the pair keeps "\\" from being read as the start of another.
			out = append(out, b[i], b[i+1])
			i++
		}
	}
	return out
}

// marshalJSONB is json.Marshal for a jsonb column.
func marshalJSONB(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return stripNULEscapes(b), nil
}
