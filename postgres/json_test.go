package postgres

import (
	"encoding/json"
	"testing"
)

func TestStripNULEscapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"a":"x\u0000y"}`, `{"a":"xy"}`},
		{`{"a":"\\u0000"}`, `{"a":"\\u0000"}`},   // a backslash, then the text u0000
		{`{"a":"\\\u0000"}`, `{"a":"\\"}`},       // a backslash, then NUL
		{`{"a":"\"\u0000\u0000"}`, `{"a":"\""}`}, // a quote, then two NULs
		{`{"a":"\u00001"}`, `{"a":"1"}`},         // NUL, then "1"
		{`{"a":"plain"}`, `{"a":"plain"}`},
	} {
		got := string(stripNULEscapes([]byte(tc.in)))
		if got != tc.want {
			t.Errorf("stripNULEscapes(%s) = %s, want %s", tc.in, got, tc.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("stripNULEscapes(%s) is not JSON: %s", tc.in, got)
		}
	}
}
