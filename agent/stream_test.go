package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// streams generates draft as a streaming generator does: OnText with the
// reply so far after each character, then the whole reply.
func streams(draft string) func(context.Context, agent.GenerateRequest) (string, error) {
	return func(_ context.Context, req agent.GenerateRequest) (string, error) {
		if req.OnText == nil {
			return "", nil // the agent always listens; an empty draft fails the test below
		}
		for i := 1; i <= len(draft); i++ {
			req.OnText(draft[:i])
		}
		return draft, nil
	}
}

func drafts(events []agent.Event) []agent.Event {
	var out []agent.Event
	for _, e := range events {
		if e.Kind == agent.EventDrafting {
			out = append(out, e)
		}
	}
	return out
}

// A draft being written is shown as it grows, before the check: only once
// it is an answer, each draft extending the one before (a citation waits
// until it is closed, numbered as the finished answer numbers it), the
// last one the answer the check reads, and far fewer events than the
// generator's pieces.
func TestDraftIsShownAsItIsWritten(t *testing.T) {
	model, a := modelAgent(t, refundDoc, faqDoc)
	// [2] is cited first, so the finished answer numbers it [1].
	const draft = "[2] Refunds go back to the card that paid, within 5 business days [2]; customers can request a full refund within 30 days of purchase [1]."
	model.GenerateFunc = streams(draft)
	model.CheckFunc = verdicts(grounded)

	res, events := askAgent(t, a, "What is our refund policy?")

	ds := drafts(events)
	if len(ds) < 3 || len(ds) > len(draft)/32+2 {
		t.Fatalf("%d drafting events for a %d-byte draft, want several and at most one per 32 bytes", len(ds), len(draft))
	}
	for i, d := range ds {
		if !strings.HasPrefix(d.Text, "[1] Refunds") || d.Attempt != 0 || d.Step != agent.StepGenerate {
			t.Errorf("draft %d = %+v: want the answer being written, [2] numbered [1], attempt 0", i, d)
		}
		if i > 0 && !strings.HasPrefix(d.Text, ds[i-1].Text) {
			t.Errorf("draft %d %q does not extend draft %d %q", i, d.Text, i-1, ds[i-1].Text)
		}
	}
	if last := ds[len(ds)-1].Text; last != res.Answer {
		t.Errorf("last draft %q, answer %q: the draft checked is the one shown", last, res.Answer)
	}
	var order []agent.EventKind
	for _, e := range events {
		if k := e.Kind; k == agent.EventGenerating || k == agent.EventChecking || k == agent.EventDone {
			order = append(order, k)
		} else if k == agent.EventDrafting && (len(order) == 0 || order[len(order)-1] != k) {
			order = append(order, k)
		}
	}
	want := []agent.EventKind{agent.EventGenerating, agent.EventDrafting, agent.EventChecking, agent.EventDone}
	if strings.Join(kindNames(order), " ") != strings.Join(kindNames(want), " ") {
		t.Errorf("events in order %v, want %v", order, want)
	}
}

// A draft the check rejects is followed by the regeneration's own drafts,
// which say which attempt they are.
func TestRegeneratedDraftIsShownAfresh(t *testing.T) {
	model, a := modelAgent(t, refundDoc, faqDoc)
	first := "Refunds are possible for a whole year after purchase, no questions asked [1]."
	model.GenerateFunc = func(ctx context.Context, req agent.GenerateRequest) (string, error) {
		if req.Unsupported == nil {
			return streams(first)(ctx, req)
		}
		return streams(goodDraft)(ctx, req)
	}
	model.CheckFunc = verdicts(agent.Verdict{Grounded: false, Unsupported: []string{"a whole year"}}, grounded)

	res, events := askAgent(t, a, "What is our refund policy?")

	ds := drafts(events)
	if len(ds) < 2 || ds[0].Attempt != 0 || ds[len(ds)-1].Attempt != 1 || ds[len(ds)-1].Text != res.Answer {
		t.Fatalf("drafts %+v; want the first draft's, then the regeneration's ending in the answer %q", ds, res.Answer)
	}
	regen := -1
	for i, e := range events {
		if e.Kind == agent.EventRegenerating {
			regen = i
		}
		if e.Kind == agent.EventDrafting && regen >= 0 && !strings.HasPrefix(goodDraft, e.Text) {
			t.Errorf("after the regeneration began, a draft %q that is not the new one", e.Text)
		}
	}
}

// The drafts of a generator that does not stream (the offline engine) are
// shown whole, once, before the check.
func TestDraftOfAGeneratorThatDoesNotStream(t *testing.T) {
	model, a := modelAgent(t, refundDoc, faqDoc)
	model.GenerateFunc = answers(nil, goodDraft)
	model.CheckFunc = verdicts(grounded)

	res, events := askAgent(t, a, "What is our refund policy?")

	if ds := drafts(events); len(ds) != 1 || ds[0].Text != res.Answer {
		t.Errorf("drafts %+v, want the answer once", ds)
	}
}

func kindNames(ks []agent.EventKind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// A citation still open when the draft is shown waits until it closes:
// shown as written ("[2"), it would then change to the number the
// finished answer gives it ("[1]").
func TestOpenCitationWaits(t *testing.T) {
	model, a := modelAgent(t, refundDoc, faqDoc)
	pieces := []string{"Refunds go back to the card that paid, within five business days [2", "]", " and are full within thirty days, as the policy says [", "1", "]."}
	model.GenerateFunc = func(_ context.Context, req agent.GenerateRequest) (string, error) {
		var soFar string
		for _, p := range pieces {
			soFar += p
			req.OnText(soFar)
		}
		return soFar, nil
	}
	model.CheckFunc = verdicts(grounded)

	res, events := askAgent(t, a, "What is our refund policy?")

	for _, d := range drafts(events) {
		if strings.Contains(d.Text, "business days [2") || strings.HasSuffix(d.Text, "[") {
			t.Errorf("draft %q shows a citation before it is closed", d.Text)
		}
	}
	if !strings.HasPrefix(res.Answer, "Refunds go back to the card that paid, within five business days [1]") {
		t.Errorf("answer %q", res.Answer)
	}
}
