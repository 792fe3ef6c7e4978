package graphwalk

import "testing"

func TestIndexEmpty(t *testing.T) {
	var none *Index
	if !none.Empty() || !NewIndex(nil).Empty() {
		t.Error("an index of nothing is not empty")
	}
	if NewIndex([]Entry{{ID: "n1", Labels: []string{"Product"}}}).Empty() {
		t.Error("an index with a label is empty")
	}
}
