package bot

import (
	"context"
	"sync"
)

// MemoryDeduper is a Deduper for one process, remembering the last n keys.
type MemoryDeduper struct {
	mu    sync.Mutex
	seen  map[string]bool
	order []string
	n     int
}

var _ Deduper = (*MemoryDeduper)(nil)

// NewMemoryDeduper remembers up to n keys.
func NewMemoryDeduper(n int) *MemoryDeduper {
	return &MemoryDeduper{seen: map[string]bool{}, n: n}
}

// FirstSeen reports whether key is new, and remembers it.
func (m *MemoryDeduper) FirstSeen(_ context.Context, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen[key] {
		return false, nil
	}
	m.seen[key] = true
	m.order = append(m.order, key)
	if len(m.order) > m.n {
		delete(m.seen, m.order[0])
		m.order = m.order[1:]
	}
	return true, nil
}

// forget drops keys, so that their next delivery counts as new.
func (m *MemoryDeduper) forget(keys ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		delete(m.seen, k) // order keeps the key until it ages out: harmless
	}
}
