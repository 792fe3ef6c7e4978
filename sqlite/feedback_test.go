package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
)

func TestFeedback(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f := NewFeedback(db)
	a := bot.Answer{ID: "a1", Thread: "slack:T:C:1", User: "U1", Question: "Refunds?", Answer: "30 days [1].",
		Route: agent.RouteVector, Sources: []agent.Source{{N: 1, Title: "Refund policy"}}, At: time.Now()}
	if err := f.SaveAnswer(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := f.SaveVote(ctx, "a1", "U2", 1); err != nil {
		t.Fatal(err)
	}
	if err := f.SaveVote(ctx, "a1", "U2", -1); err != nil { // changes their mind
		t.Fatal(err)
	}
	if err := f.SaveVote(ctx, "nope", "U2", 1); !errors.Is(err, ErrUnknownAnswer) {
		t.Errorf("vote on an unknown answer: %v", err)
	}
	votes, err := f.Votes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(votes) != 1 || votes[0].Vote != -1 || votes[0].Question != "Refunds?" || votes[0].Route != agent.RouteVector || len(votes[0].Sources) != 1 {
		t.Errorf("votes = %+v", votes)
	}
}
