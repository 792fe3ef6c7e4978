package words

import (
	"slices"
	"testing"
)

// TestStopwords checks that the list others build on is the one IsStop
// uses, and sorted, so that building on it is deterministic.
func TestStopwords(t *testing.T) {
	list := Stopwords()
	if len(list) == 0 || !slices.IsSorted(list) {
		t.Fatalf("Stopwords() = %q: want a sorted, non-empty list", list)
	}
	for _, w := range list {
		if !IsStop(w) {
			t.Errorf("%q is listed but IsStop says no", w)
		}
	}
	list[0] = "customer" // a copy: changing it changes nothing
	if IsStop("customer") {
		t.Error("Stopwords() returned the list itself")
	}
}
