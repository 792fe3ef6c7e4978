package bot

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/questions"
)

// flakyQuestions is a question store that fails while down, as a
// database away would.
type flakyQuestions struct {
	questions.Store
	down atomic.Bool
}

var errStoreDown = errors.New("connection refused")

func (f *flakyQuestions) check(ctx context.Context) error {
	if f.down.Load() {
		return errStoreDown
	}
	return ctx.Err()
}

func (f *flakyQuestions) Enqueue(ctx context.Context, job questions.Job, keys []string, maxWaiting int) (int, error) {
	if err := f.check(ctx); err != nil {
		return 0, err
	}
	return f.Store.Enqueue(ctx, job, keys, maxWaiting)
}

func (f *flakyQuestions) Placed(ctx context.Context, id string, address []byte, placed bool) error {
	if err := f.check(ctx); err != nil {
		return err
	}
	return f.Store.Placed(ctx, id, address, placed)
}

func (f *flakyQuestions) Claim(ctx context.Context, owner string, platforms []string, lease time.Duration) (questions.Job, bool, error) {
	if err := f.check(ctx); err != nil {
		return questions.Job{}, false, err
	}
	return f.Store.Claim(ctx, owner, platforms, lease)
}

func TestDedupe(t *testing.T) {
	store := &flakyQuestions{Store: questions.NewMemory(nil)}
	d := start(t, Config{Agent: echo(), Questions: store})
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
		if _, err := store.Enqueue(context.Background(), questions.Job{ID: "elsewhere", Thread: other.ThreadKey(), Platform: "test"}, dedupeKeys(other), 0); err != nil {
			t.Fatal(err)
		}
		if err := d.Submit(context.Background(), other, newRecorder()); !errors.Is(err, ErrDuplicate) {
			t.Errorf("err = %v, want ErrDuplicate", err)
		}
	})

	t.Run("replayed while the store is down", func(t *testing.T) {
		q := msg("t3", "asked before the outage")
		r := newRecorder()
		if err := d.Submit(context.Background(), q, r); err != nil {
			t.Fatal(err)
		}
		r.wait(t)
		store.down.Store(true)
		defer store.down.Store(false)
		if err := d.Submit(context.Background(), q, newRecorder()); !errors.Is(err, ErrDuplicate) {
			t.Errorf("replay while the store is down: err = %v, want ErrDuplicate (this process's memory)", err)
		}
	})
}
