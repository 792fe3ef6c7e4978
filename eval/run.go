package eval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard/switchboard/agent"
)

// Asker answers questions: *agent.Agent.
type Asker interface {
	Ask(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error)
}

// Options tune Run.
type Options struct {
	// Parallel is how many cases run at once (default 4). A case's thread
	// turns always run in order, before its question.
	Parallel int
	// Timeout bounds one case, thread turns included (default 3m).
	Timeout time.Duration
	// Done, if set, is called after each case with the number of cases
	// finished so far. Calls come one at a time, in order, so that it can
	// write progress without a lock of its own; it must return quickly.
	Done func(finished, total int)
}

// Outcome is one case's run and its scores.
type Outcome struct {
	Case    Case
	Result  agent.Result // zero when Err is set
	Err     error        // the question (or a thread turn) failed
	Latency time.Duration
	// FirstWords is when the first draft of the answer could be shown
	// (agent.EventDrafting), from the question; 0 when none was.
	FirstWords time.Duration

	RouteScored, RouteOK   bool
	AnswerScored, AnswerOK bool
	CiteScored, CiteOK     bool
	Missing                []string // must_contain phrases not in the answer
	// AnsweredAnyway: the case expects no answer and the agent gave one
	// (see EndedWithoutAnswer); AnswerOK is then false.
	AnsweredAnyway bool
	// ConfidentlyWrong: a high badge on a wrong answer, or a high or
	// medium badge on an answer where none exists (package documentation,
	// Calibration).
	ConfidentlyWrong bool
}

// Passed reports whether every scored check of the outcome passed.
func (o Outcome) Passed() bool {
	return o.Err == nil && (!o.RouteScored || o.RouteOK) && (!o.AnswerScored || o.AnswerOK) && (!o.CiteScored || o.CiteOK)
}

// Run asks every case's question, opts.Parallel at a time, and scores the
// answers. Outcomes are in the order of cases. A case that fails is an
// outcome with Err set, not an error of Run; Run returns an error only when
// ctx ends, with the outcomes of the cases that finished.
//
// Each case with a thread gets a conversation of its own, named so that it
// cannot meet a conversation of an earlier run in a persistent store.
func Run(ctx context.Context, a Asker, cases []Case, opts Options) ([]Outcome, error) {
	workers := opts.Parallel
	if workers <= 0 {
		workers = 4
	}
	workers = min(workers, max(len(cases), 1))
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 3 * time.Minute
	}
	run := runID()

	out := make([]Outcome, len(cases))
	jobs := make(chan int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		finished int
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = runCase(ctx, a, cases[i], fmt.Sprintf("eval:%s:%d", run, i), timeout)
				if opts.Done != nil {
					mu.Lock()
					finished++
					opts.Done(finished, len(cases))
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for i := range cases {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("eval: stopped: %w", err)
	}
	return out, nil
}

// runCase asks the thread's turns, then the question, and scores it.
func runCase(ctx context.Context, a Asker, c Case, thread string, timeout time.Duration) Outcome {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	o := Outcome{Case: c}
	q := agent.Question{Text: c.Question}
	if len(c.Thread) > 0 {
		q.ThreadID = thread
		for i, turn := range c.Thread {
			if _, err := a.Ask(ctx, agent.Question{ThreadID: thread, Text: turn}, nil); err != nil {
				o.Err = fmt.Errorf("thread turn %d: %w", i+1, err)
				return score(o)
			}
		}
	}
	start := time.Now()
	o.Result, o.Err = a.Ask(ctx, q, func(e agent.Event) {
		if e.Kind == agent.EventDrafting && o.FirstWords == 0 {
			o.FirstWords = time.Since(start)
		}
	})
	o.Latency = time.Since(start)
	return score(o)
}

// runID is a random name for one Run.
func runID() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // never fails on supported platforms
	return hex.EncodeToString(b[:])
}
