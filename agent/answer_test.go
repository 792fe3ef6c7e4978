package agent_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/agent/agenttest"
	"github.com/switchboard/switchboard/llm/offline"
)

// These scenarios cover the second half of the check, "does the answer
// answer the question?", and the badge rules that depend on it. They build
// their own agent, on a scripted model (agenttest) or on the offline engine
// alone, using only the scripting helpers of agent_test.go.

type staticDocs []agent.Document

func (d staticDocs) Retrieve(context.Context, agent.Request) ([]agent.Document, error) {
	return d, nil
}

// Chunks as the stores return them: ID "key#n", the key in the metadata.
var (
	leaveChunk0 = agent.Document{ID: "acme/handbook/leave.md#0", Title: "Leave", Location: "handbook/leave.md", Route: agent.RouteVector,
		Metadata: map[string]string{"key": "handbook/leave.md", "chunk": "0"},
		Content:  "Sick leave is paid in full for up to 10 days a year."}
	leaveChunk1 = agent.Document{ID: "acme/handbook/leave.md#1", Title: "Leave", Location: "handbook/leave.md", Route: agent.RouteVector,
		Metadata: map[string]string{"key": "handbook/leave.md", "chunk": "1"},
		Content:  "Parental leave is 16 weeks of paid leave for the primary caregiver."}
	stateLeave = agent.Document{ID: "acme/handbook/state-leave.md#0", Title: "State leave", Location: "handbook/state-leave.md", Route: agent.RouteVector,
		Metadata: map[string]string{"key": "handbook/state-leave.md", "chunk": "0"},
		Content:  "Paid Leave Oregon provides job protection and monetary benefits, up to 12 weeks."}
)

var (
	routeVector   = routes(agent.RouteVector, "asks about the handbook")
	gradeRelevant = agent.Grade{Relevant: true, Reason: "about leave"}
	checkAnswers  = agent.Verdict{Grounded: true, Answers: true}
	checkOffTopic = agent.Verdict{Grounded: true, Answers: false, Missing: "whether jury duty is paid leave"}
	checkInvented = agent.Verdict{Grounded: false, Unsupported: []string{"Jury duty is paid"}}
)

const (
	juryQuestion   = "Do we get paid leave for jury duty?"
	relatedAnswer  = "Sick leave is paid in full for up to 10 days a year [1]. Paid Leave Oregon provides job protection [2]."
	relatedAnswer2 = "The documents describe sick leave [1] and state leave [2], not jury duty."
)

// modelAgent is an agent on a scripted model whose vector store holds docs.
// The model routes to the documents and grades every one relevant; the
// test scripts the rest.
func modelAgent(t *testing.T, docs ...agent.Document) (*agenttest.Brain, *agent.Agent) {
	t.Helper()
	model := scriptedModel(t)
	model.RouteFunc, model.GradeFunc = routeVector, grades(gradeRelevant)
	a, err := agent.New(agent.Config{Model: model, Offline: offline.New(nil),
		Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: staticDocs(docs)}})
	if err != nil {
		t.Fatal(err)
	}
	return model, a
}

func askAgent(t *testing.T, a *agent.Agent, question string) (agent.Result, []agent.Event) {
	t.Helper()
	var events []agent.Event
	res, err := a.Ask(context.Background(), agent.Question{Text: question}, func(e agent.Event) { events = append(events, e) })
	if err != nil {
		t.Fatalf("Ask(%q): %v", question, err)
	}
	return res, events
}

func TestGroundedButNotAnsweringIsRegeneratedOnceThenPartial(t *testing.T) {
	model, a := modelAgent(t, leaveChunk0, stateLeave)
	var gen []agent.GenerateRequest
	model.GenerateFunc = answers(&gen, relatedAnswer, relatedAnswer2)
	model.CheckFunc = verdicts(checkOffTopic)

	res, events := askAgent(t, a, juryQuestion)

	if model.Calls("Generate") != 2 || model.Calls("Check") != 2 || res.Regenerations != 1 {
		t.Errorf("generate/check calls = %d/%d, regenerations = %d; want 2/2 and 1: regenerated once",
			model.Calls("Generate"), model.Calls("Check"), res.Regenerations)
	}
	if !res.Partial || res.Confidence != agent.ConfidenceLow || len(res.Unsupported) != 0 || res.Offline {
		t.Errorf("partial = %v confidence = %s unsupported = %q offline = %v; want a partial, low, online answer with no unsupported claims",
			res.Partial, res.Confidence, res.Unsupported, res.Offline)
	}
	// The note before it, saying what was not found, is the presenter's
	// (Words.Note); without Words the answer is the draft alone.
	if res.Answer != relatedAnswer2 {
		t.Errorf("answer is not the last grounded draft:\n%s", res.Answer)
	}
	if res.Missing != "whether jury duty is paid leave" {
		t.Errorf("missing = %q", res.Missing)
	}
	if len(res.Sources) != 2 {
		t.Errorf("sources = %+v, want the two cited documents", res.Sources)
	}
	// The regeneration is told what the draft did not say, from the same documents.
	if len(gen) != 2 {
		t.Fatalf("generate requests = %d", len(gen))
	}
	regen := gen[1]
	if len(regen.Unsupported) != 1 || !strings.Contains(regen.Unsupported[0], "does not say whether jury duty is paid leave") ||
		!slices.Equal(docIDs(regen.Docs), docIDs(gen[0].Docs)) || !slices.Equal(docIDs(regen.Docs), docIDs([]agent.Document{leaveChunk0, stateLeave})) {
		t.Errorf("regeneration lacks what was missing or the documents: %+v", regen)
	}
	var reasons []string
	for _, e := range events {
		if e.Kind == agent.EventRegenerating {
			reasons = append(reasons, e.Reason)
		}
	}
	if len(reasons) != 1 || !strings.Contains(reasons[0], "jury duty") {
		t.Errorf("regenerating events = %q, want one naming what was missing", reasons)
	}
}

func TestNotAnsweringThenAnsweringIsMedium(t *testing.T) {
	model, a := modelAgent(t, leaveChunk0, stateLeave)
	model.GenerateFunc = answers(nil, relatedAnswer, "Jury duty is paid leave [1].")
	model.CheckFunc = verdicts(checkOffTopic, checkAnswers)

	res, _ := askAgent(t, a, juryQuestion)

	if res.Partial || res.Confidence != agent.ConfidenceMedium || res.Answer != "Jury duty is paid leave [1]." || res.Regenerations != 1 {
		t.Errorf("partial = %v confidence = %s regenerations = %d answer = %q; want the regenerated answer, medium",
			res.Partial, res.Confidence, res.Regenerations, res.Answer)
	}
}

// A grounded draft that does not answer beats a later one that is not
// grounded: the run shows the related text that is true, as partial. A
// draft that invents is regenerated while the budget lasts (shared by
// both reasons: 3 drafts in all); an uncertain one (a contradictory
// verdict) is not.
func TestPartialBeatsLaterDraftsNotGrounded(t *testing.T) {
	for _, c := range []struct {
		name   string
		second agent.Verdict
		drafts int
	}{
		{"invented", checkInvented, 3},
		{"uncertain", contradictory, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			model, a := modelAgent(t, leaveChunk0, stateLeave)
			model.GenerateFunc = answers(nil, relatedAnswer, "Jury duty is paid leave [1].")
			model.CheckFunc = verdicts(checkOffTopic, c.second)

			res, _ := askAgent(t, a, juryQuestion)

			if model.Calls("Generate") != c.drafts || model.Calls("Check") != c.drafts {
				t.Errorf("generate/check calls = %d/%d, want %d/%d", model.Calls("Generate"), model.Calls("Check"), c.drafts, c.drafts)
			}
			if !res.Partial || res.Confidence != agent.ConfidenceLow || !strings.HasSuffix(res.Answer, relatedAnswer) || len(res.Unsupported) != 0 {
				t.Errorf("partial = %v confidence = %s unsupported = %q answer:\n%s", res.Partial, res.Confidence, res.Unsupported, res.Answer)
			}
		})
	}
}

func TestHighNeedsTwoDistinctDocuments(t *testing.T) {
	tests := []struct {
		name   string
		docs   []agent.Document
		answer string
		want   agent.Confidence
	}{
		{"two chunks of one file are one source", []agent.Document{leaveChunk0, leaveChunk1},
			"Sick leave is paid for 10 days [1]; parental leave is 16 weeks [2].", agent.ConfidenceMedium},
		{"two files", []agent.Document{leaveChunk0, stateLeave},
			"Sick leave is paid for 10 days [1]; Oregon adds up to 12 weeks [2].", agent.ConfidenceHigh},
		{"two files, one cited", []agent.Document{leaveChunk0, stateLeave},
			"Sick leave is paid for 10 days [1].", agent.ConfidenceMedium},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, a := modelAgent(t, tt.docs...)
			model.GenerateFunc = answers(nil, tt.answer)
			model.CheckFunc = verdicts(checkAnswers)
			res, _ := askAgent(t, a, "What paid leave do we get?")
			if res.Confidence != tt.want {
				t.Errorf("confidence = %s, want %s", res.Confidence, tt.want)
			}
		})
	}
}

// Offline, the checks are lexical: an answer that passes them all, from two
// documents on the first check, is still medium (agent/result.go).
func TestOfflineIsNeverHigh(t *testing.T) {
	a, err := agent.New(agent.Config{Offline: offline.New(nil),
		Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: staticDocs{leaveChunk0, stateLeave}}})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := askAgent(t, a, "How many days of paid sick leave do we get?")
	if !res.Offline || res.Partial || res.Confidence != agent.ConfidenceMedium {
		t.Errorf("offline = %v partial = %v confidence = %s, want an offline medium answer:\n%s", res.Offline, res.Partial, res.Confidence, res.Answer)
	}
	if want := []agent.Step{agent.StepCondense, agent.StepRoute, agent.StepVector, agent.StepGrade, agent.StepGenerate, agent.StepCheck}; !slices.Equal(res.Trace, want) {
		t.Errorf("trace = %v, want %v: checked once", res.Trace, want)
	}
}

// The offline engine finds no document about jury duty: the handbook
// talks about other leave, and "jury duty" is one of the question's two
// topics (WordNet reads it as one). It says what it searched instead of
// quoting leave rules as if they answered.
func TestOfflineJuryDutyIsNotAnswered(t *testing.T) {
	a, err := agent.New(agent.Config{Offline: offline.New(nil),
		Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: staticDocs{leaveChunk0, leaveChunk1, stateLeave}}})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := askAgent(t, a, juryQuestion)
	searchedJury := slices.ContainsFunc(res.Attempts, func(a agent.Attempt) bool { return strings.Contains(a.Query, "jury duty") })
	if res.Confidence != agent.ConfidenceNone || res.Outcome != agent.OutcomeNotFound || !searchedJury {
		t.Errorf("confidence = %s outcome = %q; want none, and the searches for jury duty: %+v", res.Confidence, res.Outcome, res.Attempts)
	}
	if tail := res.Trace[len(res.Trace)-1]; tail != agent.StepNoAnswer {
		t.Errorf("trace = %v, want it to end in %s", res.Trace, agent.StepNoAnswer)
	}
}
