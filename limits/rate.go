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
	user, channel rate
	now           func() time.Time

	mu      sync.Mutex
	buckets map[string]time.Time // "u:"+user and "c:"+channel → when full again
	ops     int                  // Allow calls since the last sweep
}

// rate is one limit. A bucket is kept as the moment it will be full again
// (a "theoretical arrival time"), which makes the arithmetic exact: each
// question pushes that moment one interval later, and a question fits
// while the moment is at most burst-1 intervals away.
type rate struct {
	interval time.Duration // one token's worth of time; 0: no limit
	burst    int           // the bucket's size
}

func newRate(perMinute int) rate {
	if perMinute <= 0 {
		return rate{}
	}
	return rate{interval: time.Minute / time.Duration(perMinute), burst: perMinute}
}

func (r rate) on() bool { return r.interval > 0 }

// slack is how far in the future a bucket's full moment may be for one
// more question to fit.
func (r rate) slack() time.Duration { return time.Duration(r.burst-1) * r.interval }

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
	return &Askers{user: newRate(userPerMinute), channel: newRate(channelPerMinute), now: now, buckets: map[string]time.Time{}}
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
		r          rate
	}{{"u:" + user, LimitUser, a.user}, {"c:" + channel, LimitChannel, a.channel}}
	for _, c := range checks {
		if !c.r.on() {
			continue
		}
		if ahead := a.buckets[c.key].Sub(now); ahead > c.r.slack() {
			return false, c.limit, ahead - c.r.slack()
		}
	}
	// Take from both only once both allow, so that a refusal costs nothing.
	for _, c := range checks {
		if c.r.on() {
			a.buckets[c.key] = later(a.buckets[c.key], now).Add(c.r.interval)
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
