package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
)

func TestChatFeedback(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	f := NewFeedback(db)
	a := bot.Answer{ID: "a1", Thread: "slack:T:C:1", User: "U1", Question: "Refunds?", Answer: "30 days [1].",
		Route: agent.RouteVector, Sources: []agent.Source{{N: 1, Title: "Refund policy"}}, At: time.Now()}
	if err := f.SaveAnswer(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := f.SaveAnswer(ctx, a); err != nil { // a retried save is harmless
		t.Fatal(err)
	}
	for _, v := range []int{1, -1} { // the user changes their mind
		if err := f.SaveVote(ctx, "a1", "U2", v); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.SaveVote(ctx, "missing", "U2", 1); !errors.Is(err, ErrUnknownAnswer) {
		t.Errorf("vote on an unknown answer: %v", err)
	}
	recs, err := f.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Vote != -1 || recs[0].Question != "Refunds?" || recs[0].Route != agent.RouteVector || len(recs[0].Sources) != 1 {
		t.Errorf("records = %+v", recs)
	}
}
