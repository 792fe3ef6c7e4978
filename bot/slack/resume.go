package slack

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard/switchboard/bot"
)

// address is where a question's view is shown in Slack, as another
// replica needs it to go on showing it (bot.Config.Questions): the
// thread, the asker, and the placeholder once posted. The markers of its
// posts are made of the answer id, so a replica that resumes finds what
// the first one posted before posting again.
type address struct {
	Channel  string `json:"channel"`
	Thread   string `json:"thread,omitempty"`
	User     string `json:"user"`
	AnswerID string `json:"answer_id,omitempty"`
	TS       string `json:"ts,omitempty"`
	Unsure   bool   `json:"unsure,omitempty"` // the placeholder may have been posted without its ts known
	// Native is set for a question shown with the AI-app surface.
	Native *native `json:"native,omitempty"`
	// Private is set for a question answered to its asker alone (/ask).
	Private *private `json:"private,omitempty"`
}

// native is what a nativeReplier adds to its address: the workspace, and
// whether it fell back to post-and-edit.
type native struct {
	Team    string `json:"team"`
	Classic bool   `json:"classic,omitempty"`
}

// Address implements bot.Addressed.
func (r *replier) Address() ([]byte, error) { return r.address(nil, nil) }

func (r *replier) address(n *native, p *private) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return json.Marshal(address{Channel: r.channel, Thread: r.thread, User: r.user, AnswerID: r.answerID, TS: r.ts,
		Unsure: r.unsure, Native: n, Private: p})
}

// Resume implements bot.Resumer: the replier of a question whose
// placeholder another replica (or this one, before a restart) posted. A
// placeholder whose ts is not known is looked for by its marker before
// anything is posted.
func (a *Adapter) Resume(id string, addr []byte) (bot.Replier, error) {
	var ad address
	if err := json.Unmarshal(addr, &ad); err != nil {
		return nil, fmt.Errorf("slack: resume a question: %w", err)
	}
	if ad.Channel == "" || ad.User == "" {
		return nil, fmt.Errorf("slack: resume a question: address %s names no channel or asker", addr)
	}
	r := a.replier(ad.Channel, ad.Thread, ad.User)
	r.answerID, r.ts, r.unsure = cmp.Or(ad.AnswerID, id), ad.TS, ad.Unsure || ad.TS == ""
	if ad.Private != nil {
		return &privateReplier{replier: r, team: ad.Private.Team, url: ad.Private.URL, uses: ad.Private.Uses}, nil
	}
	if ad.Native != nil {
		// A stream begun by the replica that took the question is not
		// known here: a new one is begun.
		return &nativeReplier{replier: r, team: ad.Native.Team, classic: ad.Native.Classic}, nil
	}
	return r, nil
}

// Shown reports whether the answer's first message is in the thread: the
// replier it resumes finished it.
func (r *replier) Shown(ctx context.Context) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	mk := r.marker("f0")
	found, err := r.find(ctx, mk)
	if err != nil {
		return false, err
	}
	return found[mk] != "", nil
}
