package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/internal/testpdf"
)

// childArgsEnv holds the arguments of TestBotChild, one a line.
const childArgsEnv = "SWITCHBOARD_TEST_BOT_ARGS"

// TestBotChild is not a test. Run by startChild as a child process, it is
// `bot` with the arguments in childArgsEnv and the environment it was
// given, until it ends or SIGTERM.
func TestBotChild(t *testing.T) {
	args := os.Getenv(childArgsEnv)
	if args == "" {
		t.Skip("the bot of BenchmarkFileMemory; runs only as its child process")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	m := &Main{Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		listening: func(a string) { fmt.Println(replicaPrefix + a) }}
	err := m.Run(ctx, strings.Split(args, "\n"))
	// Its own peak: ru_maxrss would be its parent's if that was higher
	// when it was started (Linux keeps it across exec).
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				fmt.Println(peakPrefix + strings.TrimSpace(v))
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// peakPrefix starts the line where TestBotChild writes its peak RSS.
const peakPrefix = "VMHWM="

// BenchmarkFileMemory is the memory one file adds to the process, for
// the files of issue 21: a one-page PDF of millions of text operators
// (testpdf.Operators, 19 MB), a PDF and a Markdown file of just under
// the text cap (ingest.MaxFileText), and a one-line PDF to compare with.
// Each is ingested by `bot ingest FILE` and, attached to a Slack message,
// by `bot ingest slack --channel` (the fake Slack of slacktest), each in
// a child process of its own, whose peak RSS (VmHWM) is peak-MB; the
// one-line PDF's is subtracted to give extra-MB. And `bot serve` is sent
// a message with the file attached in a channel it ingested, after one
// with the one-line PDF (which loads the PDF reader): extra-MB is its
// peak RSS while it reads the file (VmHWM, reset first) over its RSS
// before. PDFium's compiled code is in the user's cache folder, as after
// any first run. Run it with
//
//	go test ./cmd/bot -run '^$' -bench FileMemory -benchtime 1x
func BenchmarkFileMemory(b *testing.B) {
	dir := b.TempDir()
	prose := strings.Repeat("Acme Corp supplies Globex with sensors and renews the contract every June.\n", 48)
	pages := make([]string, 1000)
	for i := range pages {
		pages[i] = fmt.Sprintf("Page %d\n%s", i+1, prose)
	}
	files := []struct{ name, mime string }{
		{"one-line.pdf", "application/pdf"},
		{"operators-19MB.pdf", "application/pdf"},
		{"text-3.5MB.pdf", "application/pdf"},
		{"text-3.5MB.md", "text/markdown"},
	}
	data := map[string][]byte{
		"one-line.pdf":       testpdf.New("One line", "Acme Corp supplies Globex."),
		"operators-19MB.pdf": testpdf.Operators(19 << 20),
		"text-3.5MB.pdf":     testpdf.New("Long", pages...),
		"text-3.5MB.md":      []byte("# Long\n\n" + strings.Join(pages, "\n\n")),
	}
	for name, d := range data {
		if err := os.WriteFile(filepath.Join(dir, name), d, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	base := []string{"SWITCHBOARD_DEMO=false", "RATE_LIMIT_USER_PER_MIN=0"}
	baseline := map[string]float64{} // peak MB of the one-line PDF, by command
	for _, f := range files {
		b.Run("ingest/"+f.name, func(b *testing.B) {
			for b.Loop() {
				env := slices.Concat(base, []string{"SWITCHBOARD_DATA_DIR=" + b.TempDir()})
				peak := startChild(b, env, "ingest", filepath.Join(dir, f.name)).peakMB(b)
				reportPeak(b, baseline, "ingest", f.name, peak)
			}
		})
	}
	for _, f := range files {
		b.Run("ingest-slack/"+f.name, func(b *testing.B) {
			for b.Loop() {
				fake := slacktest.NewServer()
				fake.AddChannel("C1", "files", false)
				fake.AddUser("U1", "Alice")
				ts := fake.PostAt("C1", "U1", "the file", day1)
				fake.AttachFile("C1", ts, f.name, f.mime, data[f.name])
				env := slices.Concat(base, slackEnvList(fake, b.TempDir()))
				peak := startChild(b, env, "ingest", "slack", "--channel", "C1").peakMB(b)
				fake.Close()
				reportPeak(b, baseline, "ingest-slack", f.name, peak)
			}
		})
	}
	for _, f := range files[1:] {
		b.Run("serve/"+f.name, func(b *testing.B) {
			for b.Loop() {
				b.ReportMetric(serveFileMB(b, base, f.name, f.mime, data), "extra-MB")
			}
		})
	}
}

// reportPeak reports a child's peak RSS, and what it has over the
// one-line PDF's under the same command (which runs first).
func reportPeak(b *testing.B, baseline map[string]float64, command, file string, peak float64) {
	if file == "one-line.pdf" {
		baseline[command] = peak
	}
	b.ReportMetric(peak, "peak-MB")
	if base, ok := baseline[command]; ok {
		b.ReportMetric(peak-base, "extra-MB")
	}
}

// serveFileMB runs `bot serve` on a channel it ingested, posts a message
// with the one-line PDF, then one with the file, and returns how many MB
// the process's RSS rose to over what it was before the file.
func serveFileMB(b *testing.B, base []string, name, mime string, data map[string][]byte) float64 {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("C1", "files", false)
	fake.AddUser("U1", "Alice")
	fake.PostAt("C1", "U1", "Kickoff notes are in the wiki.", day1)
	env := slices.Concat(base, slackEnvList(fake, b.TempDir()), []string{"LOG_LEVEL=debug", "HTTP_ADDR=127.0.0.1:0"})
	startChild(b, env, "ingest", "slack", "--channel", "C1").peakMB(b) // to its end: the channel is ingested
	srv := startChild(b, env, "serve")
	defer srv.stop(b)
	addr := srv.listening(b)
	post := func(at time.Time, file string) {
		applied := srv.count("applied a message change")
		ts := fake.PostAt("C1", "U1", "here is "+file, at)
		fake.AttachFile("C1", ts, file, mime, data[file])
		if resp := fake.PostEvent(proxyTo(addr), "", fake.ChannelMessageEvent("C1", ts), nil); resp.StatusCode != 200 {
			b.Fatalf("event status %d", resp.StatusCode)
		}
		srv.waitFor(b, "applied a message change", applied+1)
	}
	post(day1.Add(time.Hour), "one-line.pdf")
	srv.resetPeak(b)
	before := srv.status(b, "VmRSS")
	post(day1.Add(2*time.Hour), name)
	return srv.status(b, "VmHWM") - before
}

// slackEnvList is the environment of a bot talking to the fake Slack.
func slackEnvList(fake *slacktest.Server, dataDir string) []string {
	return []string{"SLACK_BOT_TOKEN=" + fake.BotToken, "SLACK_SIGNING_SECRET=" + fake.SigningSecret,
		"SLACK_API_URL=" + fake.APIURL(), "SWITCHBOARD_DATA_DIR=" + dataDir}
}

// child is `bot` in a child process (TestBotChild).
type child struct {
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	out  strings.Builder // stdout and stderr
	addr chan string
	peak string // VmHWM, as it wrote it: "334100 kB"
}

func startChild(tb testing.TB, env []string, args ...string) *child {
	tb.Helper()
	c := &child{cmd: exec.Command(os.Args[0], "-test.run=^TestBotChild$", "-test.count=1"), done: make(chan struct{}), addr: make(chan string, 1)}
	c.cmd.Env = append(append(os.Environ(), env...), childArgsEnv+"="+strings.Join(args, "\n"))
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	c.cmd.Stderr = writerFunc(func(p []byte) (int, error) { c.mu.Lock(); defer c.mu.Unlock(); return c.out.Write(p) })
	if err := c.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), replicaPrefix); ok {
				c.addr <- a
			}
			c.mu.Lock()
			if p, ok := strings.CutPrefix(sc.Text(), peakPrefix); ok {
				c.peak = p
			}
			c.out.WriteString(sc.Text() + "\n")
			c.mu.Unlock()
		}
	}()
	return c
}

// peakMB waits for the child to end and returns its peak RSS.
func (c *child) peakMB(tb testing.TB) float64 {
	<-c.done
	if err := c.cmd.Wait(); err != nil {
		tb.Fatalf("bot %s: %v\n%s", c.cmd.Env[len(c.cmd.Env)-1], err, c.output())
	}
	kb, err := strconv.Atoi(strings.TrimSuffix(c.peak, " kB"))
	if err != nil {
		tb.Fatalf("bot wrote no peak RSS (%q):\n%s", c.peak, c.output())
	}
	return float64(kb) / 1024
}

func (c *child) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

func (c *child) count(s string) int { return strings.Count(c.output(), s) }

func (c *child) listening(tb testing.TB) string {
	select {
	case a := <-c.addr:
		return a
	case <-time.After(2 * time.Minute):
		tb.Fatalf("bot serve did not start listening:\n%s", c.output())
		return ""
	}
}

// waitFor waits until s has been written n times.
func (c *child) waitFor(tb testing.TB, s string, n int) {
	for deadline := time.Now().Add(5 * time.Minute); c.count(s) < n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("bot never wrote %q %d times:\n%s", s, n, c.output())
		}
	}
}

// status is a memory figure of /proc/PID/status, in MB.
func (c *child) status(tb testing.TB, key string) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				tb.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	tb.Fatalf("no %s in /proc/PID/status", key)
	return 0
}

// resetPeak sets the child's peak RSS (VmHWM) to its RSS now.
func (c *child) resetPeak(tb testing.TB) {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", c.cmd.Process.Pid), []byte("5"), 0); err != nil {
		tb.Fatal(err)
	}
}

func (c *child) stop(tb testing.TB) {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		_ = c.cmd.Wait()
	case <-time.After(time.Minute):
		_ = c.cmd.Process.Kill()
		tb.Error("bot serve did not stop after SIGTERM")
	}
}
