package threadstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
)

// mapRows keeps rows in a map; err, when set, is every call's failure.
type mapRows struct {
	states map[string][]byte
	err    error
}

func (m *mapRows) Get(_ context.Context, id string) ([]byte, bool, error) {
	s, ok := m.states[id]
	return s, ok, m.err
}

func (m *mapRows) Put(_ context.Context, id string, state []byte) error {
	m.states[id] = state
	return m.err
}

func (m *mapRows) Swap(_ context.Context, id string, old []byte, found bool, state []byte) (bool, error) {
	if cur, ok := m.states[id]; ok != found || string(cur) != string(old) {
		return false, m.err
	}
	m.states[id] = state
	return true, m.err
}

func (m *mapRows) Prune(context.Context, time.Time) (int, error) { return 0, m.err }

// The round trip and Prune are checked on the real stores
// (internal/storetest); these are the cases no store reaches: what the
// checkpointer refuses, and whose error a failure is.
func TestCheckpointerErrors(t *testing.T) {
	ctx := context.Background()
	rows := &mapRows{states: map[string][]byte{"bad": []byte("{not json")}}
	c := New("teststore", rows)

	if err := c.Save(ctx, agent.Thread{}); err == nil || !strings.HasPrefix(err.Error(), "teststore: save thread") {
		t.Errorf("Save of a thread without an ID = %v, want a refusal", err)
	}
	if _, err := c.Load(ctx, "bad"); err == nil || !strings.Contains(err.Error(), `teststore: load thread "bad"`) {
		t.Errorf("Load of a state that is not JSON = %v, want an error naming the thread", err)
	}
	rows.err = errors.New("disk gone")
	if _, err := c.Prune(ctx, time.Now()); !errors.Is(err, rows.err) || !strings.HasPrefix(err.Error(), "teststore: prune threads") {
		t.Errorf("Prune on a failing store = %v, want its error wrapped", err)
	}
	if err := c.Save(ctx, agent.Thread{ID: "t1"}); !errors.Is(err, rows.err) {
		t.Errorf("Save on a failing store = %v, want its error wrapped", err)
	}
}
