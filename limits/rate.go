package limits

import (
	"sync"
	"time"
)

// Askers rate-limits questions by asker and by channel, each with a token
// bucket: a bucket holds up to a minute's allowance, so a quiet asker may
// ask several questions at once, and refills continuously. A zero rate
// leaves that limit off. It is safe for concurrent use.
type Askers struct {
	user, channel Rate
	now           func() time.Time

	mu      sync.Mutex
	buckets map[string]time.Time // "u:"+user and "c:"+channel → when full again
	ops     int                  // Allow calls since the last sweep
}

// Rate is one limit, whose buckets Askers keeps in memory and package
// postgres in a table shared by replicas. A bucket is kept as the moment
// it will be full again (a "theoretical arrival time"), which makes the
// arithmetic exact: each question pushes that moment one interval later,
// and a question fits while the moment is at most burst-1 intervals away.
// A bucket never seen is full: its moment is the zero time.
type Rate struct {
	interval time.Duration // one token's worth of time; 0: no limit
	burst    int           // the bucket's size
}

// NewRate returns a limit of perMinute questions a minute (0: no limit).
func NewRate(perMinute int) Rate {
	if perMinute <= 0 {
		return Rate{}
	}
	return Rate{interval: time.Minute / time.Duration(perMinute), burst: perMinute}
}

// On reports whether r limits anything.
func (r Rate) On() bool { return r.interval > 0 }

// Wait is how long until one more question fits in the bucket that is
// full at full, and 0 if it fits now.
func (r Rate) Wait(full, now time.Time) time.Duration {
	if ahead := full.Sub(now); r.On() && ahead > r.slack() {
		return ahead - r.slack()
	}
	return 0
}

// Take returns the bucket's full moment after one more question.
func (r Rate) Take(full, now time.Time) time.Time {
	return later(full, now).Add(r.interval)
}

// slack is how far in the future a bucket's full moment may be for one
// more question to fit.
func (r Rate) slack() time.Duration { return time.Duration(r.burst-1) * r.interval }

// sweepEvery is how many Allow calls pass between sweeps of full buckets,
// which bound the memory that askers who stopped asking would hold.
const sweepEvery = 4096

// NewAskers returns limits of userPerMinute questions per asker and
// channelPerMinute per channel (0: no limit). now is the clock; nil means
// time.Now.
func NewAskers(userPerMinute, channelPerMinute int, now func() time.Time) *Askers {
	if now == nil {
		now = time.Now
	}
	return &Askers{user: NewRate(userPerMinute), channel: NewRate(channelPerMinute), now: now, buckets: map[string]time.Time{}}
}

// Limit names which limit refused a question.
const (
	LimitUser    = "user"
	LimitChannel = "channel"
)

// Allow counts one question by user in channel (keys that the caller makes
// unique across workspaces) and reports whether it may be taken. When the
// asker's or the channel's bucket is empty it counts nothing, and says
// which limit refused (LimitUser or LimitChannel) and how long until the
// question would be taken.
func (a *Askers) Allow(user, channel string) (ok bool, limit string, retryAfter time.Duration) {
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sweep(now)
	checks := []struct {
		key, limit string
		r          Rate
	}{{"u:" + user, LimitUser, a.user}, {"c:" + channel, LimitChannel, a.channel}}
	for _, c := range checks {
		if wait := c.r.Wait(a.buckets[c.key], now); wait > 0 {
			return false, c.limit, wait
		}
	}
	// Take from both only once both allow, so that a refusal costs nothing.
	for _, c := range checks {
		if c.r.On() {
			a.buckets[c.key] = c.r.Take(a.buckets[c.key], now)
		}
	}
	return true, "", 0
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// sweep forgets, now and then, the buckets that have refilled completely:
// a new bucket starts full, so forgetting them changes nothing.
func (a *Askers) sweep(now time.Time) {
	if a.ops++; a.ops < sweepEvery {
		return
	}
	a.ops = 0
	for key, full := range a.buckets {
		if !full.After(now) {
			delete(a.buckets, key)
		}
	}
}

// Len reports how many buckets are held, for tests of the sweep.
func (a *Askers) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.buckets)
}
