package bot

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// flakyStore is a shared de-duplication store that fails while down.
type flakyStore struct {
	mu    sync.Mutex
	down  bool
	calls int
	mem   *MemoryDeduper
}

func (f *flakyStore) FirstSeen(ctx context.Context, key string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.down {
		return false, errors.New("connection refused")
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return f.mem.FirstSeen(ctx, key)
}

func TestDedupe(t *testing.T) {
	store := &flakyStore{mem: NewMemoryDeduper(100)}
	d := start(t, Config{Agent: echo(), Dedupe: store})
	in := msg("t1", "hello")

	t.Run("request context already over", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // the platform hung up after its acknowledgement
		r := newRecorder()
		if err := d.Submit(ctx, in, r); err != nil {
			t.Fatalf("first delivery: %v", err)
		}
		r.wait(t)
		if err := d.Submit(ctx, in, newRecorder()); !errors.Is(err, ErrDuplicate) {
			t.Errorf("replay: err = %v, want ErrDuplicate", err)
		}
	})

	t.Run("another replica took it", func(t *testing.T) {
		other := msg("t2", "taken elsewhere")
		for _, k := range dedupeKeys(other) {
			_, _ = store.mem.FirstSeen(context.Background(), k)
		}
		if err := d.Submit(context.Background(), other, newRecorder()); !errors.Is(err, ErrDuplicate) {
			t.Errorf("err = %v, want ErrDuplicate", err)
		}
	})

	t.Run("store down: refused, not answered, then judged afresh", func(t *testing.T) {
		store.mu.Lock()
		store.down, store.calls = true, 0
		store.mu.Unlock()
		q := msg("t3", "while the store is down")
		err := d.Submit(context.Background(), q, newRecorder())
		if err == nil || errors.Is(err, ErrDuplicate) {
			t.Fatalf("err = %v, want a refusal the adapter tells the asker about", err)
		}
		store.mu.Lock()
		calls := store.calls
		store.down = false
		store.mu.Unlock()
		if calls != dedupeAttempts {
			t.Errorf("store asked %d times, want %d", calls, dedupeAttempts)
		}
		r := newRecorder()
		if err := d.Submit(context.Background(), q, r); err != nil {
			t.Fatalf("the platform's retry after the outage: %v", err)
		}
		if v := r.wait(t); v.Result == nil {
			t.Errorf("retry not answered: %+v", v)
		}
	})
}
