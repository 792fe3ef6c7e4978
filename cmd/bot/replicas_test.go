package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	openai "github.com/sashabaranov/go-openai"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/llm/llmtest"
)

// Environment of a replica's child process.
const (
	replicaEnv    = "SWITCHBOARD_TEST_REPLICA"
	replicaPrefix = "LISTENING="
)

// TestServeReplica is not a test. Run by startReplica as a child process,
// it is one `switchboard serve` with the environment it was given, until SIGTERM
// or until it is killed.
func TestServeReplica(t *testing.T) {
	if os.Getenv(replicaEnv) == "" {
		t.Skip("a replica of TestReplicasAnswerEveryQuestionOnceInOrder; runs only as its child process")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	m := &Main{Stdin: strings.NewReader(""), Stdout: os.Stderr, Stderr: os.Stderr, Getenv: os.Getenv,
		listening: func(a string) { fmt.Println(replicaPrefix + a) }}
	if err := m.Run(ctx, []string{"serve"}); err != nil {
		t.Fatal(err)
	}
}

// replica is a `switchboard serve` in a child process.
type replica struct {
	cmd   *exec.Cmd
	proxy *httputil.ReverseProxy // to its HTTP server, over TCP
	dead  atomic.Bool
}

func startReplica(t *testing.T, env []string) *replica {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeReplica$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), replicaEnv+"=1"), env...)
	var logs strings.Builder
	var logsMu sync.Mutex
	cmd.Stderr = writerFunc(func(p []byte) (int, error) { logsMu.Lock(); defer logsMu.Unlock(); return logs.Write(p) })
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &replica{cmd: cmd}
	t.Cleanup(func() {
		if !r.dead.Load() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			logsMu.Lock()
			t.Logf("replica %d's log:\n%s", cmd.Process.Pid, logs.String())
			logsMu.Unlock()
		}
	})
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), replicaPrefix); ok {
				addrs <- a
			}
		}
	}()
	select {
	case a := <-addrs:
		target, _ := url.Parse("http://" + a)
		r.proxy = httputil.NewSingleHostReverseProxy(target)
		return r
	case <-time.After(2 * time.Minute):
		t.Fatal("a replica did not start listening")
	}
	return nil
}

// stop stops the replica as serve is stopped (SIGTERM), and waits until
// it has.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	r.dead.Store(true)
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a guard against a hang, not a timing
		t.Fatal("the replica did not stop")
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

var questionID = regexp.MustCompile(`Q\d+-\d+`)

// The way replicas fail: three `switchboard serve` on one PostgreSQL behind one
// Slack app (Events API), 100 questions in 30 threads, each asked once the
// one before it in its thread shows its placeholder, as people do; one
// replica is killed with SIGKILL mid-burst, and Slack's retries of the
// deliveries it did not acknowledge go to the others. Every question is
// answered exactly once, in its own placeholder, and each thread's
// questions one after another, in order: the model sees the answer to the
// question before, in the thread's history, whichever replica answered it.
func TestReplicasAnswerEveryQuestionOnceInOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three switchboard serve processes")
	}
	dbURL := testenv.PostgresURL(t)
	fake := slacktest.NewServer()
	defer fake.Close()
	var outOfOrder atomic.Int32
	model := threadModel(t, func(thread, n int, prompt string) {
		if n > 0 && !strings.Contains(prompt, fmt.Sprintf("Answer to Q%d-%d.", thread, n-1)) {
			outOfOrder.Add(1) // the answer before is not in the history
		}
	})
	replicas := startReplicas(t, dbURL, fake, model)

	deliver := deliverer(t, fake, replicas)

	const threads, questions = 30, 100
	roots := make([]string, threads)
	var wg sync.WaitGroup
	for th := range threads {
		n := questions / threads
		if th < questions%threads {
			n++
		}
		wg.Go(func() {
			for i := range n {
				text := fmt.Sprintf("What about Q%d-%d?", th, i)
				ev := fake.Mention(channelOf(th), fmt.Sprintf("U%d", th), text)
				if i > 0 {
					ev = ev.InThread(roots[th])
				} else {
					roots[th] = ev.TS
				}
				deliver(th+i, ev)
				// The next question once this one's placeholder shows.
				if !waitFor(time.Minute, func() bool { return len(fake.Messages(channelOf(th), roots[th])) > i }) {
					t.Errorf("thread %d: no placeholder for question %d", th, i)
					return
				}
			}
		})
	}
	// Kill one replica mid-answer, once a few answers are out and many
	// questions wait or run.
	db, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	victim := fmt.Sprintf(":%d:", replicas[0].cmd.Process.Pid)
	var running []string
	slacktest.Wait(t, 2*time.Minute, "the first answers, and questions running on the first replica", func() bool {
		if answered(fake, roots) < 20 {
			return false
		}
		running = runningOn(t, db, victim)
		return len(running) > 0
	})
	replicas[0].dead.Store(true)
	if err := replicas[0].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	slacktest.Wait(t, 3*time.Minute, "every answer", func() bool { return answered(fake, roots) >= questions })

	// What the killed replica was answering is done: by another replica,
	// unless it finished between the look and the kill.
	var done, takenOver int
	if err := db.QueryRow(context.Background(), `SELECT count(*), count(*) FILTER (WHERE position($2 in owner) = 0)
		FROM questions WHERE id = ANY($1) AND state = 'done'`, running, victim).Scan(&done, &takenOver); err != nil {
		t.Fatal(err)
	}
	if done != len(running) {
		t.Errorf("of the %d questions running on the killed replica, %d are done, %d by another replica", len(running), done, takenOver)
	}
	t.Logf("%d questions were running on the killed replica; the others finished %d of them", len(running), takenOver)

	for th, root := range roots {
		msgs := fake.Messages(channelOf(th), root)
		for i, m := range msgs {
			want := fmt.Sprintf("Answer to Q%d-%d.", th, i)
			if got := m.Content(); !strings.Contains(got, want) {
				t.Errorf("thread %d, message %d: %q, want the answer %q", th, i, got, want)
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
	if n := answered(fake, roots); n != questions {
		t.Errorf("%d answers in the threads, want %d: one per question", n, questions)
	}
	if n := outOfOrder.Load(); n != 0 {
		t.Errorf("%d answers written without the answer before them in their thread's history", n)
	}
}

// threadModel is the model of the replica tests: it routes every question
// "Qt-n" (thread t, its n-th question) to a direct answer, "Answer to
// Qt-n.", after calling check with the prompt of that answer, which holds
// the thread's history.
func threadModel(t *testing.T, check func(thread, n int, prompt string)) *llmtest.Server {
	return llmtest.New(t).Delay(50 * time.Millisecond).Handle(func(req openai.ChatCompletionRequest) (string, int) {
		prompt := llmtest.Prompt(req)
		ids := questionID.FindAllString(prompt, -1)
		if len(ids) == 0 {
			return "no question id in the prompt", 400
		}
		id := ids[len(ids)-1] // the question follows the thread's history
		switch llmtest.Task(req) {
		case "route":
			return `{"reason":"a test question","route":"direct"}`, 0
		case "condense":
			return fmt.Sprintf(`{"question":"Tell me about %s"}`, id), 0
		case "direct":
			var thread, n int
			fmt.Sscanf(id, "Q%d-%d", &thread, &n)
			check(thread, n, prompt)
			return fmt.Sprintf("Answer to %s.", id), 0
		}
		return "unexpected task " + llmtest.Task(req), 400
	})
}

// deliverer posts events as Slack does: to a replica, and again, with the
// same event id, to the next one while it is not acknowledged within
// Slack's 3 s (a replica that is frozen never answers).
func deliverer(t *testing.T, fake *slacktest.Server, replicas []*replica) func(first int, ev slacktest.MessageEvent) {
	return func(first int, ev slacktest.MessageEvent) {
		id := fake.NewEventID()
		for try := range 30 { // bounded: far more than the replicas
			r := replicas[(first+try)%len(replicas)]
			slack := http.TimeoutHandler(r.proxy, 3*time.Second, "no acknowledgement")
			if resp := fake.PostEvent(slack, id, ev, nil); resp.StatusCode == 200 {
				return
			}
		}
		t.Errorf("no replica took event %s", id)
	}
}

// startReplicas starts three `bot serve` on one PostgreSQL behind one
// Slack app (Events API), with a 2 s lease.
func startReplicas(t *testing.T, dbURL string, fake *slacktest.Server, model *llmtest.Server) []*replica {
	t.Helper()
	env := []string{
		"DATABASE_URL=" + dbURL, "SLACK_BOT_TOKEN=" + fake.BotToken, "SLACK_SIGNING_SECRET=" + fake.SigningSecret,
		"SLACK_API_URL=" + fake.APIURL(),
		// Posted placeholders are what the test watches replicas take
		// over; a stream is not taken over (bot/slack/native.go).
		"SLACK_NATIVE=false", "OPENAI_BASE_URL=" + model.URL(), "OPENAI_API_KEY=test", "OPENAI_CHAT_MODEL=test",
		"EDIT_INTERVAL=20ms", "QUESTION_LEASE=2s", "MAX_CONCURRENT_QUESTIONS=4", "HTTP_ADDR=127.0.0.1:0",
		"OPENAI_MAX_RETRIES=0", "LOG_LEVEL=warn",
	}
	var replicas []*replica
	for i := range 3 {
		own := append([]string{"SWITCHBOARD_DATA_DIR=" + t.TempDir(), fmt.Sprintf("REPLICA=%d", i)}, env...)
		replicas = append(replicas, startReplica(t, own))
	}
	return replicas
}

// The way a frozen replica fails: three `bot serve` on one PostgreSQL
// behind one Slack app; one is frozen (SIGSTOP) while it answers, past its
// lease, with deliveries in hand, and woken (SIGCONT) once the others have
// taken its questions over. Slack retries what the frozen one held after
// its asker's next question, so a thread's question is stored after the
// one that follows it. Every question is answered once; each sees the
// answers to the questions asked before it and never one asked after it
// (the history as of its own time); the threads are stored in the order
// asked; and the woken replica touches no message.
func TestFrozenReplicaKeepsThreadsInOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three bot serve processes")
	}
	dbURL := testenv.PostgresURL(t)
	fake := slacktest.NewServer()
	defer fake.Close()

	var (
		mu       sync.Mutex
		produced = map[[2]int]bool{} // answers the model gave, by thread and question
		problems []string
	)
	model := threadModel(t, func(th, n int, prompt string) {
		mu.Lock()
		defer mu.Unlock()
		for m := 0; m < perThreadFrozen; m++ {
			has := strings.Contains(prompt, fmt.Sprintf("Answer to Q%d-%d.", th, m))
			switch {
			case m > n && has:
				problems = append(problems, fmt.Sprintf("Q%d-%d was answered with the answer to Q%d-%d, asked after it", th, n, th, m))
			case m < n && produced[[2]int{th, m}] && !has:
				problems = append(problems, fmt.Sprintf("Q%d-%d was answered without the answer to Q%d-%d, asked and answered before it", th, n, th, m))
			}
		}
		produced[[2]int{th, n}] = true
	})
	replicas := startReplicas(t, dbURL, fake, model)
	deliver := deliverer(t, fake, replicas)
	frozen := replicas[0]
	var isFrozen, stuck atomic.Int32

	const threads = 12
	roots := make([]string, threads)
	asked := make([]int, threads) // questions asked, per thread
	var wg sync.WaitGroup
	for th := range threads {
		wg.Go(func() {
			next := func(i int) slacktest.MessageEvent {
				ev := fake.Mention(channelOf(th), fmt.Sprintf("U%d", th), fmt.Sprintf("What about Q%d-%d?", th, i))
				if i > 0 {
					return ev.InThread(roots[th])
				}
				roots[th] = ev.TS
				return ev
			}
			for i := 0; i < perThreadFrozen; i++ {
				if i > 0 && i+1 < perThreadFrozen && isFrozen.Load() == 1 && stuck.Load() < threads/2 {
					// Delivered to the frozen replica, retried by Slack once
					// it does not answer; meanwhile the asker asks again.
					stuck.Add(1)
					held, follow := next(i), next(i+1)
					var both sync.WaitGroup
					both.Go(func() { deliver(0, held) })
					both.Go(func() { deliver(1+th%2, follow) })
					both.Wait()
					i++
				} else {
					deliver(th+i, next(i))
				}
				mu.Lock()
				asked[th] = i + 1
				mu.Unlock()
				if !waitFor(time.Minute, func() bool { return len(fake.Messages(channelOf(th), roots[th])) > i }) {
					t.Errorf("thread %d: no placeholder for question %d", th, i)
					return
				}
			}
		})
	}

	db, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	victim := fmt.Sprintf(":%d:", frozen.cmd.Process.Pid)
	var running []string
	slacktest.Wait(t, 2*time.Minute, "questions running on the replica to freeze", func() bool {
		running = runningOn(t, db, victim)
		return len(running) > 0
	})
	if err := frozen.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	isFrozen.Store(1)
	// Woken once the others have answered what it held, and Slack has
	// retried what it was delivered meanwhile.
	slacktest.Wait(t, 2*time.Minute, "the frozen replica's questions answered by the others", func() bool {
		var open int
		if err := db.QueryRow(context.Background(), `SELECT count(*) FROM questions WHERE id = ANY($1) AND state <> 'done'`, running).Scan(&open); err != nil {
			t.Fatal(err)
		}
		return open == 0 && stuck.Load() > 0
	})
	wg.Wait()
	isFrozen.Store(0)
	if err := frozen.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range asked {
		total += n
	}
	slacktest.Wait(t, 3*time.Minute, "every answer", func() bool { return answered(fake, roots) >= total })
	// The woken replica finishes what it was doing, then stops: whatever
	// it would touch, it has by then.
	frozen.stop(t)
	t.Logf("%d questions were running on the frozen replica; %d deliveries were held by it", len(running), stuck.Load())

	for th, root := range roots {
		seen := map[string]int{}
		for _, m := range fake.Messages(channelOf(th), root) {
			id := questionID.FindString(m.Content())
			seen[id]++
			// Once finished, an answer is never replaced by anything
			// else. A replica frozen in the middle of finishing it (past
			// the check of its claim, its request not yet sent) sends
			// that one request when it wakes, finishing it the same way:
			// nothing can take back a request in flight.
			var final string
			for _, v := range m.Versions {
				switch c := v.Content(); {
				case final != "" && c != final:
					t.Errorf("thread %d: the answer to %s was changed after it was finished: %q, then %q", th, id, final, c)
				case strings.Contains(c, "General knowledge"):
					final = c
				}
			}
			if final == "" {
				t.Errorf("thread %d: the message of %s was never finished: %q", th, id, m.Content())
			}
		}
		for i := range asked[th] {
			if id := fmt.Sprintf("Q%d-%d", th, i); seen[id] != 1 {
				t.Errorf("thread %d: %s answered in %d messages, want 1 (%v)", th, id, seen[id], seen)
			}
		}
	}
	mu.Lock()
	for _, p := range problems {
		t.Error(p)
	}
	mu.Unlock()

	// The threads as stored: the turns in the order asked.
	rows, err := db.Query(context.Background(), `SELECT state->'turns' FROM threads`)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := pgx.CollectRows(rows, pgx.RowTo[[]map[string]any])
	if err != nil {
		t.Fatal(err)
	}
	for _, turns := range stored {
		var order []string
		last := -1
		for _, turn := range turns {
			id := questionID.FindString(fmt.Sprint(turn["question"]))
			order = append(order, id)
			var th, n int
			fmt.Sscanf(id, "Q%d-%d", &th, &n)
			if n <= last {
				t.Errorf("a thread is stored out of order: %v", order)
				break
			}
			last = n
		}
	}
}

// runningOn lists the questions running on the replica whose process id
// is in victim (":pid:", as in its owner names).
func runningOn(t *testing.T, db *pgx.Conn, victim string) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), `SELECT id FROM questions WHERE state = 'running' AND position($1 in owner) > 0`, victim)
	if err != nil {
		t.Fatal(err)
	}
	running, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return running
}

// perThreadFrozen is how many questions each thread of
// TestFrozenReplicaKeepsThreadsInOrder asks.
const perThreadFrozen = 5

// channelOf is the channel of thread th: ten channels, so that the
// channels' rate limit (60 a minute, shared by the replicas) takes them.
func channelOf(th int) string { return fmt.Sprintf("C%d", th%10) }

// waitFor polls cond until it holds or timeout passes; a guard against a
// hang, not a timing.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// answered counts the bot's messages in the threads that show an answer
// (the badge of a direct answer).
func answered(fake *slacktest.Server, roots []string) int {
	n := 0
	for th, root := range roots {
		if root == "" {
			continue
		}
		for _, m := range fake.Messages(channelOf(th), root) {
			if strings.Contains(m.Content(), "General knowledge") {
				n++
			}
		}
	}
	return n
}
