package offline

import (
	"context"
	"reflect"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

func TestCheck(t *testing.T) {
	docs := []agent.Document{refundDoc, officeDoc}
	tests := []struct {
		name        string
		answer      string
		grounded    bool
		unsupported []string
	}{
		{
			name:     "quoted",
			answer:   "Customers can return unused items within 30 days of purchase for a full refund [1].",
			grounded: true,
		},
		{
			name:     "paraphrase with connecting words",
			answer:   "Unused items can be returned within 30 days for a full refund [1]. Also, gift cards are not refundable [1].",
			grounded: true,
		},
		{
			name:     "citation after the full stop",
			answer:   "Refunds are paid within 5 business days. [1] The Berlin office opens at 9. [2]",
			grounded: true,
		},
		{
			name:     "bullets and no citation",
			answer:   "The sources say:\n- Refunds are paid to the original payment method.\n- Visitors sign in at reception.",
			grounded: true,
		},
		{
			name:        "invented sentence",
			answer:      "Refunds are paid within 5 business days [1]. The CEO personally approves every refund over 500 dollars [1].",
			unsupported: []string{"The CEO personally approves every refund over 500 dollars."},
		},
		{
			name:        "wrong number",
			answer:      "Customers can return unused items within 60 days of purchase [1].",
			unsupported: []string{"Customers can return unused items within 60 days of purchase."},
		},
		{
			name:        "right words, wrong document",
			answer:      "Customers can return unused items within 30 days [2].",
			unsupported: []string{"Customers can return unused items within 30 days."},
		},
		{
			name:        "citation of a document that does not exist",
			answer:      "Customers can return unused items within 30 days [7].",
			unsupported: []string{"Customers can return unused items within 30 days."},
		},
		{
			name:   "empty",
			answer: "  ",
		},
	}
	b := testBrain()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := b.Check(context.Background(), "How do refunds work?", tt.answer, docs)
			if err != nil {
				t.Fatal(err)
			}
			if v.Grounded != tt.grounded || !reflect.DeepEqual(v.Unsupported, tt.unsupported) {
				t.Errorf("Check = %+v, want grounded %v, unsupported %q", v, tt.grounded, tt.unsupported)
			}
		})
	}
}

func TestClaimsOf(t *testing.T) {
	got := claimsOf("- First claim [1].\n2. Second claim. [2][3] Third, uncited.\n[4]")
	want := []claim{
		{"First claim.", []int{1}},
		{"Second claim.", []int{2, 3}},
		{"Third, uncited.", []int{4}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("claimsOf = %+v, want %+v", got, want)
	}
}
