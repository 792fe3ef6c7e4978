package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/ingest/extract"
	"github.com/switchboard/switchboard/kb"
)

// Store is what the Ingester needs from the document store besides the
// Pipeline: to look up a document's hash and to find and delete documents
// whose messages are gone. It must be the Pipeline's store.
type Store interface {
	DocumentHash(ctx context.Context, workspace, key string) (hash string, ok bool, err error)
	DeleteDocument(ctx context.Context, workspace, key string) error
	// DocumentsByPrefix returns the documents of workspace whose key
	// starts with prefix (taken literally), with their Key and Location;
	// their chunks are not needed.
	DocumentsByPrefix(ctx context.Context, workspace, prefix string) ([]kb.Document, error)
}

// Ingester reads chat channels into the knowledge base. Set the fields
// before first use; it is safe for concurrent use afterwards (a backfill
// and live updates, say).
type Ingester struct {
	Source   Source
	Pipeline *ingest.Pipeline // splits, embeds in batches and stores; required
	Store    Store            // the Pipeline's store; required
	Cursors  Cursors          // required
	// Graph, if set, extracts entities and relationships from every new or
	// changed document of a public channel before it is stored.
	Graph *extract.Graph
	// ChunkSize is the length of conversation chunks in characters;
	// zero means DefaultChunkSize.
	ChunkSize int
	// MaxFileSize bounds attached files downloaded; zero means
	// ingest.MaxFileSize.
	MaxFileSize int64
	// Lookback is how far before the newest ingested message a run that
	// catches up reads again, for replies added to older threads. Zero
	// means 7 days. (Live updates see such replies at once.)
	Lookback time.Duration
	// GraphConcurrency bounds the extraction calls in flight for one
	// document. Zero means 4.
	GraphConcurrency int
	// Concurrency bounds the threads of a day read and stored at once,
	// which overlaps the platform's and the store's latencies. Zero
	// means 4.
	Concurrency int
	// Now returns the time; nil means time.Now.
	Now func() time.Time
	// Log hears about files skipped and failed extractions; nil discards.
	Log *slog.Logger

	stripes  [64]sync.Mutex // serialise rebuilds of one document (see lock)
	chanMu   sync.Mutex
	channels map[string]cachedChannel // Source.Channel answers, for live updates
}

// Defaults of the Ingester's zero fields.
const (
	DefaultLookback         = 7 * 24 * time.Hour
	DefaultGraphConcurrency = 4
	DefaultConcurrency      = 4
	day                     = 24 * time.Hour
)

// Options of one Ingest run.
type Options struct {
	// Since is the oldest day to read; zero reads the whole history.
	Since time.Time
	// Progress, if set, is called after every day read, from the calling
	// goroutine.
	Progress func(Progress)
}

func (in *Ingester) now() time.Time {
	if in.Now != nil {
		return in.Now()
	}
	return time.Now()
}

func (in *Ingester) log() *slog.Logger {
	if in.Log != nil {
		return in.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Ingest reads a channel's history into the knowledge base and returns
// what it did.
//
// The first run reads the channel newest first, back to opts.Since (or
// the channel's beginning), a day at a time: a day's threads (each with
// all its replies), its other messages and its attached files are
// stored, and only then does the channel's cursor move past that day. A
// later run first catches up with what was posted since (reading the last
// Lookback again, for new replies in recent threads), then goes on with
// the backfill where it stopped, if it had not finished. Unchanged
// documents are skipped by hash, so a second run stores nothing, and a
// run interrupted at any point (even killed) is finished by the next one
// without gaps or duplicates.
//
// Failures of single files and graph extractions are listed in the
// Report and the run goes on; a failure of the platform (after its rate
// limits were waited out) or of the store stops the run with an error,
// and the Report covers what was done.
func (in *Ingester) Ingest(ctx context.Context, channelID string, opts Options) (Report, error) {
	start := in.now()
	if in.Source == nil || in.Pipeline == nil || in.Store == nil || in.Cursors == nil {
		return Report{}, errors.New("chat: ingester needs a Source, a Pipeline, a Store and Cursors")
	}
	ch, err := in.Source.Channel(ctx, channelID)
	if err != nil {
		return Report{}, fmt.Errorf("chat: channel %s: %w", channelID, err)
	}
	if ch.Parent != "" {
		return Report{Channel: ch}, fmt.Errorf("chat: %s is a thread of channel %s: ingest the channel", channelID, ch.Parent)
	}
	r := &run{in: in, ch: ch, opts: opts, start: start, rep: Report{Channel: ch}}
	err = r.ingest(ctx)
	r.rep.Elapsed = in.now().Sub(start)
	if err != nil {
		return r.rep, fmt.Errorf("chat: ingest #%s (%s): %w", ch.Name, ch.ID, err)
	}
	return r.rep, nil
}

// run is one Ingest.
type run struct {
	in    *Ingester
	ch    Channel
	opts  Options
	start time.Time
	rep   Report

	// The span being read, for the progress fraction.
	spanTop, spanBottom time.Time
	// forget are origins whose graph facts the documents stored by a live
	// update forget: the changed message's.
	forget []string
	// msgs are the messages a live update read again.
	msgs []Message
}

func (r *run) ingest(ctx context.Context) error {
	since := time.Time{}
	if !r.opts.Since.IsZero() {
		since = dayStart(r.opts.Since)
	}
	cur, found, err := loadCursor(ctx, r.in.Cursors, r.ch)
	if err != nil {
		return err
	}
	if !found {
		cur = Cursor{Started: r.start.UTC()}
	}

	// Catch up with what was posted since the last run. Without a message
	// read yet (an empty channel, or one with threads only), the first
	// run's start is as far as it read.
	if ref := cur.NewestAt; found {
		if ref.IsZero() {
			ref = cur.Started
		}
		from := cur.Oldest
		if !ref.IsZero() {
			from = dayStart(ref).Add(-r.in.lookback())
		}
		if cur.Oldest.After(from) {
			from = cur.Oldest
		}
		if since.After(from) {
			from = since
		}
		newest, err := r.window(ctx, from, time.Time{}, nil)
		if err != nil {
			return err
		}
		if newest.ID != "" && !newest.Time.Before(cur.NewestAt) {
			cur.Newest, cur.NewestAt = newest.ID, newest.Time.UTC()
		}
		if err := saveCursor(ctx, r.in.Cursors, r.ch, cur); err != nil {
			return err
		}
	}

	// Backfill what is older than anything read so far.
	if found && cur.covers(since) {
		r.rep.Complete = true
		return nil
	}
	upper := time.Time{} // now
	if found {
		upper = cur.Oldest
	}
	if _, err := r.window(ctx, since, upper, func(day time.Time, newest Message) error {
		// Everything from day on is stored now.
		cur.Oldest = day
		if cur.NewestAt.IsZero() && newest.ID != "" {
			cur.Newest, cur.NewestAt = newest.ID, newest.Time.UTC()
		}
		return saveCursor(ctx, r.in.Cursors, r.ch, cur)
	}); err != nil {
		return err
	}
	cur.Oldest = since // the history ends there (zero: the channel's start)
	if err := saveCursor(ctx, r.in.Cursors, r.ch, cur); err != nil {
		return err
	}
	r.rep.Complete = true
	return nil
}

func (in *Ingester) lookback() time.Duration {
	if in.Lookback > 0 {
		return in.Lookback
	}
	return DefaultLookback
}

// window reads the messages posted in [oldest, latest) (latest zero: up
// to now) newest first and stores them a day at a time, calling done
// after each day is stored with the day and the newest message read so
// far. It returns the newest message read.
func (r *run) window(ctx context.Context, oldest, latest time.Time, done func(day time.Time, newest Message) error) (Message, error) {
	r.spanTop, r.spanBottom = latest, oldest
	if r.spanTop.IsZero() {
		r.spanTop = r.in.now()
	}
	if r.spanBottom.IsZero() {
		r.spanBottom = r.ch.Created
	}
	// Threads that History does not reveal (Discord's) are placed on the
	// days they started, newest first.
	threads, err := r.in.Source.Threads(ctx, r.ch, oldest, latest)
	if err != nil {
		return Message{}, fmt.Errorf("list threads: %w", err)
	}
	slices.SortFunc(threads, func(a, b Thread) int { return b.Started.Compare(a.Started) })

	var (
		newest  Message
		current time.Time // the day being collected; zero before the first message
		msgs    []Message
	)
	// threadDays stores the days, newer than after (all when it is zero),
	// on which only threads started.
	threadDays := func(after time.Time) error {
		for len(threads) > 0 {
			d := dayStart(threads[0].Started)
			if !after.IsZero() && !d.After(after) {
				return nil
			}
			var ts []Thread
			for len(threads) > 0 && dayStart(threads[0].Started).Equal(d) {
				ts, threads = append(ts, threads[0]), threads[1:]
			}
			if err := r.day(ctx, d, nil, ts, done, newest); err != nil {
				return err
			}
		}
		return nil
	}
	// finish stores the day being collected, with its threads.
	finish := func() error {
		var ts []Thread
		for len(threads) > 0 && dayStart(threads[0].Started).Equal(current) {
			ts, threads = append(ts, threads[0]), threads[1:]
		}
		err := r.day(ctx, current, msgs, ts, done, newest)
		current, msgs = time.Time{}, nil
		return err
	}
	err = r.in.Source.History(ctx, r.ch, oldest, latest, func(page []Message) error {
		for _, m := range page {
			if newest.ID == "" || m.Time.After(newest.Time) {
				newest = m
			}
			d := dayStart(m.Time)
			switch {
			case current.IsZero():
				if err := threadDays(d); err != nil {
					return err
				}
				current = d
			case d.Before(current):
				// Pages are newest first: the day being collected is whole.
				if err := finish(); err != nil {
					return err
				}
				if err := threadDays(d); err != nil {
					return err
				}
				current = d
			}
			msgs = append(msgs, m)
		}
		return ctx.Err()
	})
	if err != nil {
		return Message{}, fmt.Errorf("read history: %w", err)
	}
	if !current.IsZero() {
		if err := finish(); err != nil {
			return Message{}, err
		}
	}
	if err := threadDays(time.Time{}); err != nil {
		return Message{}, err
	}
	return newest, nil
}

// day stores one day: its threads (Slack roots among msgs, and threads),
// the day's other messages, and the files of all of them.
func (r *run) day(ctx context.Context, d time.Time, msgs []Message, threads []Thread, done func(time.Time, Message) error, newest Message) error {
	b := r.in.builder(r.ch)
	for _, m := range msgs {
		if m.Thread == m.ID && m.Replies > 0 {
			threads = append(threads, Thread{ID: m.ID, Started: m.Time, Permalink: m.Permalink})
		}
	}
	if err := r.threads(ctx, b, threads); err != nil {
		return err
	}
	c, ok := b.dayDoc(d, msgs)
	if ok {
		r.rep.Days++
		r.rep.Messages += c.messages
		if err := r.in.store(ctx, c, &r.rep); err != nil {
			return err
		}
	} else if err := r.in.remove(ctx, r.ch, DayKey(r.ch, d), &r.rep); err != nil {
		return err
	}
	// A message that once started a thread whose replies are all gone is
	// back in its day's document; its thread's document goes.
	for _, m := range msgs {
		if m.Thread == m.ID && m.Replies == 0 {
			if err := r.in.remove(ctx, r.ch, ThreadKey(r.ch, m.ID), &r.rep); err != nil {
				return err
			}
		}
	}
	if err := r.in.files(ctx, r.ch, msgs, r.ch.ID, r.ch.Private, &r.rep); err != nil {
		return err
	}
	if done != nil {
		if err := done(d, newest); err != nil {
			return err
		}
	}
	r.progress(d)
	return ctx.Err()
}

// threads stores threads, Concurrency at a time, each on a run of its
// own whose report is added to r's once all are done. The first error
// stops the rest.
func (r *run) threads(ctx context.Context, b builder, threads []Thread) error {
	if len(threads) == 0 {
		return nil
	}
	workers := r.in.Concurrency
	if workers <= 0 {
		workers = DefaultConcurrency
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	subs := make([]*run, len(threads))
	errs := make([]error, len(threads))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, t := range threads {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		subs[i] = &run{in: r.in, ch: r.ch, opts: r.opts, start: r.start}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if errs[i] = subs[i].thread(ctx, b, t); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, sub := range subs {
		if sub != nil {
			r.rep.add(sub.rep)
		}
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// thread stores one thread with its files.
func (r *run) thread(ctx context.Context, b builder, t Thread) error {
	got, msgs, err := r.in.Source.Replies(ctx, r.ch, t.ID)
	if errors.Is(err, ErrNotFound) {
		return r.in.remove(ctx, r.ch, ThreadKey(r.ch, t.ID), &r.rep)
	}
	if err != nil {
		return fmt.Errorf("read thread %s: %w", t.ID, err)
	}
	return r.storeThread(ctx, b, t, got, msgs)
}

// storeThread stores a thread read from the Source, t being what was known
// of it before.
func (r *run) storeThread(ctx context.Context, b builder, t, got Thread, msgs []Message) error {
	if got.ID == "" {
		got.ID = t.ID
	}
	if got.Name == "" {
		got.Name = t.Name
	}
	if got.Permalink == "" {
		got.Permalink = t.Permalink
	}
	got.Private = got.Private || t.Private
	c, ok := b.threadDoc(got, msgs, r.ch.Private)
	if !ok {
		return r.in.remove(ctx, r.ch, ThreadKey(r.ch, t.ID), &r.rep)
	}
	c.forget = r.forget
	r.rep.Threads++
	r.rep.Messages += c.messages
	if err := r.in.store(ctx, c, &r.rep); err != nil {
		return err
	}
	return r.in.files(ctx, r.ch, msgs, c.doc.Channel, c.doc.Private, &r.rep)
}

func (r *run) progress(d time.Time) {
	if r.opts.Progress == nil {
		return
	}
	p := Progress{Channel: r.ch, Messages: r.rep.Messages, Documents: r.rep.Documents(), Chunks: r.rep.Chunks,
		Day: d, Elapsed: r.in.now().Sub(r.start), Fraction: -1}
	if !r.spanBottom.IsZero() && r.spanTop.After(r.spanBottom) {
		p.Fraction = min(max(float64(r.spanTop.Sub(d))/float64(r.spanTop.Sub(r.spanBottom)), 0), 1)
	}
	r.opts.Progress(p)
}

func (in *Ingester) builder(ch Channel) builder {
	return builder{ch: ch, chunkSize: in.ChunkSize}
}

// store writes a document unless the store has it already: graph facts
// first (from public channels), then the document, so that a run killed in
// between extracts again next time rather than never.
func (in *Ingester) store(ctx context.Context, c content, rep *Report) error {
	unlock := in.lock(c.doc.Workspace, c.doc.Key)
	defer unlock()
	stored, ok, err := in.Store.DocumentHash(ctx, c.doc.Workspace, c.doc.Key)
	if err != nil {
		return err
	}
	if ok && stored == c.doc.Hash {
		rep.Unchanged++
		return nil
	}
	if in.Graph != nil && ok {
		// The document changed: what its messages (and a deleted one)
		// stated is extracted afresh, so an edit or a deletion takes back
		// what the old text said.
		origins := append([]string(nil), c.forget...)
		for _, p := range c.passages {
			origins = append(origins, p.Origin)
		}
		if _, err := in.Graph.Forget(ctx, origins); err != nil {
			rep.Errors = append(rep.Errors, fmt.Errorf("graph facts of %s: %w", c.doc.Key, err))
		}
	}
	if in.Graph != nil && !c.doc.Private {
		in.extract(ctx, c, rep)
	}
	res, err := in.Pipeline.Ingest(ctx, c.doc)
	if err != nil {
		return err
	}
	switch res.Status {
	case ingest.StatusAdded:
		rep.Added++
	case ingest.StatusUpdated:
		rep.Updated++
	default:
		rep.Unchanged++
	}
	rep.Chunks += res.Chunks
	return nil
}

// remove deletes a document if it exists.
func (in *Ingester) remove(ctx context.Context, ch Channel, key string, rep *Report) error {
	unlock := in.lock(ch.Workspace, key)
	defer unlock()
	_, ok, err := in.Store.DocumentHash(ctx, ch.Workspace, key)
	if err != nil || !ok {
		return err
	}
	if err := in.Store.DeleteDocument(ctx, ch.Workspace, key); err != nil {
		return err
	}
	rep.Deleted++
	return nil
}

// lock serialises the writers of one document in this process: a live
// update and a backfill of the same day, say. Keys share a fixed set of
// locks, so memory stays bounded.
func (in *Ingester) lock(workspace, key string) func() {
	h := uint32(2166136261)
	for _, c := range []byte(workspace + "\x00" + key) {
		h = (h ^ uint32(c)) * 16777619
	}
	m := &in.stripes[h%uint32(len(in.stripes))]
	m.Lock()
	return m.Unlock
}

// extract writes the graph facts of a document, in batches of about a
// chunk's worth of passages, several batches at a time. Failures are
// reported and do not stop the run: the document is still worth storing.
func (in *Ingester) extract(ctx context.Context, c content, rep *Report) {
	size := in.ChunkSize
	if size <= 0 {
		size = DefaultChunkSize
	}
	var batches [][]extract.Passage
	var cur []extract.Passage
	n := 0
	for _, p := range c.passages {
		if n > 0 && n+len(p.Text) > 2*size {
			batches, cur, n = append(batches, cur), nil, 0
		}
		cur = append(cur, p)
		n += len(p.Text)
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}
	workers := in.GraphConcurrency
	if workers <= 0 {
		workers = DefaultGraphConcurrency
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
		sem  = make(chan struct{}, workers)
	)
	for _, batch := range batches {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := in.Graph.Add(ctx, batch)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			rep.Entities += res.Entities
			rep.Relations += res.Relations
		}()
	}
	wg.Wait()
	if len(errs) > 0 && ctx.Err() == nil {
		err := fmt.Errorf("graph facts of %s (%d of %d batches failed): %w", c.doc.Key, len(errs), len(batches), errs[0])
		in.log().Warn("chat: graph extraction failed", "doc", c.doc.Key, "err", err)
		rep.Errors = append(rep.Errors, err)
	}
}
