package cluster

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

// Timers the queue manager set. Kueue's queue manager is the one part of Kueue the oracle runs that
// sets timers on its clock: QueueSecondPassIfNeeded prequeues a workload whose topology placement
// was delayed and queues it for its second pass when clock.AfterFunc fires, after a backoff of
// 1, 2, 4, 8, 16, then 30 s as its passes fail or are put off (secondPassQueue.nextDelay). A run
// stopped while such a timer is pending ends before Kueue's clock gets to it: a run that changes
// nothing is not over while a second pass is to come (Run's stall rule advances the clock to the
// timer), and a state is not one the run was in before unless its timers are the same too (a pass
// that fires in the next period can break what looked like a loop).
//
// timedClock is the run's fake clock as the queue manager is given it: it notes each AfterFunc's
// time and delay, since the fake clock keeps its waiters to itself.
type timedClock struct {
	*clocktesting.FakeClock
	mu     sync.Mutex
	timers []timer
}

type timer struct {
	at    time.Time
	delay time.Duration
}

var _ clock.WithDelayedExecution = &timedClock{}

func (t *timedClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t.mu.Lock()
	t.timers = append(t.timers, timer{at: t.Now().Add(d), delay: d})
	t.mu.Unlock()
	return t.FakeClock.AfterFunc(d, f)
}

// pending is the timers that have not fired, soonest first (ties: shorter delay first).
func (t *timedClock) pending() []timer {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.Now()
	left := t.timers[:0]
	for _, tm := range t.timers {
		if tm.at.After(now) {
			left = append(left, tm)
		}
	}
	t.timers = left
	out := append([]timer(nil), left...)
	sort.Slice(out, func(i, j int) bool {
		if !out[i].at.Equal(out[j].at) {
			return out[i].at.Before(out[j].at)
		}
		return out[i].delay < out[j].delay
	})
	return out
}

// state is the pending timers as a run's state holds them: each one's time left and its delay (the
// backoff step it stands for; Kueue's backoff stays at 30 s from the fifth step on, so a pass put
// off again and again comes back to the same state once its backoff is at the cap), as text.
func (t *timedClock) state() string {
	now := t.Now()
	parts := []string{}
	for _, tm := range t.pending() {
		parts = append(parts, fmt.Sprintf("%s/%s", tm.at.Sub(now), tm.delay))
	}
	return strings.Join(parts, ",")
}

// delays is the pending timers' delays alone, shortest first, as text: the backoff steps the second
// passes to come are at, whatever time is left to them.
func (t *timedClock) delays() string {
	p := t.pending()
	sort.Slice(p, func(i, j int) bool { return p[i].delay < p[j].delay })
	parts := make([]string, 0, len(p))
	for _, tm := range p {
		parts = append(parts, tm.delay.String())
	}
	return strings.Join(parts, ",")
}

// last is the time of the latest pending timer (now: none).
func (t *timedClock) last() time.Time {
	last := t.Now()
	for _, tm := range t.pending() {
		if tm.at.After(last) {
			last = tm.at
		}
	}
	return last
}

// next is the time of the soonest pending timer (false: none).
func (t *timedClock) next() (time.Time, bool) {
	p := t.pending()
	if len(p) == 0 {
		return time.Time{}, false
	}
	return p[0].at, true
}
