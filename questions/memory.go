package questions

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

var _ Store = (*Memory)(nil)

// Memory is the Store of one process: what the bot uses when no file or
// database keeps its questions (tests, tools). It follows the contract
// the stored ones do (questionstest), so that the dispatcher has one
// engine whatever keeps its questions; a process that ends loses them.
type Memory struct {
	now func() time.Time

	mu   sync.Mutex
	jobs map[string]*memJob // unfinished jobs by id; a finished one is forgotten
	seq  int64              // order of storing, which breaks ties of Asked
	keys map[string]bool    // delivery keys taken, at most maxMemoryKeys
	fifo []string           // keys in the order taken, to forget the oldest
}

// maxMemoryKeys bounds the delivery keys Memory remembers: platforms retry
// a delivery within minutes, so the last ten thousand are plenty.
const maxMemoryKeys = 10000

type memJob struct {
	Job
	state   string // "posting", "queued", "running"
	created time.Time
	seq     int64
	owner   string
	lease   time.Time // a running job's lease runs out then
}

// NewMemory returns an empty Memory on the clock now (nil: time.Now).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, jobs: map[string]*memJob{}, keys: map[string]bool{}}
}

// Enqueue implements Store.
func (m *Memory) Enqueue(_ context.Context, job Job, keys []string, maxWaiting int) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.jobs[job.ID] != nil {
		return 0, nil
	}
	for _, k := range keys {
		if m.keys[k] {
			return 0, ErrDuplicate
		}
	}
	ahead := m.waitingLocked()
	if maxWaiting > 0 && ahead >= maxWaiting {
		return 0, ErrFull // and the keys are not kept: a retry may find room
	}
	for _, k := range keys {
		m.remember(k)
	}
	m.seq++
	job.Placed, job.Attempts = false, 0
	m.jobs[job.ID] = &memJob{Job: job, state: "posting", created: m.now(), seq: m.seq}
	return ahead, nil
}

// remember keeps key, forgetting the oldest past maxMemoryKeys.
func (m *Memory) remember(key string) {
	if m.keys[key] {
		return
	}
	if len(m.fifo) >= maxMemoryKeys {
		delete(m.keys, m.fifo[0])
		m.fifo = m.fifo[1:]
	}
	m.keys[key] = true
	m.fifo = append(m.fifo, key)
}

// Placed implements Store.
func (m *Memory) Placed(_ context.Context, id string, address []byte, placed bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	j := m.jobs[id]
	if j == nil {
		return nil
	}
	j.Address, j.Placed = slices.Clone(address), placed
	if j.state == "posting" {
		j.state = "queued"
	}
	return nil
}

// place is where a job stands in its thread: when asked, else when
// stored; then the order of storing.
func (j *memJob) place() time.Time {
	if j.Asked.IsZero() {
		return j.created
	}
	return j.Asked
}

func before(a, b *memJob) int {
	if c := a.place().Compare(b.place()); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// Claim implements Store, as postgres.Questions does: the first
// unfinished job of a thread, in a thread where no other job runs under
// a live lease.
func (m *Memory) Claim(_ context.Context, owner string, platforms []string, lease time.Duration) (Job, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	heads := map[string]*memJob{}
	live := map[string]bool{} // threads with a job running under a live lease
	for _, j := range m.jobs {
		if h := heads[j.Thread]; h == nil || before(j, h) < 0 {
			heads[j.Thread] = j
		}
		if j.state == "running" && !j.lease.Before(now) {
			live[j.Thread] = true
		}
	}
	var pick *memJob
	for thread, j := range heads {
		if live[thread] || !slices.Contains(platforms, j.Platform) || !claimable(j, now, lease) {
			continue
		}
		if pick == nil || before(j, pick) < 0 {
			pick = j
		}
	}
	if pick == nil {
		return Job{}, false, nil
	}
	pick.state, pick.owner, pick.lease = "running", owner, now.Add(lease)
	pick.Attempts++
	out := pick.Job
	out.Asked = pick.place()
	out.Question, out.Address = slices.Clone(out.Question), slices.Clone(out.Address)
	return out, true, nil
}

// claimable reports whether a thread's head may be claimed now: waiting;
// being posted for longer than a lease (its replica died posting it); or
// running with its lease run out.
func claimable(j *memJob, now time.Time, lease time.Duration) bool {
	switch j.state {
	case "queued":
		return true
	case "posting":
		return j.created.Before(now.Add(-lease))
	case "running":
		return j.lease.Before(now)
	}
	return false
}

// Extend implements Store.
func (m *Memory) Extend(_ context.Context, id, owner string, lease time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j := m.jobs[id]
	if j == nil || j.state != "running" || j.owner != owner {
		return false, nil
	}
	j.lease = m.now().Add(lease)
	return true, nil
}

// Finish implements Store. The job is forgotten; its delivery keys are
// not.
func (m *Memory) Finish(_ context.Context, id, owner string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if j := m.jobs[id]; j != nil && j.owner == owner {
		delete(m.jobs, id)
	}
	return nil
}

// Release implements Store.
func (m *Memory) Release(_ context.Context, id, owner string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	j := m.jobs[id]
	if j == nil || j.state != "running" || j.owner != owner {
		return nil
	}
	j.state, j.owner, j.lease = "queued", "", time.Time{}
	j.Attempts = max(j.Attempts-1, 0)
	return nil
}

// Waiting implements Store.
func (m *Memory) Waiting(context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.waitingLocked(), nil
}

func (m *Memory) waitingLocked() int {
	n := 0
	for _, j := range m.jobs {
		if j.state != "running" {
			n++
		}
	}
	return n
}
