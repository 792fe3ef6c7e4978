package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/agent/agenttest"
)

// These scenarios cover what small local models do to the generate and
// check steps (issue 12): drafts that are not answers ("1", "[2]", echoed
// fence tags), and verdicts that contradict themselves.

const goodDraft = "Customers can request a full refund within 30 days of purchase [1]."

// regenerationReasons are the reasons of the run's regenerating events.
func regenerationReasons(events []agent.Event) []string {
	var out []string
	for _, e := range events {
		if e.Kind == agent.EventRegenerating {
			out = append(out, e.Reason)
		}
	}
	return out
}

func count(events []agent.Event, kind agent.EventKind) int {
	n := 0
	for _, e := range events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// A draft that is not an answer is not checked (a checker may call "[2]"
// grounded, as it claims nothing): it is regenerated, told why.
func TestDraftThatIsNotAnAnswerIsRegenerated(t *testing.T) {
	model, a := modelAgent(t, refundDoc, faqDoc)
	var gen []agent.GenerateRequest
	model.GenerateFunc = answers(&gen, "[2]", goodDraft)
	model.CheckFunc = verdicts(grounded)

	res, events := askAgent(t, a, "What is our refund policy?")

	if model.Calls("Generate") != 2 || model.Calls("Check") != 1 || res.Regenerations != 1 {
		t.Errorf("generate/check calls = %d/%d, regenerations = %d; want 2/1 and 1: the bare citation is not checked",
			model.Calls("Generate"), model.Calls("Check"), res.Regenerations)
	}
	if res.Answer != goodDraft || res.Confidence != agent.ConfidenceMedium || res.Offline {
		t.Errorf("answer = %q confidence = %s offline = %v; want the regenerated draft, medium, online", res.Answer, res.Confidence, res.Offline)
	}
	if len(gen) != 2 || len(gen[1].Unsupported) != 1 || !strings.Contains(gen[1].Unsupported[0], "not an answer") {
		t.Errorf("the regeneration was not told the draft was not an answer: %+v", gen)
	}
	if r := regenerationReasons(events); !slices.Equal(r, []string{"the draft was not an answer"}) {
		t.Errorf("regenerating reasons = %q", r)
	}
	if n := count(events, agent.EventChecking); n != 1 {
		t.Errorf("checking events = %d, want 1: only the answer is checked", n)
	}
}

// A model none of whose drafts is an answer has given an unusable reply
// to the generate step: the offline engine writes the last draft from the
// documents found, and the model, still up, checks it. The run counts as
// offline for its badge.
func TestNoDraftIsAnAnswerGoesOffline(t *testing.T) {
	model, a := modelAgent(t, refundDoc, faqDoc)
	var checked []string
	model.GenerateFunc = answers(nil, "1", "[2]", `<document n="1" title="Refund policy">[1]</document>`)
	model.CheckFunc = func(_ context.Context, _, answer string, _ []agent.Document) (agent.Verdict, error) {
		checked = append(checked, answer)
		return grounded, nil
	}

	res, events := askAgent(t, a, "What is our refund policy?")

	if model.Calls("Generate") != 3 || res.Regenerations != 2 {
		t.Errorf("generate calls = %d, regenerations = %d; want 3 and 2", model.Calls("Generate"), res.Regenerations)
	}
	if !strings.Contains(res.Answer, "30 days") || len(res.Sources) == 0 {
		t.Errorf("answer = %q sources = %+v; want the offline engine's answer from the documents", res.Answer, res.Sources)
	}
	if len(checked) != 1 || checked[0] != res.Answer {
		t.Errorf("the model checked %q; want only the offline draft, %q", checked, res.Answer)
	}
	if !res.Offline || res.Confidence != agent.ConfidenceMedium {
		t.Errorf("offline = %v confidence = %s; want an offline answer, medium", res.Offline, res.Confidence)
	}
	var notices []agent.Event
	for _, e := range events {
		if e.Kind == agent.EventNotice && e.Err != nil {
			notices = append(notices, e)
		}
	}
	if len(notices) != 1 || !errors.Is(notices[0].Err, agent.ErrBadOutput) || !strings.Contains(notices[0].Detail, "none of the model's drafts was an answer") {
		t.Errorf("notices = %+v, want one saying the model's reply could not be used, and why", notices)
	}
	if n := count(events, agent.EventDegraded); n != 0 {
		t.Errorf("degraded events = %d, want none: the model still works", n)
	}
}

// A last draft that is not an answer never replaces a real one: the best
// earlier draft is shown, as when the regenerations run out.
func TestDraftThatIsNotAnAnswerNeverWins(t *testing.T) {
	model, a := modelAgent(t, refundDoc, annualDoc)
	invented := "Refunds within 30 days [1], and 90 days for VIPs [1]."
	model.GenerateFunc = answers(nil, invented, "[1]", "1")
	model.CheckFunc = verdicts(agent.Verdict{Grounded: false, Unsupported: []string{"90 days for VIPs"}})

	res, _ := askAgent(t, a, "What is our refund policy?")

	if model.Calls("Generate") != 3 || model.Calls("Check") != 1 {
		t.Errorf("generate/check calls = %d/%d, want 3/1", model.Calls("Generate"), model.Calls("Check"))
	}
	if res.Answer != invented || res.Confidence != agent.ConfidenceLow || !slices.Equal(res.Unsupported, []string{"90 days for VIPs"}) || res.Offline {
		t.Errorf("answer = %q confidence = %s unsupported = %q offline = %v; want the first draft, low, its claim listed, online",
			res.Answer, res.Confidence, res.Unsupported, res.Offline)
	}
}

// When the offline engine too writes no answer, the run ends in no answer:
// a bare citation is never shown.
func TestNoDraftIsAnAnswerOfflineEndsInNoAnswer(t *testing.T) {
	engine := &agenttest.Brain{T: t,
		RouteFunc:    routes(agent.RouteVector, "asks about the refund policy"),
		GradeFunc:    grades(relevant),
		GenerateFunc: answers(nil, "[1]"),
		// CheckFunc nil: nothing here is an answer to check.
	}
	a, err := agent.New(agent.Config{Offline: engine, Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: staticDocs{refundDoc}}})
	if err != nil {
		t.Fatal(err)
	}

	res, _ := askAgent(t, a, "What is our refund policy?")

	if engine.Calls("Generate") != 3 || engine.Calls("Check") != 0 {
		t.Errorf("generate/check calls = %d/%d, want 3/0", engine.Calls("Generate"), engine.Calls("Check"))
	}
	if res.Confidence != agent.ConfidenceNone || len(res.Sources) != 0 || len(res.Unsupported) != 0 ||
		res.Outcome != agent.OutcomeNoDraft || res.Answer != "" {
		t.Errorf("confidence = %s sources = %+v unsupported = %q answer = %q; want no answer", res.Confidence, res.Sources, res.Unsupported, res.Answer)
	}
}

// contradictory calls the answer grounded and lists claims: small models
// list the claims they checked.
var contradictory = agent.Verdict{Grounded: true, Unsupported: []string{"Refunds within 30 days"}, Answers: true}

// A contradictory verdict leaves the answer uncertain: low, never high
// (this run would otherwise be high: first check, two documents, a
// model), not regenerated, and its "claims" not shown as unverified.
func TestContradictoryVerdictIsUncertain(t *testing.T) {
	model, a := modelAgent(t, refundDoc, faqDoc)
	answer := "Refunds within 30 days [1], back to the card within 5 business days [2]."
	model.GenerateFunc = answers(nil, answer)
	model.CheckFunc = verdicts(contradictory)

	res, events := askAgent(t, a, "What is our refund policy?")

	if model.Calls("Generate") != 1 || model.Calls("Check") != 1 || res.Regenerations != 0 || count(events, agent.EventRegenerating) != 0 {
		t.Errorf("generate/check calls = %d/%d, regenerations = %d; want 1/1 and none", model.Calls("Generate"), model.Calls("Check"), res.Regenerations)
	}
	if res.Confidence != agent.ConfidenceLow || len(res.Unsupported) != 0 || res.Partial || res.Answer != answer {
		t.Errorf("confidence = %s unsupported = %q partial = %v answer = %q; want the answer, low, no claims listed",
			res.Confidence, res.Unsupported, res.Partial, res.Answer)
	}
}

// A verdict that is clearly not grounded still lists its claims, for the
// regeneration and, at the end, for people.
func TestClearlyUngroundedVerdictListsItsClaims(t *testing.T) {
	model, a := modelAgent(t, refundDoc, faqDoc)
	model.GenerateFunc = answers(nil, "Refunds within 90 days [1].")
	model.CheckFunc = verdicts(agent.Verdict{Grounded: false, Unsupported: []string{"within 90 days"}, Answers: true})

	res, _ := askAgent(t, a, "What is our refund policy?")

	if res.Confidence != agent.ConfidenceLow || !slices.Equal(res.Unsupported, []string{"within 90 days"}) || res.Regenerations != 2 {
		t.Errorf("confidence = %s unsupported = %q regenerations = %d; want low, the claim listed, 2", res.Confidence, res.Unsupported, res.Regenerations)
	}
}
