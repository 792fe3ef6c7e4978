package ingest

import (
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// pdfMemory gives each PDF reader its WebAssembly memory, and takes it
// back. wazero's own memory is a Go slice that grows by copying: on the
// way to a reader's pdfMemoryMB it holds the old and the new copy at
// once, the copies left behind wait for the garbage collector, and the
// collector lets the heap grow to twice what it holds, so one hostile
// file took the process 750 MB past its start for a 256 MB reader. Here
// a reader's memory is one mapping of pdfMemoryMB reserved from the
// operating system outside Go's heap (mapMemory): it grows in place, only
// the pages the reader touches use memory, and all of it goes back to the
// system when the read ends, so a reader adds at most pdfMemoryMB to the
// process.
//
// A mapping is given back by release, which the read calls once its
// reader's code can no longer run, never by wazero's Free: wazero frees a
// module's memory when the module is closed, and a killed reader's module
// is closed from another goroutine while its code may still be running
// (it stops at its next check); unmapping the memory under that code
// would crash the process.
type pdfMemory struct {
	mu   sync.Mutex
	live map[*linearMemory]struct{}
}

// linearMemory is one reader's memory: buf is the whole mapping, of the
// reader's largest size, of which the reader sees the first part.
type linearMemory struct {
	buf   []byte       // nil once released
	unmap func([]byte) // nil when buf is Go memory (the mapping failed)
}

var _ experimental.MemoryAllocator = (*pdfMemory)(nil)

// Allocate implements experimental.MemoryAllocator: the memory of a
// reader that may grow to max bytes.
func (a *pdfMemory) Allocate(_, max uint64) experimental.LinearMemory {
	m := &linearMemory{}
	if buf, unmap, err := mapMemory(int(max)); err == nil {
		m.buf, m.unmap = buf, unmap
	} else {
		// No address space for a mapping: a Go slice of the full size,
		// whose pages the system also gives only when touched.
		m.buf = make([]byte, max)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.live == nil {
		a.live = make(map[*linearMemory]struct{})
	}
	a.live[m] = struct{}{}
	return m
}

// Reallocate implements experimental.LinearMemory: the first size bytes of
// the mapping, which keep their address as the reader grows.
func (m *linearMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil // released, or past the limit: memory.grow fails
	}
	return m.buf[:size]
}

// Free implements experimental.LinearMemory. It does nothing: see
// pdfMemory for why the mapping goes in release.
func (m *linearMemory) Free() {}

// release gives back the memory of every reader. It must be called only
// when no reader's code can run (pdfTurn held, the read over): the memory
// of a running one would vanish under it.
func (a *pdfMemory) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for m := range a.live {
		if m.unmap != nil {
			m.unmap(m.buf)
		}
		m.buf = nil
		delete(a.live, m)
	}
}

// held is the bytes of reader memory not yet freed (reserved, not all of
// it touched).
func (a *pdfMemory) held() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for m := range a.live {
		n += len(m.buf)
	}
	return n
}
