package bot

import (
	"context"
	"fmt"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/channels"
)

// The sources the adapter read from the channel's settings as it took the
// question are the scope the agent answers in.
func TestSourcesReachTheScope(t *testing.T) {
	asked := make(chan agent.Question, 1)
	d := start(t, Config{Agent: askerFunc(func(_ context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
		asked <- q
		return agent.Result{Answer: "ok", Route: agent.RouteVector}, nil
	})})
	in := msg("t1", "what is the leave policy?")
	in.Workspace, in.Sources = "T1", []string{"handbook/docs/hr/", channels.SourceGraph}
	r := newRecorder()
	if err := d.Submit(context.Background(), in, r); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	q := <-asked
	if q.Scope.Workspace != "T1" || q.Scope.Channel != "C1" || fmt.Sprint(q.Scope.Sources) != "[handbook/docs/hr/ graph]" {
		t.Errorf("scope = %+v", q.Scope)
	}
}

func TestHelpQuestion(t *testing.T) {
	for _, c := range []struct {
		text      string
		addressed bool
		want      bool
	}{
		{"How do I reset my VPN password?", false, true},
		{"how many days of leave do I get ?  ", false, true},
		{"Does anyone know where the on-call rota is (the new one)?", false, true},
		{"Good morning everyone!", false, false},
		{"hi all?", false, false},
		{"The deploy is done.", false, false},
		{"Can you review my PR?", true, false}, // to someone
		{"", false, false},
	} {
		if got := HelpQuestion(c.text, c.addressed); got != c.want {
			t.Errorf("HelpQuestion(%q, %v) = %v, want %v", c.text, c.addressed, got, c.want)
		}
	}
}

func TestReplyMode(t *testing.T) {
	set := channels.Settings{Channel: "C1", Replies: channels.RepliesAll}
	if ReplyMode(set, channels.RepliesMention) != channels.RepliesAll {
		t.Error("the channel's mode does not win over the platform's")
	}
	if ReplyMode(channels.Settings{Channel: "C2"}, channels.RepliesMention) != channels.RepliesMention {
		t.Error("a channel without settings does not get the platform's mode")
	}
	if ReplyMode(channels.Settings{Channel: "C2"}, "") != channels.RepliesAsker {
		t.Error("the default is not the asker's replies")
	}
}
