package ingest

import "testing"

// A reader's memory grows in place up to its limit and not past it, stays
// when wazero frees it (it may do so while a killed reader still runs),
// and is given back by release.
func TestPDFMemory(t *testing.T) {
	var a pdfMemory
	m := a.Allocate(0, 1<<20)
	small := m.Reallocate(64 << 10)
	small[0] = 7
	whole := m.Reallocate(1 << 20)
	if len(whole) != 1<<20 || &whole[0] != &small[0] || whole[0] != 7 {
		t.Errorf("grown to %d bytes, moved %v, first byte %d; want 1 MB in place, 7", len(whole), &whole[0] != &small[0], whole[0])
	}
	if whole[len(whole)-1] != 0 {
		t.Error("new memory is not zero")
	}
	if b := m.Reallocate(1<<20 + 1); b != nil {
		t.Errorf("grew past its limit to %d bytes", len(b))
	}
	if n := a.held(); n != 1<<20 {
		t.Errorf("held %d, want 1 MB", n)
	}
	m.Free() // wazero's, maybe while the reader still runs: nothing goes
	if n := a.held(); n != 1<<20 || whole[0] != 7 {
		t.Errorf("held %d after Free, first byte %d; want all of it still there", n, whole[0])
	}
	a.release()
	if n := a.held(); n != 0 {
		t.Errorf("held %d after release", n)
	}
	if b := m.Reallocate(4096); b != nil {
		t.Error("a released memory grew again")
	}
}
