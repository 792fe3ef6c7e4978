package agent_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// purse is an Allowance of a number of tokens, counted as the bot's
// budgets count them: held before each call, settled after it.
type purse struct {
	mu      sync.Mutex
	left    int
	refused int
}

func (p *purse) Reserve(n int) (func(int), error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n > p.left {
		p.refused++
		return nil, &agent.BudgetError{Reason: "the test's budget is spent", Detail: "You have used the test's budget."}
	}
	p.left -= n
	return func(used int) {
		p.mu.Lock()
		p.left += n - used
		p.mu.Unlock()
	}, nil
}

// A run whose budget is spent asks the model nothing, answers offline,
// and says why: to everyone in the answer, to the asker in a detail.
func TestSpentAllowanceSkipsTheModel(t *testing.T) {
	model := scriptedModel(t) // scripted for nothing: any call fails the test
	a := observed(t, model, nil, agent.Budgets{}, nil)
	var events []agent.Event
	res, err := a.Ask(context.Background(), agent.Question{Text: "What is 15% of 340?", Allowance: &purse{}},
		func(e agent.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if model.Calls("") != 0 || !res.Offline || res.OfflineReason != "the test's budget is spent" || !strings.Contains(res.Answer, "51") {
		t.Errorf("model calls = %d, result = %+v", model.Calls(""), res)
	}
	told := 0
	for _, e := range events {
		if e.Kind == agent.EventDegraded && e.Reason == res.OfflineReason && e.Detail == "You have used the test's budget." {
			told++
		}
	}
	if told != 1 {
		t.Errorf("the run said %d times that it went offline for its budget; want once: %+v", told, events)
	}
}

// A run is stopped before the call that would pass its budget, not after
// its answer: it spends no more than the budget, and the calls after the
// refusal are the offline engine's. A refusal is no model error.
func TestAllowanceStopsTheRunBeforeTheCallThatWouldPassIt(t *testing.T) {
	model := scriptedModel(t) // 150 tokens a call
	model.RouteFunc = vectorRoute
	model.GradeFunc = grades(relevant)
	model.GenerateFunc = answers(nil, "Refunds within 30 days [1].")
	model.CheckFunc = verdicts(grounded)
	obs := &recordingObserver{}
	a := observed(t, model, obs, agent.Budgets{}, map[agent.Route]agent.Retriever{agent.RouteVector: returns(refundDoc, annualDoc)})
	p := &purse{left: 400} // the route and one grade; not the second grade
	res, err := a.Ask(context.Background(), agent.Question{Text: "What is our refund policy?", Allowance: p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens > 400 || p.left < 0 || p.refused == 0 {
		t.Errorf("the run used %d tokens of 400 (%d left, %d calls refused)", res.Tokens, p.left, p.refused)
	}
	if !res.Offline || res.OfflineReason != "the test's budget is spent" || res.Answer == "" {
		t.Errorf("result = %+v, want an answer offline for the budget", res)
	}
	if n := model.Calls("Generate") + model.Calls("Check"); n != 0 {
		t.Errorf("the model was asked %d times after the budget refused a call", n)
	}
	for _, r := range obs.steps {
		if r.ModelErrors != 0 {
			t.Errorf("%s step counts %d model errors; a call the budget refused is none", r.Step, r.ModelErrors)
		}
	}
}
