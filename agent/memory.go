package agent

import (
	"context"
	"sync"
)

// MemoryCheckpointer keeps threads in memory: for tests and one-shot runs.
type MemoryCheckpointer struct {
	mu      sync.Mutex
	threads map[string]Thread
}

var _ Checkpointer = (*MemoryCheckpointer)(nil)

// NewMemoryCheckpointer returns an empty in-memory Checkpointer.
func NewMemoryCheckpointer() *MemoryCheckpointer {
	return &MemoryCheckpointer{threads: map[string]Thread{}}
}

// Load returns the stored thread, or an empty one with the given id.
func (m *MemoryCheckpointer) Load(_ context.Context, id string) (Thread, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.threads[id]
	if !ok {
		return Thread{ID: id}, nil
	}
	t.Turns = append([]Turn(nil), t.Turns...) // callers may append freely
	return t, nil
}

// Update implements Checkpointer: change runs under the lock, on a copy.
func (m *MemoryCheckpointer) Update(_ context.Context, id string, change func(*Thread)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.threads[id]
	if !ok {
		t = Thread{ID: id}
	}
	t.Turns = append([]Turn(nil), t.Turns...)
	change(&t)
	t.ID = id
	m.threads[id] = t
	return nil
}

// Save stores t under t.ID.
func (m *MemoryCheckpointer) Save(_ context.Context, t Thread) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t.Turns = append([]Turn(nil), t.Turns...)
	m.threads[t.ID] = t
	return nil
}
