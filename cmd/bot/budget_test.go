package main

import (
	"fmt"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/llm/llmtest"
)

// budgetModel is a model server that answers every document question
// from the documents, streaming the answer with its usage as OpenAI does
// (stream_options.include_usage); its Tokens are what it spent.
func budgetModel(t *testing.T) *llmtest.Server {
	return llmtest.New(t).
		On("route", `{"route":"vector","reason":"asks about a policy"}`).
		On("grade", `{"evidence":"Refunds are available within 30 days.","relevant":true}`).
		On("generate", "Customers can get a full refund within 30 days of purchase [1].").
		On("check", `{"grounded":true,"unsupported":[],"answers":true,"missing":""}`)
}

// slackBot is a `bot serve` (or several, sharing env's DATABASE_URL)
// behind one fake Slack workspace.
type slackBot struct {
	fake    *slacktest.Server
	proxies []*httputil.ReverseProxy
}

func startSlackBot(t *testing.T, replicas int, env map[string]string) *slackBot {
	t.Helper()
	fake := slacktest.NewServer()
	t.Cleanup(fake.Close)
	b := &slackBot{fake: fake}
	for range replicas {
		own := map[string]string{
			"SLACK_BOT_TOKEN": fake.BotToken, "SLACK_SIGNING_SECRET": fake.SigningSecret,
			"SLACK_API_URL": fake.APIURL(), "EDIT_INTERVAL": "10ms", "OPENAI_API_KEY": "test",
			"OPENAI_MAX_RETRIES": "0", "RATE_LIMIT_USER_PER_MIN": "0", "RATE_LIMIT_CHANNEL_PER_MIN": "0",
		}
		for k, v := range env {
			own[k] = v
		}
		target, _ := url.Parse("http://" + startServe(t, own))
		b.proxies = append(b.proxies, httputil.NewSingleHostReverseProxy(target))
	}
	return b
}

// ask posts a question by user in a new thread of channel, to the
// replica i picks, and returns the thread.
func (b *slackBot) ask(t *testing.T, i int, channel, user, text string) string {
	t.Helper()
	ev := b.fake.Mention(channel, user, text)
	if resp := b.fake.PostEvent(b.proxies[i%len(b.proxies)], "", ev, nil); resp.StatusCode != 200 {
		t.Errorf("event status %d", resp.StatusCode)
	}
	return ev.TS
}

// finals waits until every thread of channel holds a final answer and
// returns them, by thread.
func (b *slackBot) finals(t *testing.T, channel string, threads []string) []string {
	t.Helper()
	out := make([]string, len(threads))
	slacktest.Wait(t, 2*time.Minute, "every answer", func() bool {
		for i, th := range threads {
			msgs := b.fake.Messages(channel, th)
			if len(msgs) == 0 || !isFinal(msgs[0].Content()) {
				return false
			}
			out[i] = msgs[0].Content()
		}
		return true
	})
	return out
}

// offlineFor counts the answers labelled offline, each of which must say
// why.
func offlineFor(t *testing.T, answers []string, why string) int {
	t.Helper()
	n := 0
	for _, a := range answers {
		if strings.Contains(a, "answered offline") {
			n++
			if !strings.Contains(a, "answered offline: "+why) {
				t.Errorf("an offline answer does not say %q:\n%s", why, a)
			}
		}
	}
	return n
}

// isFinal reports whether a message shows an answer's badge or a failure.
func isFinal(content string) bool {
	for _, end := range []string{"confidence", "No answer found", "General knowledge", bot.FailedMessage, bot.TimeoutMessage} {
		if strings.Contains(content, end) {
			return true
		}
	}
	return false
}

// The burst: one person asks ten questions at once. Their answers
// spend no more of the model than their share of the workspace's daily
// budget (the model server's own count of the tokens it spent on their
// prompts); those past it are answered offline, labelled so, and the
// asker is told privately why; and the next person still gets the model.
func TestOneAskersBurstStaysWithinTheirShare(t *testing.T) {
	model := budgetModel(t)
	const budget, share = 16000, 8000
	b := startSlackBot(t, 1, map[string]string{
		"OPENAI_BASE_URL": model.URL(), "DAILY_TOKEN_BUDGET": fmt.Sprint(budget), "TOKEN_BUDGET_PER_USER": "50%",
		"SWITCHBOARD_DEMO": "true", // the demo's documents, on purpose: serve uses them only when told
	})
	var threads []string
	for i := range 10 {
		threads = append(threads, b.ask(t, 0, "C1", "U1", fmt.Sprintf("What is our refund policy? (U1, question %d)", i)))
	}
	answers := b.finals(t, "C1", threads)
	spent := model.Tokens("(U1, ")
	t.Logf("U1's ten questions: %d model tokens, %d requests", spent, model.Calls(""))
	if spent > share {
		t.Errorf("one asker's burst spent %d model tokens; their share is %d", spent, share)
	}
	if offlineFor(t, answers, "the asker has used their share of today's model budget, which renews in") == 0 {
		t.Errorf("none of the burst's answers is labelled offline, though it spent %d tokens of a %d share", spent, share)
	}
	told := false
	for _, e := range b.fake.Ephemerals("U1") {
		told = told || strings.Contains(e.Text, "your share of this workspace's model budget")
	}
	if !told {
		t.Errorf("the asker was not told privately why: %+v", b.fake.Ephemerals("U1"))
	}

	other := b.ask(t, 0, "C1", "U2", "What is our refund policy? (U2)")
	answer := b.finals(t, "C1", []string{other})[0]
	if strings.Contains(answer, "answered offline") || model.Tokens("(U2)") == 0 {
		t.Errorf("after one person's burst, another is answered offline (%d tokens):\n%s", model.Tokens("(U2)"), answer)
	}
}

// The crowd: 24 people ask at once, through two replicas that
// share the budget in PostgreSQL. Every call holds its most tokens (the
// prompt's estimate and the reply's bound) before it is sent, and a call
// that would pass the budget is not sent, so what the model server spent
// stays within the workspace's budget: the bound is the budget itself,
// passed only by calls whose server reports more than they held (not this
// one, which reports a token per word).
func TestManyAskersAtOnceStayWithinTheWorkspaceBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("two bot serve on PostgreSQL")
	}
	dbURL := testenv.PostgresURL(t)
	for _, args := range [][]string{{"migrate"}, {"ingest", "../../examples/docs"}} {
		if out, stderr, err := run(t, map[string]string{"DATABASE_URL": dbURL, "SWITCHBOARD_DATA_DIR": t.TempDir()}, args...); err != nil {
			t.Fatalf("bot %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
	}
	model := budgetModel(t)
	const budget = 15000
	b := startSlackBot(t, 2, map[string]string{
		"OPENAI_BASE_URL": model.URL(), "DAILY_TOKEN_BUDGET": fmt.Sprint(budget), "TOKEN_BUDGET_PER_USER": "0",
		"DATABASE_URL": dbURL, "MAX_CONCURRENT_QUESTIONS": "12",
	})
	threads := make([]string, 24)
	var wg sync.WaitGroup
	for i := range threads {
		wg.Go(func() {
			threads[i] = b.ask(t, i, "C1", fmt.Sprintf("U%d", i), fmt.Sprintf("What is our refund policy? (asker %d)", i))
		})
	}
	wg.Wait()
	answers := b.finals(t, "C1", threads)
	spent := model.Tokens("")
	t.Logf("24 askers: %d model tokens of a %d budget, %d requests", spent, budget, model.Calls(""))
	if spent > budget {
		t.Errorf("24 askers at once spent %d model tokens of a %d budget", spent, budget)
	}
	if offlineFor(t, answers, "this workspace has used today's model budget, which renews in") == 0 {
		t.Error("no answer says the workspace's budget is used")
	}
}

// TOKEN_BUDGET_PER_USER is a number of tokens or a share of the
// workspace's DAILY_TOKEN_BUDGET; anything else is refused, naming it.
func TestTokenBudgetPerUserSetting(t *testing.T) {
	cases := []struct {
		perUser, daily string
		want           int // -1: refused
	}{
		{"", "20000", 5000}, // the default: a quarter
		{"", "0", 0},        // no workspace budget to share
		{"10%", "20000", 2000},
		{"33.3%", "1000", 333},
		{"100%", "20000", 20000},
		{"1500", "20000", 1500},
		{"1500", "0", 1500}, // a cap per person without one per workspace
		{"0", "20000", 0},
		{"120%", "20000", -1},
		{"-5", "20000", -1},
		{"-5%", "20000", -1},
		{"lots", "20000", -1},
		{"NaN%", "20000", -1},
	}
	for _, c := range cases {
		cfg, err := loadConfig(t, map[string]string{"TOKEN_BUDGET_PER_USER": c.perUser, "DAILY_TOKEN_BUDGET": c.daily})
		switch {
		case c.want < 0 && (err == nil || !strings.Contains(err.Error(), "TOKEN_BUDGET_PER_USER")):
			t.Errorf("TOKEN_BUDGET_PER_USER=%q: error %v, want one naming the setting", c.perUser, err)
		case c.want >= 0 && err != nil:
			t.Errorf("TOKEN_BUDGET_PER_USER=%q: %v", c.perUser, err)
		case c.want >= 0 && cfg.TokensPerUser() != c.want:
			t.Errorf("TOKEN_BUDGET_PER_USER=%q of %s: %d tokens, want %d", c.perUser, c.daily, cfg.TokensPerUser(), c.want)
		}
	}
}
