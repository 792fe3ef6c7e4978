package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/agent/agenttest"
	"github.com/switchboard/switchboard/llm/offline"
)

// recordingObserver keeps what the agent reported.
type recordingObserver struct {
	mu      sync.Mutex
	started []agent.Step
	steps   []agent.StepReport
	runs    []agent.RunReport
}

var _ agent.Observer = (*recordingObserver)(nil)

type ctxMark struct{}

func (o *recordingObserver) RunStarted(ctx context.Context, _ agent.Question) context.Context {
	return context.WithValue(ctx, ctxMark{}, "run")
}

func (o *recordingObserver) StepStarted(ctx context.Context, step agent.Step) context.Context {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.started = append(o.started, step)
	return context.WithValue(ctx, ctxMark{}, string(step))
}

func (o *recordingObserver) StepDone(ctx context.Context, r agent.StepReport) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ctx.Value(ctxMark{}) != string(r.Step) {
		panic("StepDone did not get the context StepStarted returned")
	}
	o.steps = append(o.steps, r)
}

func (o *recordingObserver) RunDone(ctx context.Context, r agent.RunReport) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ctx.Value(ctxMark{}) != "run" {
		panic("RunDone did not get the context RunStarted returned")
	}
	o.runs = append(o.runs, r)
}

func (o *recordingObserver) step(s agent.Step) agent.StepReport {
	for _, r := range o.steps {
		if r.Step == s {
			return r
		}
	}
	return agent.StepReport{}
}

func observed(t *testing.T, model *agenttest.Brain, obs agent.Observer, budgets agent.Budgets, rs map[agent.Route]agent.Retriever) *agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Config{Model: model, Offline: offline.New(nil), Retrievers: rs, Observer: obs, Budgets: budgets})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestObserverHearsEveryStep(t *testing.T) {
	model := scriptedModel(t)
	model.RouteFunc = vectorRoute
	model.GradeFunc = gradesIrrelevantIf("Tacos")
	model.GenerateFunc = answers(nil, "Refunds within 30 days [1].")
	model.CheckFunc = verdicts(grounded)
	obs := &recordingObserver{}
	// A second observer, to check that Observers hands contexts along.
	a := observed(t, model, agent.Observers(nil, obs), agent.Budgets{}, map[agent.Route]agent.Retriever{agent.RouteVector: returns(refundDoc, annualDoc, lunchDoc)})

	res, err := a.Ask(context.Background(), agent.Question{ThreadID: "t1", Text: "What is our refund policy?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var steps []agent.Step
	for _, r := range obs.steps {
		steps = append(steps, r.Step)
	}
	if !slices.Equal(steps, res.Trace) || !slices.Equal(obs.started, res.Trace) {
		t.Errorf("observed steps %v (started %v), trace %v", steps, obs.started, res.Trace)
	}
	if r := obs.step(agent.StepRoute); r.Usage.Calls != 1 || r.Usage.PromptTokens == 0 || r.Route != agent.RouteVector || r.Next != agent.StepVector {
		t.Errorf("route step = %+v", r)
	}
	if r := obs.step(agent.StepVector); r.Docs != 3 || r.Usage.Calls != 0 {
		t.Errorf("vector step = %+v", r)
	}
	if r := obs.step(agent.StepGrade); r.Docs != 3 || r.Relevant != 2 || r.Usage.Calls != 3 {
		t.Errorf("grade step = %+v", r)
	}
	total := 0
	for _, r := range obs.steps {
		total += r.Usage.Calls
	}
	if total != res.LLMCalls {
		t.Errorf("calls by step add up to %d, the run made %d", total, res.LLMCalls)
	}
	if len(obs.runs) != 1 || obs.runs[0].Result == nil || obs.runs[0].Result.Route != agent.RouteVector || obs.runs[0].ThreadID != "t1" {
		t.Errorf("runs = %+v", obs.runs)
	}
}

func TestObserverHearsModelErrorsAndFailures(t *testing.T) {
	model := scriptedModel(t)
	model.Err = errors.New("llm: route: 500 Internal Server Error")
	obs := &recordingObserver{}
	a := observed(t, model, obs, agent.Budgets{}, map[agent.Route]agent.Retriever{agent.RouteVector: returns(refundDoc)})
	if _, err := a.Ask(context.Background(), agent.Question{Text: "What is our refund policy?"}, nil); err != nil {
		t.Fatal(err)
	}
	if r := obs.step(agent.StepRoute); r.ModelErrors != 1 || !r.Offline {
		t.Errorf("route step = %+v, want one model error and offline", r)
	}
	if _, err := a.Ask(context.Background(), agent.Question{Text: "  "}, nil); err == nil {
		t.Fatal("empty question answered")
	}
	if last := obs.runs[len(obs.runs)-1]; last.Err == nil || last.Result != nil || agent.ErrorCode(last.Err) != agent.EINVALID {
		t.Errorf("invalid question reported as %+v", last)
	}
}

func TestLongAnswersAreShortened(t *testing.T) {
	para := strings.Repeat("Refunds are paid within ten business days of approval. ", 4)
	long := strings.TrimSpace(strings.Repeat(para+"[1]\n\n", 40))
	model := scriptedModel(t)
	model.RouteFunc = vectorRoute
	model.GradeFunc = grades(relevant)
	model.GenerateFunc = answers(nil, long)
	model.CheckFunc = verdicts(grounded)
	a := observed(t, model, nil, agent.Budgets{MaxAnswerChars: 1000}, map[agent.Route]agent.Retriever{agent.RouteVector: returns(refundDoc, annualDoc)})
	res, err := a.Ask(context.Background(), agent.Question{Text: "How are refunds paid?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(res.Answer)); n > 1000 || n < 500 {
		t.Errorf("answer has %d characters, want at most 1000 and not much less", n)
	}
	body, ok := strings.CutSuffix(res.Answer, "\n\n"+agent.ShortenedNote)
	if !ok || !strings.HasSuffix(body, "[1]") {
		t.Errorf("answer not cut at a paragraph with the note:\n%s", res.Answer)
	}
}
