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

// A draft the model did not finish is a failed step: never checked, written
// again while the regeneration budget lasts, and otherwise shown only after
// a note that it was cut off, never badged as checked.

// reply is one reply of a scripted generator: a draft, and the
// *agent.CutOffError it came with, if it was cut off.
type reply struct {
	draft string
	cut   *agent.CutOffError
}

var (
	atLimit = &agent.CutOffError{AtLimit: true}
	stopped = &agent.CutOffError{}
)

// replies generates the replies in order, the last one repeating,
// streaming each draft as it goes; reqs, if not nil, collects what the
// generator was given.
func replies(reqs *[]agent.GenerateRequest, rs ...reply) func(context.Context, agent.GenerateRequest) (string, error) {
	next := agenttest.Sequence(rs...)
	return func(_ context.Context, req agent.GenerateRequest) (string, error) {
		if reqs != nil {
			*reqs = append(*reqs, req)
		}
		r := next()
		if req.OnText != nil {
			soFar := ""
			for _, w := range strings.SplitAfter(r.draft, " ") {
				soFar += w
				req.OnText(soFar)
			}
		}
		if r.cut != nil {
			return r.draft, r.cut
		}
		return r.draft, nil
	}
}

const cutDraft = "Customers can request a full refund within 30 days of purchase, and refunds go back to the card that paid within"

func TestDraftCutOffIsWrittenAgain(t *testing.T) {
	for name, cut := range map[string]*agent.CutOffError{"at the length limit": atLimit, "stream stopped": stopped} {
		t.Run(name, func(t *testing.T) {
			h := setup(t, returns(refundDoc, faqDoc), nil, nil)
			var gen []agent.GenerateRequest
			var checked []string
			h.model.RouteFunc = vectorRoute
			h.model.GradeFunc = grades(relevant)
			h.model.GenerateFunc = replies(&gen, reply{cutDraft, cut}, reply{"Refunds within 30 days [1], back to the card within 5 business days [2].", nil})
			h.model.CheckFunc = func(_ context.Context, _, answer string, _ []agent.Document) (agent.Verdict, error) {
				checked = append(checked, answer)
				return grounded, nil
			}

			res := h.ask(t, "", "What is our refund policy?")

			if res.Answer != "Refunds within 30 days [1], back to the card within 5 business days [2]." || res.Offline || res.CutOff {
				t.Errorf("answer %q (offline %v, cut off %v), want the second draft, from the model", res.Answer, res.Offline, res.CutOff)
			}
			if len(checked) != 1 || strings.Contains(checked[0], "paid within") {
				t.Errorf("checked %q: want only the whole draft checked", checked)
			}
			// The draft cut off was never checked, so writing it again
			// says nothing against the answer: checked once, two
			// documents, high.
			if res.Regenerations != 1 || res.CutOffs != 1 || res.Confidence != agent.ConfidenceHigh {
				t.Errorf("regenerations %d, cut-offs %d, confidence %s; want 1, 1, high", res.Regenerations, res.CutOffs, res.Confidence)
			}
			var told []string
			if len(gen) == 2 {
				told = gen[1].Unsupported
			}
			if cut.AtLimit != slices.ContainsFunc(told, func(s string) bool { return strings.Contains(s, "shorter") }) || len(gen) != 2 {
				t.Errorf("%d drafts, the second told %q: want it told to be shorter only after the length limit", len(gen), told)
			}
			var again *agent.Event
			for i, e := range h.events {
				if e.Kind == agent.EventRegenerating {
					again = &h.events[i]
				}
			}
			if again == nil || !errors.Is(again.Err, cut) {
				t.Errorf("regenerating event %+v, want one carrying the cut-off", again)
			}
		})
	}
}

// Every draft cut off: the last is shown, saying it was cut off, low, and
// nothing was checked.
func TestEveryDraftCutOff(t *testing.T) {
	h := setup(t, returns(refundDoc, faqDoc), nil, nil)
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(relevant)
	h.model.GenerateFunc = replies(nil, reply{"Customers can request a full refund within 30 days [1", atLimit})

	res := h.ask(t, "", "What is our refund policy?")

	if h.model.Calls("Generate") != 3 || h.model.Calls("Check") != 0 {
		t.Errorf("generate/check calls %d/%d, want 3/0", h.model.Calls("Generate"), h.model.Calls("Check"))
	}
	// Without Words, no note is put before it: the presenter's words.
	want := "Customers can request a full refund within 30 days …"
	if res.Answer != want {
		t.Errorf("answer %q, want %q", res.Answer, want)
	}
	if res.Confidence != agent.ConfidenceLow || !res.CutOff || !res.CutAtLimit || res.Partial || len(res.Unsupported) != 0 || res.Offline {
		t.Errorf("result %+v: want low, cut off, from the model", res)
	}
	// The drafts were shown as they were written; the answer that ends
	// the run is the one the presenter shows instead of them.
	if n := len(drafts(h.events)); n == 0 {
		t.Error("no draft shown while it was written")
	}
	// The asker alone hears what would make room for the answer.
	if !slices.ContainsFunc(h.events, func(e agent.Event) bool {
		return e.Kind == agent.EventNotice && e.Reason == "" && e.Notice == agent.NoticeCutAtLimit
	}) {
		t.Error("no notice of the length limit")
	}
}

// A draft that was checked, even one with unsupported claims, is shown
// before one cut off: it is whole, and what is wrong with it is said.
func TestCheckedDraftBeatsOneCutOff(t *testing.T) {
	h := setup(t, returns(refundDoc, faqDoc), nil, nil)
	var gen []agent.GenerateRequest
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(relevant)
	h.model.GenerateFunc = replies(&gen, reply{"Refunds within 30 days [1], 90 for VIPs [1].", nil}, reply{cutDraft, atLimit})
	h.model.CheckFunc = verdicts(agent.Verdict{Grounded: false, Unsupported: []string{"90 for VIPs"}})

	res := h.ask(t, "", "What is our refund policy?")

	if res.Answer != "Refunds within 30 days [1], 90 for VIPs [1]." || res.CutOff || res.Confidence != agent.ConfidenceLow ||
		!slices.Equal(res.Unsupported, []string{"90 for VIPs"}) {
		t.Errorf("result %+v: want the checked draft, its claim listed, low", res)
	}
	// The draft after the cut is still told what the check found.
	if len(gen) != 3 || !slices.Contains(gen[2].Unsupported, "90 for VIPs") {
		t.Errorf("%d drafts; the last told %q, want the unsupported claim too", len(gen), gen[len(gen)-1].Unsupported)
	}
}

// A cut-off reply with nothing of an answer in it, on the last draft, is
// handed to the offline engine, as any draft that is not an answer.
func TestLastDraftCutOffBeforeAnyAnswer(t *testing.T) {
	h := setup(t, returns(refundDoc, faqDoc), nil, nil)
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(relevant)
	h.model.GenerateFunc = replies(nil, reply{"", stopped})
	h.model.CheckFunc = verdicts(grounded)

	res := h.ask(t, "", "What is our refund policy?")

	if !res.Offline || res.CutOff || !strings.Contains(res.Answer, "30 days") {
		t.Errorf("result %+v: want the offline engine's answer", res)
	}
}
