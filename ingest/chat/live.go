package chat

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Change is a message posted, edited or deleted in a channel, as a
// platform's event reports it.
type Change struct {
	Channel string // the channel the message is in (on Discord, maybe a thread)
	Message string // its id
	// Thread is the thread it belongs to, when the event says (Slack's
	// thread_ts, which a thread's first message has too); "" otherwise.
	Thread string
	// Time is when the message was posted (Slack ts, Discord snowflake).
	Time    time.Time
	Deleted bool
}

// cachedChannel is a Source.Channel answer, kept for channelTTL.
type cachedChannel struct {
	ch Channel
	at time.Time
}

// Bounds of the channel cache of live updates.
const (
	channelTTL      = 5 * time.Minute
	maxCachedChanns = 1000
)

// Apply brings the knowledge base up to date after a change in a channel
// that was ingested (that has a cursor); changes elsewhere are ignored and
// applied is false. The document holding the message is rebuilt from the
// platform's current state: its thread (read again whole), or its day.
// So an edit replaces the message's text, and a deleted message is gone
// from the document, its chunks and therefore from answers. When a
// message gets its first reply, it moves from its day's document to the
// new thread's; when a thread loses its last reply, back.
func (in *Ingester) Apply(ctx context.Context, c Change) (applied bool, rep Report, err error) {
	ch, err := in.channel(ctx, c.Channel)
	if err != nil {
		return false, Report{}, fmt.Errorf("chat: live update in %s: %w", c.Channel, err)
	}
	thread := c.Thread
	if ch.Parent != "" { // a Discord thread: its documents live under its channel
		thread = ch.ID
		if ch, err = in.channel(ctx, ch.Parent); err != nil {
			return false, Report{}, fmt.Errorf("chat: live update in %s: %w", c.Channel, err)
		}
	}
	if _, ok, err := in.Cursors.Get(ctx, ch.Source(), cursorChannel(ch)); err != nil || !ok {
		return false, Report{}, err
	}
	rep = Report{Channel: ch}
	r := &run{in: in, ch: ch, rep: rep, start: in.now()}
	// The facts the message stated are taken back (and extracted again
	// from its new text, if it has one).
	if link := in.Source.Link(ctx, ch, thread, c.Message); link != "" {
		r.forget = []string{link}
	}
	if thread != "" {
		err = in.applyThread(ctx, r, thread, c)
	} else {
		err = in.rebuildDay(ctx, r, dayStart(c.Time))
	}
	if err == nil {
		// The documents of the files the message lost, or of all of them
		// when it is gone, go too.
		err = in.pruneFiles(ctx, r, c.Message, c.Deleted)
	}
	r.rep.Complete = true
	r.rep.Elapsed = in.now().Sub(r.start)
	if err != nil {
		return true, r.rep, fmt.Errorf("chat: live update of #%s: %w", ch.Name, err)
	}
	return true, r.rep, nil
}

// applyThread rebuilds a thread, and the day of its first message when the
// message moved in or out of its day's document.
func (in *Ingester) applyThread(ctx context.Context, r *run, thread string, c Change) error {
	key := ThreadKey(r.ch, thread)
	_, existed, err := in.Store.DocumentHash(ctx, r.ch.Workspace, key)
	if err != nil {
		return err
	}
	t, msgs, err := in.Source.Replies(ctx, r.ch, thread)
	if errors.Is(err, ErrNotFound) {
		if err := in.remove(ctx, r.ch, key, &r.rep); err != nil {
			return err
		}
		if in.Graph != nil {
			if _, err := in.Graph.Forget(ctx, r.forget); err != nil {
				r.rep.Errors = append(r.rep.Errors, err)
			}
		}
		if c.Thread == c.Message && !c.Time.IsZero() { // the first message went: its day may hold it
			return in.rebuildDay(ctx, r, dayStart(c.Time))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("read thread %s: %w", thread, err)
	}
	r.msgs = append(r.msgs, msgs...)
	// On Slack a "thread" without replies is a message of its day.
	if len(msgs) > 0 && msgs[0].ID == thread && !msgs[0].InThread() {
		if err := in.remove(ctx, r.ch, key, &r.rep); err != nil {
			return err
		}
		return in.rebuildDay(ctx, r, dayStart(msgs[0].Time))
	}
	if err := r.storeThread(ctx, in.builder(r.ch), Thread{ID: thread}, t, msgs); err != nil {
		return err
	}
	if !existed && len(msgs) > 0 && msgs[0].ID == thread {
		// A message that just got its first reply leaves its day.
		return in.rebuildDay(ctx, r, dayStart(msgs[0].Time))
	}
	return nil
}

// rebuildDay reads one day of the channel again and stores its document
// (or deletes it when nothing is left), with its threads' files untouched.
func (in *Ingester) rebuildDay(ctx context.Context, r *run, d time.Time) error {
	if d.IsZero() {
		return errors.New("no time for the changed message")
	}
	var msgs []Message
	err := in.Source.History(ctx, r.ch, d, d.Add(day), func(page []Message) error {
		msgs = append(msgs, page...)
		if len(msgs) > maxDayMessages {
			return fmt.Errorf("more than %d messages on %s", maxDayMessages, d.Format(dayLayout))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read %s: %w", d.Format(dayLayout), err)
	}
	r.msgs = append(r.msgs, msgs...)
	c, ok := in.builder(r.ch).dayDoc(d, msgs)
	if !ok {
		if in.Graph != nil {
			if _, err := in.Graph.Forget(ctx, r.forget); err != nil {
				r.rep.Errors = append(r.rep.Errors, err)
			}
		}
		return in.remove(ctx, r.ch, DayKey(r.ch, d), &r.rep)
	}
	c.forget = r.forget
	r.rep.Days++
	r.rep.Messages += c.messages
	if err := in.store(ctx, c, &r.rep); err != nil {
		return err
	}
	return in.files(ctx, r.ch, msgs, r.ch.ID, r.ch.Private, &r.rep)
}

// maxDayMessages bounds the messages of one day a live update reads again.
const maxDayMessages = 100000

// channel returns Source.Channel, cached for channelTTL: live updates come
// one per message, and a channel's name and privacy rarely change.
func (in *Ingester) channel(ctx context.Context, id string) (Channel, error) {
	now := in.now()
	in.chanMu.Lock()
	if c, ok := in.channels[id]; ok && now.Sub(c.at) < channelTTL {
		in.chanMu.Unlock()
		return c.ch, nil
	}
	in.chanMu.Unlock()
	ch, err := in.Source.Channel(ctx, id)
	if err != nil {
		return Channel{}, err
	}
	in.chanMu.Lock()
	defer in.chanMu.Unlock()
	if in.channels == nil || len(in.channels) >= maxCachedChanns {
		in.channels = map[string]cachedChannel{}
	}
	in.channels[id] = cachedChannel{ch: ch, at: now}
	return ch, nil
}
