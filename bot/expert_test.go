package bot

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/channels"
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/sqlite/sqlitetest"
)

// channelExperts is a ChannelSettings in memory: experts by channel.
type channelExperts map[string][]string

func (c channelExperts) Settings(_ context.Context, ch string) (channels.Settings, error) {
	return channels.Settings{Channel: ch, Experts: c[ch]}, nil
}

type docSaver struct{ docs []kb.Document }

func (d *docSaver) SaveDocument(_ context.Context, doc kb.Document) error {
	d.docs = append(d.docs, doc)
	return nil
}

var slackUser = regexp.MustCompile(`^[UW][A-Z0-9]+$`).MatchString

// lowAnswer is a low answer kept with its run, as the dispatcher keeps
// it: Escalate reads the badge, the claims not found and the searches
// from the run.
func lowAnswer() feedback.Answer {
	sources := []agent.Source{
		{N: 1, Title: "Parking", Route: agent.RouteVector, Owners: []string{"U0FAC", "facilities@example.com"}},
		{N: 2, Title: "Bikes", Route: agent.RouteVector, Owners: []string{"@acme/bikes", "U0FAC"}}}
	q, answer := "Where do I park\nmy bike?", "Maybe [1]. Racks are <!channel> free [2]."
	res := agent.Result{Question: q, Route: agent.RouteVector, Answer: answer, Sources: sources, Confidence: agent.ConfidenceLow,
		Unsupported: []string{"Racks are <!channel> free."},
		Attempts:    []agent.Attempt{{Route: agent.RouteVector, Query: "bike parking", Found: 4, Relevant: 1}}}
	return feedback.Answer{ID: "a1", Thread: "slack:T:C1:1.1", User: "U1", Question: q, Answer: answer,
		Route: agent.RouteVector, Sources: sources, Result: &res}
}

// Ask an expert asks the channel's experts once, however often it is
// pressed; with none set, the owners of the cited documents, those with
// a chat account mentioned and the others named.
func TestEscalate(t *testing.T) {
	ctx := context.Background()
	book := sqlitetest.Feedback(t)
	if err := book.SaveAnswer(ctx, lowAnswer()); err != nil {
		t.Fatal(err)
	}
	e := &Experts{Answers: book, Channels: channelExperts{"C1": {"U0EXP", "S0TEAM"}}}
	req := EscalateRequest{AnswerID: "a1", Channel: "C1", User: "U2", Mentionable: slackUser}
	esc, err := e.Escalate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(esc.Mention, []string{"U0EXP", "S0TEAM"}) || esc.Owners || len(esc.Unreachable) != 0 ||
		esc.Question != "Where do I park my bike?" || esc.Asker != "U1" {
		t.Errorf("escalation = %+v", esc)
	}
	if want := []string{"Company documents, for “bike parking”: 4 found, 1 relevant"}; !slices.Equal(esc.Searched, want) {
		t.Errorf("searched %q, want %q", esc.Searched, want)
	}
	if len(esc.Why) != 2 || !strings.HasPrefix(esc.Why[0], "🔴 Low confidence") || !strings.Contains(esc.Why[1], UnverifiedLabel) {
		t.Errorf("why %q", esc.Why)
	}
	if _, err := e.Escalate(ctx, req); !errors.Is(err, ErrEscalated) {
		t.Errorf("second press: %v, want ErrEscalated", err)
	}
	if msg, ok := Refused(ErrEscalated); !ok || msg != AlreadyEscalatedLabel {
		t.Errorf("Refused = %q, %v", msg, ok)
	}

	// A post that failed lets the experts be asked again (here: with no
	// experts set, the owners).
	if err := esc.Release(ctx); err != nil {
		t.Fatal(err)
	}
	e = &Experts{Answers: book}
	esc, err = e.Escalate(ctx, EscalateRequest{AnswerID: "a1", Channel: "C1", User: "U1", Voted: true, Mentionable: slackUser})
	if err != nil || !esc.Owners || !slices.Equal(esc.Mention, []string{"U0FAC"}) ||
		!slices.Equal(esc.Unreachable, []string{"facilities@example.com", "@acme/bikes"}) || esc.Why[len(esc.Why)-1] != VotedDownLine {
		t.Errorf("owners' escalation = %+v, %v", esc, err)
	}
	if _, err := e.Escalate(ctx, EscalateRequest{AnswerID: "gone"}); !errors.Is(err, feedback.ErrUnknownAnswer) {
		t.Errorf("unknown answer: %v", err)
	}
}

// Save as answer stores the reply as a document of the channel, with its
// permalink and author, and as a person's answer; only the asker or an
// expert may, and the second press hears it is saved.
func TestSaveAnswer(t *testing.T) {
	ctx := context.Background()
	book, docs := sqlitetest.Feedback(t), &docSaver{}
	if err := book.SaveAnswer(ctx, lowAnswer()); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	e := &Experts{Answers: book, Channels: channelExperts{"C1": {"U0EXP"}}, Documents: docs,
		Now: func() time.Time { return now }}
	req := SaveRequest{AnswerID: "a1", Platform: "slack", Workspace: "T", Channel: "C1", Private: true, User: "U7",
		Reply: Reply{ID: "2.2", Author: "U0EXP", Text: "Racks are behind building B.", Link: "https://x.slack.com/archives/C1/p22", At: now}}
	if _, err := e.Save(ctx, req); !errors.Is(err, ErrNotAllowed) || len(docs.docs) != 0 {
		t.Fatalf("a bystander saved: %v", err)
	}
	for _, who := range []string{"U1", "U0EXP"} { // the asker, then an expert
		req.User = who
		saved, err := e.Save(ctx, req)
		if who == "U1" && (err != nil || saved.Author != "U0EXP" || saved.Question != "Where do I park my bike?") {
			t.Fatalf("saved %+v, %v", saved, err)
		}
		if who == "U0EXP" && !errors.Is(err, ErrSaved) {
			t.Errorf("second save: %v, want ErrSaved", err)
		}
	}
	d := docs.docs[0]
	if d.Key != "slack:C1:answer:2.2" || d.Location != req.Reply.Link || d.Metadata["author"] != "U0EXP" || d.Metadata["url"] != req.Reply.Link ||
		d.Channel != "C1" || d.Workspace != "T" || !d.Private || !strings.Contains(d.Chunks[0].Content, "behind building B") {
		t.Errorf("document %+v", d)
	}
	h, err := book.Answer(ctx, "human:slack:C1:answer:2.2")
	if err != nil || h.Human == nil || h.User != "U0EXP" || h.Human.SavedBy != "U1" || h.Answer != "Racks are behind building B." {
		t.Errorf("human answer %+v, %v", h, err)
	}
	req.Reply.Text = " "
	if _, err := e.Save(ctx, req); !errors.Is(err, ErrNoReply) {
		t.Errorf("empty reply: %v", err)
	}
}

func TestEscalationWords(t *testing.T) {
	if got := EscalationLead("<@U9>", "<@U1>", false); !strings.HasPrefix(got, "<@U9> — <@U1> needs an expert") {
		t.Errorf("lead %q", got)
	}
	if got := EscalationLead("", "<@U1>", true); !strings.Contains(got, "no experts are set") {
		t.Errorf("lead without anyone %q", got)
	}
	if got := SavedAnswer("<@U2>", "Bikes?\n", "<@U1>"); got != "<@U1> saved <@U2>'s reply as the answer to “Bikes?”. I'll answer from it next time, citing it." {
		t.Errorf("saved %q", got)
	}
}
