package slack

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/bot/viewtest"
)

// These tests fail Slack's Web API the ways Slack and networks do, through
// the fake, and check what the asker sees: every question gets exactly one
// final message, in its thread, and no placeholder is left behind.

// answer is what the test askers answer.
func answer(q agent.Question) agent.Result {
	return agent.Result{Question: q.Text, Route: agent.RouteVector, Answer: "Customers get a full refund within 30 days.",
		Confidence: agent.ConfidenceHigh, Sources: []agent.Source{{N: 1, Title: "Refund policy", Location: "docs/refund-policy.md"}}}
}

// quick answers at once and shows no progress, so that the final edit is
// the first chat.update of a question.
var quick = askerFunc(func(_ context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
	return answer(q), nil
})

// gated answers once released, so that a test can fail Slack between the
// placeholder and the answer.
type gated struct{ ch chan struct{} }

func newGated() *gated { return &gated{ch: make(chan struct{})} }

func (g *gated) Ask(ctx context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
	select {
	case <-g.ch:
		return answer(q), nil
	case <-ctx.Done():
		return agent.Result{}, ctx.Err()
	}
}

func (g *gated) release() { close(g.ch) }

// tally is what a thread shows once nothing more can reach it.
type tally struct {
	finals        int // messages with the answer (and its feedback buttons)
	placeholders  int // messages left on the placeholder ("⏳ …")
	others        int
	deletedFinals int // answers deleted: never right
}

func (t tally) once() bool {
	return t.finals == 1 && t.placeholders == 0 && t.others == 0 && t.deletedFinals == 0
}

func (t tally) String() string {
	return fmt.Sprintf("%d final(s), %d placeholder(s) left, %d other message(s), %d final(s) deleted",
		t.finals, t.placeholders, t.others, t.deletedFinals)
}

func isFinal(m slacktest.Message) bool { return m.ActionValues()[ActionFeedbackUp] != "" }

func (e *env) tally(channel, thread string) tally {
	var t tally
	for _, m := range e.fake.AllMessages() {
		if m.Channel != channel || m.ThreadTS != thread {
			continue
		}
		switch {
		case m.Deleted:
			if isFinal(m) {
				t.deletedFinals++
			}
		case isFinal(m):
			t.finals++
		case strings.Contains(m.Content(), "⏳"):
			t.placeholders++
		default:
			t.others++
		}
	}
	return t
}

// ask posts a question and returns its event.
func (e *env) ask(user string) slacktest.MessageEvent {
	ev := e.fake.Mention("C1", user, "What is our refund policy?")
	if resp := e.fake.PostEvent(e.h, "", ev, nil); resp.StatusCode != http.StatusOK {
		e.t.Fatalf("status %d", resp.StatusCode)
	}
	return ev
}

// answeredOnce settles the env and checks the question's thread.
func (e *env) answeredOnce(ev slacktest.MessageEvent) tally {
	e.t.Helper()
	if err := e.settle(); err != nil {
		e.t.Fatal(err)
	}
	got := e.tally(ev.Channel, ev.TS)
	if !got.once() {
		e.t.Errorf("thread %s: %s; want exactly one final message", ev.TS, got)
	}
	return got
}

// transient are the faults another attempt may get past.
var transient = []slacktest.Fault{
	slacktest.ServerError(500), slacktest.ServerError(502), slacktest.ServerError(503),
	slacktest.SlackError("internal_error"), slacktest.SlackError("fatal_error"),
	slacktest.SlackError("service_unavailable"), slacktest.SlackError("request_timeout"),
	slacktest.SlackError("ratelimited"), slacktest.RateLimited(1), slacktest.Dropped,
}

// maybeDone says whether a fault can come after Slack did the call (a
// rate limit never does).
func maybeDone(f slacktest.Fault) bool {
	return f.Error != "ratelimited"
}

// A few failures of the placeholder's post or of the final edit, fewer
// than the retries, cost nothing: one answer, in place. Failures served
// after Slack did the call (the post made, then a 500 or a dropped
// connection) do not make a retry post twice.
func TestTransientFaultsAnswerOnce(t *testing.T) {
	for _, method := range []string{"chat.postMessage", "chat.update"} {
		for _, f := range transient {
			for _, applied := range []bool{false, true} {
				if applied && !maybeDone(f) {
					continue
				}
				if applied {
					f = f.AfterDoing()
				}
				t.Run(method+"/"+f.String(), func(t *testing.T) {
					e := newEnv(t, options{asker: quick})
					e.fake.Fail(method, 3, f)
					ev := e.ask("U1")
					e.answeredOnce(ev)
					switch {
					case method == "chat.postMessage" && f.Applied:
						// The post was made: the thread shows it, and it
						// is not made again.
						if n := e.fake.Calls(method); n != 1 || e.fake.Calls("conversations.replies") == 0 {
							t.Errorf("%d posts, %d looks in the thread; want 1 post, found there", n, e.fake.Calls("conversations.replies"))
						}
					case e.fake.Calls(method) < 2:
						t.Errorf("%s called %d times: the fault was not served", method, e.fake.Calls(method))
					}
					if msgs := e.fake.Messages("C1", ev.TS); len(msgs) != 1 || len(msgs[0].Versions) < 2 {
						t.Errorf("%d messages; want the placeholder edited into the answer", len(msgs))
					}
				})
			}
		}
	}
}

// A placeholder Slack would not take does not lose the question: the
// answer is posted as a new reply in the thread. (The dispatcher calls
// Finish after a failed Start.)
func TestPlaceholderFailsAnswerPosted(t *testing.T) {
	for _, f := range []slacktest.Fault{slacktest.ServerError(503), slacktest.RateLimited(1), slacktest.Dropped} {
		t.Run(f.String(), func(t *testing.T) {
			e := newEnv(t, options{asker: quick})
			e.fake.Fail("chat.postMessage", maxRateLimitRetries+1, f) // every attempt of Start
			ev := e.ask("U1")
			e.answeredOnce(ev)
			if n := e.fake.Calls("chat.update"); n != 0 {
				t.Errorf("chat.update called %d times with no placeholder", n)
			}
		})
	}
}

// The same, at the Replier: Finish after a failed Start posts the answer
// as a new message in the thread, once, and looks first for a placeholder
// Start may have posted after all.
func TestFinishWithoutPlaceholder(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	c := newClock()
	a, err := New(Config{BotToken: fake.BotToken, APIURL: fake.APIURL(), Sleep: c.Sleep, Now: c.Now}, &counting{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v := bot.View{AnswerID: "a1", Question: "What is our refund policy?", Progress: "Thinking…"}

	// Start fails every attempt, and each may have posted.
	r := a.replier("C1", "1.1", "U1")
	fake.Fail("chat.postMessage", maxRateLimitRetries+1, slacktest.ServerError(500))
	if err := r.Start(ctx, v); err == nil {
		t.Fatal("Start succeeded while Slack answered 500")
	}
	if err := r.Update(ctx, v); err != nil {
		t.Errorf("Update without a placeholder: %v", err)
	}
	done := v
	res := answer(agent.Question{Text: v.Question})
	done.Done, done.Final = true, viewtest.Final(v.Question, res)
	if err := r.Finish(ctx, done); err != nil {
		t.Fatal(err)
	}
	msgs := fake.Messages("C1", "1.1")
	if len(msgs) != 1 || !isFinal(msgs[0]) || !strings.Contains(msgs[0].Content(), "full refund") {
		t.Fatalf("thread: %+v", msgs)
	}
	if n := fake.Calls("conversations.replies"); n == 0 {
		t.Error("Finish did not look for a placeholder Start may have posted")
	}
	// A second Finish (the dispatcher's retry after a rendering panic)
	// does not post a second answer.
	if err := r.Finish(ctx, done); err != nil || len(fake.Messages("C1", "1.1")) != 1 {
		t.Errorf("second Finish: %v, %d messages", err, len(fake.Messages("C1", "1.1")))
	}

	// Start's post was made, but every answer to it was lost: the
	// placeholder found in the thread is the one, and Finish edits it.
	r = a.replier("C1", "2.2", "U1")
	v.AnswerID, done.AnswerID = "a2", "a2"
	fake.Fail("chat.postMessage", 1, slacktest.Dropped.AfterDoing())
	if err := r.Start(ctx, v); err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(ctx, done); err != nil {
		t.Fatal(err)
	}
	if msgs := fake.Messages("C1", "2.2"); len(msgs) != 1 || !isFinal(msgs[0]) || len(msgs[0].Versions) != 2 {
		t.Errorf("thread: %d messages; want the one placeholder, edited", len(msgs))
	}
}

// A final edit that still fails after its retries does not leave the
// thread on the placeholder: the answer is posted as a new reply and the
// placeholder deleted. An edit Slack made but reported failed is found
// and not posted again.
func TestFinalEditFails(t *testing.T) {
	cases := []struct {
		name        string
		fault       slacktest.Fault
		posts       int // chat.postMessage calls: placeholder (+ answer)
		updates     int // chat.update calls; 0: any
		deletes     bool
		placeholder bool // the answer is in the placeholder
	}{
		{"500 for good", slacktest.ServerError(500), 2, maxRateLimitRetries + 1, true, false},
		{"429 for good", slacktest.RateLimited(5), 2, maxRateLimitRetries + 1, true, false},
		{"dropped for good", slacktest.Dropped, 2, maxRateLimitRetries + 1, true, false},
		{"cant_update_message", slacktest.SlackError("cant_update_message"), 2, 1, true, false},
		{"made, then 500 for good", slacktest.ServerError(500).AfterDoing(), 1, 0, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, options{asker: quick})
			e.fake.Fail("chat.update", -1, c.fault)
			ev := e.ask("U1")
			e.answeredOnce(ev)
			if n := e.fake.Calls("chat.postMessage"); n != c.posts {
				t.Errorf("%d posts, want %d", n, c.posts)
			}
			if n := e.fake.Calls("chat.update"); c.updates != 0 && n != c.updates {
				t.Errorf("%d edits, want %d", n, c.updates)
			}
			if deleted := e.fake.Calls("chat.delete") > 0; deleted != c.deletes {
				t.Errorf("placeholder deleted: %v, want %v", deleted, c.deletes)
			}
			msgs := e.fake.Messages("C1", ev.TS)
			if len(msgs) == 1 && (len(msgs[0].Versions) > 1) != c.placeholder {
				t.Errorf("the answer is in the placeholder: %v, want %v", len(msgs[0].Versions) > 1, c.placeholder)
			}
		})
	}
}

// A placeholder someone deleted meanwhile cannot be edited: the answer is
// posted as a new reply.
func TestPlaceholderDeletedAnswerPosted(t *testing.T) {
	g := newGated()
	e := newEnv(t, options{asker: g})
	ev := e.ask("U1")
	slacktest.Wait(t, timeout, "the placeholder", func() bool { return len(e.fake.Messages("C1", ev.TS)) == 1 })
	api := slack.New(e.fake.BotToken, slack.OptionAPIURL(e.fake.APIURL()))
	if _, _, err := api.DeleteMessage("C1", e.fake.Messages("C1", ev.TS)[0].TS); err != nil {
		t.Fatal(err)
	}
	g.release()
	e.answeredOnce(ev)
	if n := e.fake.Calls("chat.update"); n != 1 {
		t.Errorf("%d edits of a deleted message, want 1", n)
	}
	if n := e.fake.Calls("chat.delete"); n != 1 {
		t.Errorf("%d deletes, want only the test's", n)
	}
}

// More 429s than the retries, for the edit and the post alike, do not
// drop the answer: the outbox delivers it once Slack takes it again.
func TestRateLimitStormAnswerRedelivered(t *testing.T) {
	g := newGated()
	e := newEnv(t, options{asker: g})
	ev := e.ask("U1")
	slacktest.Wait(t, timeout, "the placeholder", func() bool { return len(e.fake.Messages("C1", ev.TS)) == 1 })
	// Three times what Finish's edit and post may take, and well within
	// the outbox's 15 minutes at a Retry-After of 30s.
	const storm = 3 * (maxRateLimitRetries + 1)
	e.fake.Fail("chat.update", storm, slacktest.RateLimited(30))
	e.fake.Fail("chat.postMessage", storm, slacktest.RateLimited(30))
	g.release()
	e.answeredOnce(ev)
	if e.fake.Pending("chat.update") != 0 || e.fake.Pending("chat.postMessage") != 0 {
		t.Errorf("faults left: the answer came before the storm ended")
	}
	if n, waited := e.clock.slept(); waited < storm*30*time.Second {
		t.Errorf("%d waits of %s in all; Retry-After was not honoured", n, waited)
	}
}

// An answer whose post may have landed (made, then a 500) while the
// thread could not be read, handed to the outbox: redelivered once Slack
// is back, it is found in the thread, not shown a second time by the
// placeholder's edit, and the placeholder goes.
func TestRedeliveryAfterUncertainPost(t *testing.T) {
	g := newGated()
	e := newEnv(t, options{asker: g})
	ev := e.ask("U1")
	slacktest.Wait(t, timeout, "the placeholder", func() bool { return len(e.fake.Messages("C1", ev.TS)) == 1 })
	attempts := maxRateLimitRetries + 1
	e.fake.Fail("chat.update", attempts, slacktest.ServerError(503))             // Finish's edit
	e.fake.Fail("chat.postMessage", 1, slacktest.ServerError(500).AfterDoing())  // its post: made
	e.fake.Fail("conversations.replies", attempts-1, slacktest.ServerError(503)) // and not to be seen
	g.release()
	e.answeredOnce(ev)
	if n := e.fake.Calls("chat.postMessage"); n != 2 {
		t.Errorf("%d posts, want the placeholder and one answer", n)
	}
	if n := e.fake.Calls("chat.delete"); n != 1 {
		t.Errorf("%d deletes, want the placeholder's", n)
	}
}

// Two answers of one thread, both waiting in the outbox, both arrive.
func TestOutboxSameThread(t *testing.T) {
	g := newGated()
	e := newEnv(t, options{asker: g, workers: 1, redeliver: 1000 * time.Hour})
	first := e.ask("U1")
	follow := e.fake.Mention("C1", "U1", "and for EU customers?").InThread(first.TS)
	e.fake.PostEvent(e.h, "", follow, nil)
	slacktest.Wait(t, timeout, "two placeholders", func() bool { return len(e.fake.Messages("C1", first.TS)) == 2 })
	e.fake.Fail(slacktest.AnyMethod, 80, slacktest.ServerError(503))
	g.release()
	if err := e.settle(); err != nil {
		t.Fatal(err)
	}
	if got := e.tally("C1", first.TS); got.finals != 2 || got.placeholders != 0 || got.others != 0 {
		t.Errorf("thread: %s; want two answers", got)
	}
}

// Slack down for a while (every method, 503), then back: the answer
// arrives once, when Slack answers again.
func TestSlackDownThenBack(t *testing.T) {
	g := newGated()
	e := newEnv(t, options{asker: g})
	ev := e.ask("U1")
	slacktest.Wait(t, timeout, "the placeholder", func() bool { return len(e.fake.Messages("C1", ev.TS)) == 1 })
	// Down for Finish's every attempt and about ten redeliveries: a few
	// minutes of the clock, within the outbox's 15.
	e.fake.Fail(slacktest.AnyMethod, 30, slacktest.ServerError(503))
	g.release()
	e.answeredOnce(ev)
	if n := e.fake.Pending(slacktest.AnyMethod); n != 0 {
		t.Errorf("%d faults left: the answer came while Slack was down", n)
	}
}

// Slack down for good: the outbox gives up after Config.Redeliver, in a
// bounded number of attempts, and leaves nothing running.
func TestOutboxGivesUp(t *testing.T) {
	g := newGated()
	e := newEnv(t, options{asker: g})
	ev := e.ask("U1")
	slacktest.Wait(t, timeout, "the placeholder", func() bool { return len(e.fake.Messages("C1", ev.TS)) == 1 })
	start := e.clock.Now()
	e.fake.Fail(slacktest.AnyMethod, -1, slacktest.ServerError(503))
	g.release()
	if err := e.settle(); err != nil {
		t.Fatal(err)
	}
	if got := e.tally("C1", ev.TS); got.finals != 0 || got.placeholders != 1 {
		t.Errorf("thread: %s", got)
	}
	if passed := e.clock.Now().Sub(start); passed < defaultRedeliver || passed > defaultRedeliver+10*time.Minute {
		t.Errorf("gave up after %s, want %s", passed, defaultRedeliver)
	}
	if n := e.fake.Calls("chat.update"); n > (maxRateLimitRetries+1)+2*outboxMaxTries {
		t.Errorf("%d edits: the redelivery is not bounded", n)
	}
	e.a.out.mu.Lock()
	running, waiting := e.a.out.running, len(e.a.out.items)
	e.a.out.mu.Unlock()
	if running || waiting != 0 {
		t.Errorf("outbox running %v with %d answers after Close", running, waiting)
	}
}

// Close stops the outbox when its context ends, even in a wait, and
// reports the answers it did not deliver; a closed outbox takes no more.
func TestOutboxClose(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	block := func(ctx context.Context, _ time.Duration) error { <-ctx.Done(); return ctx.Err() }
	a, err := New(Config{BotToken: fake.BotToken, APIURL: fake.APIURL(), Sleep: block}, &counting{})
	if err != nil {
		t.Fatal(err)
	}
	v := bot.View{AnswerID: "a1", Question: "q", Progress: "Thinking…"}
	r := a.replier("C1", "1.1", "U1")
	if err := r.Start(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	fake.Fail(slacktest.AnyMethod, -1, slacktest.ServerError(503))
	// Finish out of time (its context's deadline passed) hands the
	// answer to the outbox without waiting.
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	v.Done, v.Failed = true, "I couldn't answer this one."
	if err := r.Finish(expired, v); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := a.Close(ctx); err == nil || !strings.Contains(err.Error(), "1 answer(s)") {
		t.Errorf("Close: %v", err)
	}
	r = a.replier("C1", "2.2", "U1")
	if err := r.Finish(expired, v); err == nil {
		t.Error("a closed outbox took an answer")
	}
	if err := a.Close(context.Background()); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A call that hangs until the client's timeout, done or not, is retried
// like a lost connection, and answers once.
func TestHungCallsAnswerOnce(t *testing.T) {
	e := newEnv(t, options{asker: quick, client: &http.Client{Timeout: 200 * time.Millisecond}})
	e.fake.Fail("chat.postMessage", 1, slacktest.Hung.AfterDoing())
	e.fake.Fail("chat.update", 1, slacktest.Hung.AfterDoing())
	ev := e.ask("U1")
	e.answeredOnce(ev)
}

// Many questions at once under each fault, more faults than one
// question's retries: every question is answered exactly once. The figures
// are logged (go test -run TestManyQuestionsUnderFaults -v ./bot/slack/).
func TestManyQuestionsUnderFaults(t *testing.T) {
	const questions, faults = 20, 40
	var cases []slacktest.Fault
	for _, f := range transient {
		cases = append(cases, f)
		if maybeDone(f) {
			cases = append(cases, f.AfterDoing())
		}
	}
	for _, f := range cases {
		t.Run(f.String(), func(t *testing.T) {
			// The clock is shared by every question's waits, so it runs
			// faster than any one of them: redelivery is bounded by its
			// attempts here, not by its 15 minutes.
			e := newEnv(t, options{asker: quick, redeliver: 1000 * time.Hour})
			e.fake.Fail("chat.postMessage", faults, f)
			e.fake.Fail("chat.update", faults, f)
			lookup := f
			lookup.Applied = false
			e.fake.Fail("conversations.replies", faults/4, lookup)
			events := make([]slacktest.MessageEvent, questions)
			for i := range events {
				events[i] = e.fake.Mention("C1", fmt.Sprintf("U%d", i), "What is our refund policy?")
			}
			var wg sync.WaitGroup
			for _, ev := range events {
				wg.Go(func() { e.fake.PostEvent(e.h, "", ev, nil) })
			}
			wg.Wait()
			if err := e.settle(); err != nil {
				t.Fatal(err)
			}
			once, twice, none, stale := 0, 0, 0, 0
			for _, ev := range events {
				got := e.tally("C1", ev.TS)
				switch {
				case got.once():
					once++
				case got.finals > 1:
					twice++
				case got.finals == 0:
					none++
				}
				stale += got.placeholders
				if !got.once() {
					t.Errorf("thread %s: %s", ev.TS, got)
				}
			}
			t.Logf("%-32s %d questions: %d answered exactly once, %d more than once, %d not at all, %d placeholders left; "+
				"calls: chat.postMessage %d, chat.update %d, conversations.replies %d, chat.delete %d",
				f.String()+":", questions, once, twice, none, stale, e.fake.Calls("chat.postMessage"), e.fake.Calls("chat.update"),
				e.fake.Calls("conversations.replies"), e.fake.Calls("chat.delete"))
		})
	}
}
