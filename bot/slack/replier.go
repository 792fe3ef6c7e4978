package slack

import (
	"context"
	"fmt"
	"sync"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
)

// replier shows one question's view in its Slack thread: a placeholder
// reply, edited in place, finished with the answer and, for long answers,
// further replies.
type replier struct {
	a       *Adapter
	channel string
	thread  string
	user    string // the asker, who alone sees Private lines

	mu sync.Mutex
	ts string // the placeholder's timestamp, once posted
}

var _ bot.Replier = (*replier)(nil)

func (a *Adapter) replier(channel, thread, user string) *replier {
	return &replier{a: a, channel: channel, thread: thread, user: user}
}

// Start posts the placeholder in the thread.
func (r *replier) Start(ctx context.Context, v bot.View) error {
	blocks, text := Blocks(v)
	ts, err := r.post(ctx, blocks, text)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.ts = ts
	r.mu.Unlock()
	return nil
}

// Update edits the placeholder to show v.
func (r *replier) Update(ctx context.Context, v bot.View) error {
	blocks, text := Blocks(v)
	return r.edit(ctx, blocks, text)
}

// Finish replaces the placeholder with the first message of the answer and
// posts the rest, in order, as further replies in the thread.
func (r *replier) Finish(ctx context.Context, v bot.View) error {
	msgs := FinalMessages(v)
	if err := r.edit(ctx, msgs[0], fallback(v)); err != nil {
		return err
	}
	for i, blocks := range msgs[1:] {
		part := fmt.Sprintf("Answer, part %d of %d", i+2, len(msgs))
		if _, err := r.post(ctx, blocks, part); err != nil {
			return fmt.Errorf("%s: %w", part, err)
		}
	}
	return nil
}

// Private posts an ephemeral message, which only the asker sees, in the
// thread.
func (r *replier) Private(ctx context.Context, text string) error {
	opts := []slack.MsgOption{slack.MsgOptionText(escape(text), false)}
	if r.thread != "" {
		opts = append(opts, slack.MsgOptionTS(r.thread))
	}
	return r.a.retry(ctx, "chat.postEphemeral", func() error {
		_, err := r.a.api.PostEphemeralContext(ctx, r.channel, r.user, opts...)
		return err
	})
}

// post adds a message to the thread and returns its timestamp.
func (r *replier) post(ctx context.Context, blocks []slack.Block, text string) (string, error) {
	var ts string
	err := r.a.retry(ctx, "chat.postMessage", func() (err error) {
		_, ts, err = r.a.api.PostMessageContext(ctx, r.channel,
			slack.MsgOptionBlocks(blocks...), slack.MsgOptionText(text, false), slack.MsgOptionTS(r.thread))
		return err
	})
	return ts, err
}

// edit replaces the placeholder's content, or posts it if there is none
// yet (Start failed, and the final answer should still reach the thread).
func (r *replier) edit(ctx context.Context, blocks []slack.Block, text string) error {
	r.mu.Lock()
	ts := r.ts
	r.mu.Unlock()
	if ts == "" {
		ts, err := r.post(ctx, blocks, text)
		if err == nil {
			r.mu.Lock()
			r.ts = ts
			r.mu.Unlock()
		}
		return err
	}
	return r.a.retry(ctx, "chat.update", func() error {
		_, _, _, err := r.a.api.UpdateMessageContext(ctx, r.channel, ts,
			slack.MsgOptionBlocks(blocks...), slack.MsgOptionText(text, false))
		return err
	})
}
