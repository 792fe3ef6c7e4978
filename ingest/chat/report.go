package chat

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Report says what a run did.
type Report struct {
	Channel   Channel
	Messages  int // messages read and indexed
	Threads   int // thread documents built
	Days      int // day documents built
	Files     int // attached files indexed
	Added     int // documents new to the store
	Updated   int // documents whose content had changed
	Unchanged int // documents skipped because their content had not
	Deleted   int // documents removed (threads that are gone)
	Chunks    int // chunks written
	Entities  int // graph entities written
	Relations int // graph relationships written
	// Complete is true when the backfill reached its lower bound (the
	// channel's start, or --since): nothing older is left to read.
	Complete bool
	Skipped  []string // files not indexed, and why
	Errors   []error  // files and graph extractions that failed; the run went on
	Elapsed  time.Duration
}

// add adds the counts and lists of o to r.
func (r *Report) add(o Report) {
	r.Messages += o.Messages
	r.Threads += o.Threads
	r.Days += o.Days
	r.Files += o.Files
	r.Added += o.Added
	r.Updated += o.Updated
	r.Unchanged += o.Unchanged
	r.Deleted += o.Deleted
	r.Chunks += o.Chunks
	r.Entities += o.Entities
	r.Relations += o.Relations
	r.Skipped = append(r.Skipped, o.Skipped...)
	r.Errors = append(r.Errors, o.Errors...)
}

// Documents is how many documents the run looked at.
func (r Report) Documents() int { return r.Added + r.Updated + r.Unchanged }

// Err joins Errors, nil when there were none.
func (r Report) Err() error { return errors.Join(r.Errors...) }

// String is the summary people read, in the terminal and in chat:
//
//	#general: 1000 messages (50 threads, 20 days, 2 files) → 72 documents (72 added), 140 chunks; graph: 12 entities, 9 relations; 4.2s
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%s: %s (%s, %s, %s) → %s (%d added, %d updated, %d unchanged",
		r.Channel.Name, count(r.Messages, "message"), count(r.Threads, "thread"), count(r.Days, "day"),
		count(r.Files, "file"), count(r.Documents(), "document"), r.Added, r.Updated, r.Unchanged)
	if r.Deleted > 0 {
		fmt.Fprintf(&b, ", %d deleted", r.Deleted)
	}
	fmt.Fprintf(&b, "), %s; graph: %s, %s; %s",
		count(r.Chunks, "chunk"), count(r.Entities, "entity"), count(r.Relations, "relation"), roundDuration(r.Elapsed))
	if r.Channel.Private {
		b.WriteString("\nprivate channel: its content is used only for answers in it, and no graph facts were extracted")
	}
	if !r.Complete {
		b.WriteString("\nnot finished: run it again to continue where it stopped")
	}
	for _, s := range r.Skipped {
		b.WriteString("\nskipped " + s)
	}
	for _, err := range r.Errors {
		fmt.Fprintf(&b, "\nerror: %v", err)
	}
	return b.String()
}

// roundDuration keeps two or three significant digits: 37ms, 4.2s, 3m12s.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond)
	case d < time.Minute:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

func count(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y") && !strings.ContainsAny(noun[len(noun)-2:len(noun)-1], "aeiou"):
		// entity → entities, but day → days
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Progress is how far a run has got, for progress bars and chat status
// lines.
type Progress struct {
	Channel   Channel
	Messages  int
	Documents int
	Chunks    int
	// Fraction is the share of the time span to read that has been read,
	// from 0 to 1, or -1 when it cannot be told (no start is known).
	Fraction float64
	// Day is the day being read.
	Day     time.Time
	Elapsed time.Duration
}

// ETA estimates the time left from the rate so far; ok is false when it
// cannot be told yet.
func (p Progress) ETA() (time.Duration, bool) {
	if p.Fraction <= 0.01 || p.Fraction > 1 || p.Elapsed <= 0 {
		return 0, false
	}
	total := time.Duration(float64(p.Elapsed) / p.Fraction)
	return max(total-p.Elapsed, 0), true
}

// Rate is messages per second so far.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Messages) / p.Elapsed.Seconds()
}
