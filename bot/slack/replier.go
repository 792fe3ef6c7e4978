package slack

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/slackapi"
)

// replier shows one question's view in its Slack thread: a placeholder
// reply, edited in place, finished with the answer and, for long answers,
// further replies.
//
// Every question gets one final message, whatever Slack does meanwhile:
//
//   - Calls are retried while Slack fails them for a while (429, 5xx,
//     internal_error…, lost connections; see slackapi.Retry).
//   - Every post carries a marker, the block_id of its first block, made of
//     the answer id and which post it is. After a failure that may have
//     posted anyway (a 5xx, a connection lost after the request went out),
//     the thread is searched for the marker (conversations.replies) before
//     posting again, so that a retry does not post twice.
//   - Finish with no placeholder (Start failed) posts the answer as a new
//     reply, after looking for a placeholder Start may have posted after
//     all.
//   - A final edit of the placeholder that still fails after its retries
//     is given up: the answer is posted as a new reply and the placeholder
//     left behind is deleted.
//   - When Slack takes neither (its API down, or rate limits past the
//     retries), the adapter's outbox tries again in the background, for a
//     bounded time, so that the asker gets the answer as soon as Slack
//     answers again.
type replier struct {
	a       *Adapter
	channel string
	thread  string
	user    string // the asker, who alone sees Private lines

	// mu is held through every call that changes what the thread shows,
	// so that the dispatcher and the outbox never act on it at once.
	mu       sync.Mutex
	answerID string // from the first view: names the markers
	ts       string // the placeholder's timestamp, once posted
	unsure   bool   // Start failed in a way that may have posted the placeholder
	fin      *final // the final view, once Finish was called
}

// final is how far the final view got into the thread.
type final struct {
	msgs   [][]slack.Block // the messages of the final view
	text   string          // the first one's notification text
	next   int             // the first message not delivered yet
	unsure bool            // a failed post of message next may have posted it
	noEdit bool            // the placeholder cannot be edited (gone, too old)
	stale  string          // a placeholder replaced by a new reply: to delete
	queued bool            // handed to the outbox
}

var _ bot.Replier = (*replier)(nil)

func (a *Adapter) replier(channel, thread, user string) *replier {
	return &replier{a: a, channel: channel, thread: thread, user: user}
}

// Start posts the placeholder in the thread.
func (r *replier) Start(ctx context.Context, v bot.View) error {
	blocks, text := Blocks(v)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.name(v)
	if r.ts != "" || r.fin != nil {
		return nil // already posted, or already finished
	}
	ts, err := r.post(ctx, r.a.policy, r.marker("p"), blocks, text, &r.unsure)
	if err != nil {
		return err
	}
	r.ts = ts
	return nil
}

// Update edits the placeholder to show v. Without a placeholder (Start
// failed) there is nothing to edit: Finish posts the answer. A progress
// edit is tried a little only, the next one replacing it.
func (r *replier) Update(ctx context.Context, v bot.View) error {
	blocks, text := Blocks(v)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ts == "" || r.fin != nil {
		return nil // never overwrite the final view
	}
	return r.update(ctx, r.a.progress, r.ts, mark(blocks, r.marker("p")), text)
}

// Finish replaces the placeholder with the first message of the answer and
// posts the rest, in order, as further replies in the thread; see replier
// for what happens when Slack fails it. It returns nil once the answer is
// shown, or handed to the outbox to be shown when Slack answers again; an
// error means it cannot be shown (a failure another attempt would repeat,
// or a full outbox).
func (r *replier) Finish(ctx context.Context, v bot.View) error {
	msgs := FinalMessages(v)
	text := fallback(v)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.name(v)
	if f := r.fin; f != nil && (f.next >= len(f.msgs) || f.queued) {
		return nil // shown, or being shown: one final message per question
	}
	r.fin = &final{msgs: msgs, text: text}
	err := r.flush(ctx, r.a.policy)
	if err == nil {
		return nil
	}
	shown := r.fin.next >= len(r.fin.msgs)
	if slackapi.Temporary(err) && r.a.out.add(r) {
		r.fin.queued = true
		if shown {
			r.a.log.Warn("could not delete a placeholder left behind; trying again in the background",
				"channel", r.channel, "thread", r.thread, "err", err)
		} else {
			r.a.log.Warn("Slack did not take the answer; trying again in the background",
				"channel", r.channel, "thread", r.thread, "err", err)
		}
		return nil
	}
	if shown {
		r.a.log.Warn("could not delete a placeholder left behind", "channel", r.channel, "thread", r.thread, "err", err)
		return nil
	}
	return err
}

// Private posts an ephemeral message, which only the asker sees, in the
// thread.
func (r *replier) Private(ctx context.Context, text string) error {
	return r.privateBlocks(ctx, nil, text)
}

// privateBlocks tells only the user something, with blocks (buttons).
func (r *replier) privateBlocks(ctx context.Context, blocks []slack.Block, text string) error {
	opts := []slack.MsgOption{slack.MsgOptionText(escape(text), false)}
	if len(blocks) > 0 {
		opts = append(opts, slack.MsgOptionBlocks(blocks...))
	}
	if r.thread != "" {
		opts = append(opts, slack.MsgOptionTS(r.thread))
	}
	return r.a.retry(ctx, "chat.postEphemeral", func() error {
		_, err := r.a.api.PostEphemeralContext(ctx, r.channel, r.user, opts...)
		return err
	})
}

// redeliver is the outbox's attempt at what Finish could not do.
func (r *replier) redeliver(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fin == nil {
		return nil
	}
	return r.flush(ctx, r.a.redeliver)
}

// flush delivers what is left of the final view, then deletes the
// placeholder it left behind, if any. Callers hold r.mu.
func (r *replier) flush(ctx context.Context, pol slackapi.Policy) error {
	f := r.fin
	for f.next < len(f.msgs) {
		k := f.next
		mk := r.marker("f" + strconv.Itoa(k))
		blocks := mark(f.msgs[k], mk)
		text := f.text
		if k > 0 {
			text = fmt.Sprintf("Answer, part %d of %d", k+1, len(f.msgs))
		}
		if k == 0 {
			done, err := r.replacePlaceholder(ctx, pol, mk, blocks, text)
			if err != nil {
				return err
			}
			if done {
				f.next, f.unsure = 1, false
				continue
			}
		}
		ts, err := r.post(ctx, pol, mk, blocks, text, &f.unsure)
		if err != nil {
			if k > 0 {
				err = fmt.Errorf("%s: %w", text, err)
			}
			return err
		}
		if ts == f.stale {
			f.stale = "" // the edit was made after all: the placeholder is the answer
		}
		f.next++
	}
	if f.stale != "" {
		err := slackapi.Retry(ctx, pol, "chat.delete", func() error {
			_, _, err := r.a.api.DeleteMessageContext(ctx, r.channel, f.stale)
			return err
		})
		if err != nil && !isCode(err, "message_not_found") {
			return fmt.Errorf("deleting the placeholder left behind: %w", err)
		}
		f.stale = ""
	}
	return nil
}

// replacePlaceholder edits the placeholder to show the final view's first
// message. done is false when that message must be posted anew instead:
// there is no placeholder, or it could not be edited.
func (r *replier) replacePlaceholder(ctx context.Context, pol slackapi.Policy, mk string, blocks []slack.Block, text string) (done bool, err error) {
	f := r.fin
	if (r.ts == "" && r.unsure) || f.unsure {
		// Start failed in a way that may have posted the placeholder, or
		// an earlier attempt at this message may have landed, as an edit
		// of the placeholder or as a new reply: look before editing, or
		// the thread could show the answer twice.
		var found map[string]string
		err := slackapi.Retry(ctx, pol, "thread lookup", func() (err error) {
			found, err = r.find(ctx, r.marker("p"), mk)
			return err
		})
		if err != nil {
			return false, err
		}
		if r.ts == "" {
			r.ts, r.unsure = found[r.marker("p")], false
		}
		if ts := found[mk]; ts != "" {
			if ts != r.ts {
				f.stale = r.ts // the answer is a reply of its own: the placeholder goes
			} else {
				f.stale = ""
			}
			return true, nil
		}
	}
	if r.ts == "" || f.noEdit {
		return false, nil
	}
	err = r.update(ctx, pol, r.ts, blocks, text)
	switch {
	case err == nil:
		f.stale = ""
		return true, nil
	case ctx.Err() != nil:
		return false, err // out of time: the outbox tries again
	case isCode(err, "message_not_found"):
		// Someone deleted the placeholder: there is nothing to replace.
		f.noEdit, f.stale = true, ""
	case !slackapi.Temporary(err):
		f.noEdit, f.stale = true, r.ts
	default:
		f.stale = r.ts
	}
	if slackapi.MaybeDone(err) {
		f.unsure = true // the edit may have been made: post finds it by its marker
	}
	r.a.log.Warn("could not edit the placeholder; posting the answer as a new reply",
		"channel", r.channel, "thread", r.thread, "err", err)
	return false, nil
}

// post adds a message to the thread and returns its timestamp. marker (""
// for none) names the message: once an attempt failed in a way that may
// have posted it anyway (*unsure), the thread is searched for the marker
// before every further attempt, and a message found there is taken as
// posted.
func (r *replier) post(ctx context.Context, pol slackapi.Policy, marker string, blocks []slack.Block, text string, unsure *bool) (string, error) {
	var ts string
	blocks = mark(blocks, marker)
	err := slackapi.Retry(ctx, pol, "chat.postMessage", func() error {
		if *unsure && marker != "" {
			found, err := r.find(ctx, marker)
			if err != nil {
				return err
			}
			if found[marker] != "" {
				ts = found[marker]
				return nil
			}
		}
		_, t, err := r.a.api.PostMessageContext(ctx, r.channel,
			slack.MsgOptionBlocks(blocks...), slack.MsgOptionText(text, false), slack.MsgOptionTS(r.thread),
			// Sources link to documents and web pages; a preview of each
			// under the answer would bury it.
			slack.MsgOptionDisableLinkUnfurl(), slack.MsgOptionDisableMediaUnfurl())
		if err != nil {
			if slackapi.MaybeDone(err) {
				*unsure = true
			}
			return err
		}
		ts = t
		return nil
	})
	if err != nil {
		return "", err
	}
	*unsure = false
	return ts, nil
}

// update replaces a message's content. An edit is the same however often
// it is made, so it is retried as it is.
func (r *replier) update(ctx context.Context, pol slackapi.Policy, ts string, blocks []slack.Block, text string) error {
	return slackapi.Retry(ctx, pol, "chat.update", func() error {
		_, _, _, err := r.a.api.UpdateMessageContext(ctx, r.channel, ts,
			slack.MsgOptionBlocks(blocks...), slack.MsgOptionText(text, false))
		return err
	})
}

// Bounds of the search for a marker: Slack's largest page, and enough of
// them for any thread people keep talking in.
const (
	findPageSize = 200
	maxFindPages = 10
)

// find looks in the thread for the bot's messages carrying markers and
// returns their timestamps by marker. It fails only with errors worth
// retrying; when the thread cannot be read for good (no thread, a missing
// scope, a thread too long to search), it reports nothing found, and the
// caller posts, at the risk of posting twice: answering twice is better
// than not answering.
func (r *replier) find(ctx context.Context, markers ...string) (map[string]string, error) {
	found := map[string]string{}
	if r.thread == "" {
		return found, nil
	}
	me := r.a.self().UserID
	whole, err := r.a.eachReply(ctx, r.channel, r.thread, func(m slack.Message) {
		if me != "" && m.User != me && m.BotID == "" {
			return // people cannot set block ids; other apps would not use ours
		}
		if len(m.Blocks.BlockSet) == 0 {
			return
		}
		id := m.Blocks.BlockSet[0].ID()
		if id != "" && slices.Contains(markers, id) && found[id] == "" {
			found[id] = m.Timestamp
		}
	})
	switch {
	case err == nil:
	case isCode(err, "thread_not_found"):
		return found, nil
	case slackapi.Temporary(err) || ctx.Err() != nil:
		return nil, fmt.Errorf("conversations.replies: %w", err)
	default:
		r.a.log.Warn("cannot look for an earlier post in the thread; posting, which may post twice",
			"channel", r.channel, "thread", r.thread, "err", err)
		return found, nil
	}
	if whole {
		return found, nil
	}
	r.a.log.Warn("thread too long to look for an earlier post; posting, which may post twice",
		"channel", r.channel, "thread", r.thread)
	return found, nil
}

// eachReply calls fn with each message of a thread, oldest first, as
// conversations.replies pages them, at most maxFindPages pages; whole is
// false when the thread had more.
func (a *Adapter) eachReply(ctx context.Context, channel, thread string, fn func(slack.Message)) (whole bool, err error) {
	cursor := ""
	for range maxFindPages {
		msgs, more, next, err := a.api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{
			ChannelID: channel, Timestamp: thread, Cursor: cursor, Limit: findPageSize})
		if err != nil {
			return false, err
		}
		for _, m := range msgs {
			fn(m)
		}
		if !more || next == "" || next == cursor {
			return true, nil
		}
		cursor = next
	}
	return false, nil
}

// name takes the answer id the markers are made of from the first view
// that has one. Callers hold r.mu.
func (r *replier) name(v bot.View) {
	if r.answerID == "" {
		r.answerID = v.AnswerID
	}
}

// marker names one post of this answer: "p" the placeholder, "f0", "f1"…
// the messages of the final view. "" without an answer id: no marker.
func (r *replier) marker(kind string) string {
	if r.answerID == "" {
		return ""
	}
	return "sb-" + r.answerID + "-" + kind
}

// mark returns blocks with id as the block_id of the first, where people
// do not see it and conversations.replies returns it.
func mark(blocks []slack.Block, id string) []slack.Block {
	if id == "" || len(blocks) == 0 {
		return blocks
	}
	out := slices.Clone(blocks)
	switch b := out[0].(type) {
	case *slack.SectionBlock:
		c := *b
		c.BlockID = id
		out[0] = &c
	case *slack.ContextBlock:
		c := *b
		c.BlockID = id
		out[0] = &c
	case *slack.ActionBlock:
		c := *b
		c.BlockID = id
		out[0] = &c
	case *slack.HeaderBlock:
		c := *b
		c.BlockID = id
		out[0] = &c
	case *slack.DividerBlock:
		c := *b
		c.BlockID = id
		out[0] = &c
	}
	return out
}

// isCode reports whether err is Slack's ok:false with code.
func isCode(err error, code string) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && se.Err == code
}
