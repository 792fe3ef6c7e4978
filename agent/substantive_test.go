package agent

import "testing"

func TestSubstantive(t *testing.T) {
	tests := []struct {
		draft string
		want  bool
	}{
		{"", false},
		{"1", false},
		{"[2]", false},
		{"[1] [2], [3].", false},
		{"1.", false},
		{"42 %", false},
		{`<document n="1" title="Refund policy">[1]</document>`, false},
		{`&lt;/document>[1]`, false},
		{"See [2].", false},
		{"Sources: [1], [2]", false},
		{"Refunds take 14 days [1].", true},
		// A short answer is still an answer.
		{"Yes [1].", true},
		{"Finance [1].", true},
		{"30 days [2]", true},
		{"A [1]. B [2].", true},
		{"X100 [1]", true},
		{"是的 [1]", true},
		{`<document n="1">Refunds take 14 days.</document>`, true},
	}
	for _, tt := range tests {
		if got := substantive(tt.draft); got != tt.want {
			t.Errorf("substantive(%q) = %v, want %v", tt.draft, got, tt.want)
		}
	}
}
