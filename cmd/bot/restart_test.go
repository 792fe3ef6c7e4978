package main

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
)

// The way a single machine fails: one `switchboard serve` on the embedded
// store is killed with SIGKILL while it answers, with questions waiting
// and running, and started again on the same file. Every question it
// accepted (its placeholder was posted) is answered once after the
// restart, in its own placeholder, each thread's in order.
func TestEmbeddedStoreAnswersEveryAcceptedQuestionOnceAfterAKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts switchboard serve twice")
	}
	fake := slacktest.NewServer()
	defer fake.Close()
	var outOfOrder atomic.Int32
	model := threadModel(t, func(thread, n int, prompt string) {
		if n > 0 && !strings.Contains(prompt, fmt.Sprintf("Answer to Q%d-%d.", thread, n-1)) {
			outOfOrder.Add(1)
		}
	})
	env := []string{
		"SWITCHBOARD_DATA_DIR=" + t.TempDir(), "SLACK_BOT_TOKEN=" + fake.BotToken, "SLACK_SIGNING_SECRET=" + fake.SigningSecret,
		"SLACK_API_URL=" + fake.APIURL(),
		// Posted placeholders are what the test watches replicas take
		// over; a stream is not taken over (bot/slack/native.go).
		"SLACK_NATIVE=false", "OPENAI_BASE_URL=" + model.URL(), "OPENAI_API_KEY=test", "OPENAI_CHAT_MODEL=test",
		"EDIT_INTERVAL=20ms", "QUESTION_LEASE=2s", "MAX_CONCURRENT_QUESTIONS=1", "HTTP_ADDR=127.0.0.1:0",
		"OPENAI_MAX_RETRIES=0", "LOG_LEVEL=warn",
		// The embedded store alone, whatever the services in the environment.
		"DATABASE_URL=", "NEO4J_URI=",
	}
	first := startReplica(t, env)
	deliver := deliverer(t, fake, []*replica{first})

	// Two questions in each thread, the second asked once the first
	// shows its placeholder; one worker answers them, slowly.
	const threads, perThread = 8, 2
	roots := make([]string, threads)
	for i := range perThread {
		for th := range threads {
			ev := fake.Mention(channelOf(th), fmt.Sprintf("U%d", th), fmt.Sprintf("What about Q%d-%d?", th, i))
			if i > 0 {
				ev = ev.InThread(roots[th])
			} else {
				roots[th] = ev.TS
			}
			deliver(th, ev)
		}
		for th := range threads {
			if !waitFor(time.Minute, func() bool { return len(fake.Messages(channelOf(th), roots[th])) > i }) {
				t.Fatalf("thread %d: no placeholder for question %d", th, i)
			}
		}
	}
	if n := answered(fake, roots); n >= threads*perThread {
		t.Fatalf("all %d questions were answered before the kill; the test shows nothing", n)
	}
	first.dead.Store(true)
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.cmd.Wait()
	before := answered(fake, roots)

	startReplica(t, env) // the same file
	slacktest.Wait(t, 2*time.Minute, "every answer", func() bool { return answered(fake, roots) >= threads*perThread })
	t.Logf("%d of %d questions were answered before the kill, the others after the restart", before, threads*perThread)

	for th, root := range roots {
		msgs := fake.Messages(channelOf(th), root)
		if len(msgs) != perThread {
			t.Errorf("thread %d has %d messages of the bot, want %d: one per question", th, len(msgs), perThread)
		}
		for i, m := range msgs {
			if want := fmt.Sprintf("Answer to Q%d-%d.", th, i); !strings.Contains(m.Content(), want) {
				t.Errorf("thread %d, message %d: %q, want the answer %q", th, i, m.Content(), want)
			}
			finals := 0
			for _, v := range m.Versions {
				if strings.Contains(v.Content(), "General knowledge") {
					finals++
				}
			}
			if finals != 1 {
				t.Errorf("thread %d, message %d was finished %d times, want once", th, i, finals)
			}
		}
	}
	if n := outOfOrder.Load(); n != 0 {
		t.Errorf("%d answers written without the answer before them in their thread's history", n)
	}
}
