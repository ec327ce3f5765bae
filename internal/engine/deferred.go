package engine

import (
	"context"
	"time"
)

// collectAfter bounds how long a deferring worker leaves a reply unread
// when its next request is far off: the reply's arrival time is the
// kernel's either way, but the per-second series is closed soon after
// each second.
const collectAfter = 20 * time.Millisecond

// Deferrer is a worker that can send a request and read its replies later,
// learning when each arrived from the operating system (the kernel's
// receive timestamp), so that the open loop need not wake for every reply:
// a worker wakes once per request, at its intended start (on the run's
// send grid, where every worker due in the same tick wakes together),
// reads the previous request's replies (already there, most of the time)
// and sends the next. Latency is exact all the same: the service time runs
// from the send to the reply's arrival, the corrected one from the
// request's own intended start.
type Deferrer interface {
	Worker
	// Deferrable says whether the request Prepare just built can go
	// through Start and Finish (false: Exec sends it and waits).
	Deferrable() bool
	// Start writes the prepared request and returns without reading.
	Start(s *Step) error
	// Finish reads every reply of the request Start sent, waiting for
	// those not yet come, fills s as Exec does, and returns when the last
	// one arrived by the kernel's clock (zero when it cannot tell).
	Finish(ctx context.Context, s *Step) (time.Time, error)
}

// Poller is a Deferrer whose connection can be waited on: the engine runs
// a send grid's Pollers in groups (one goroutine each, group_linux.go),
// which sleep once per tick for all their workers and wait on a descriptor
// only for a reply not come by its worker's next tick.
type Poller interface {
	Deferrer
	// Ready reads, without waiting, what has come of the started request's
	// replies and says whether they have all come.
	Ready() Readiness
	// PollFD is the descriptor that becomes readable when replies come,
	// for the engine alone to wait on: nothing else may wait on it (the Go
	// runtime's poller would wake at every reply). False: none (the
	// workers then run on their own). arrivals says whether the engine
	// uses Finish's arrival time; without it (a closed loop times a reply
	// when it reads it) the worker need not ask the kernel for one.
	PollFD(arrivals bool) (int, bool)
	// Expire gives up the started request, whose replies did not come
	// within the run's RequestTimeout: it drops the connection (the next
	// request dials again) and returns the error to count the request
	// lost with.
	Expire() error
}

// Readiness is what a Poller's Ready found of its started request's replies.
type Readiness uint8

const (
	// NotYet: not all have come; the descriptor becomes readable as more does.
	NotYet Readiness = iota
	// Arrived: all have come (or the connection failed): Finish reads them
	// without waiting.
	Arrived
	// Unknown: it cannot tell (a reply larger than the read buffer):
	// Finish may wait for the rest.
	Unknown
)

// runDeferred is the open loop of a Deferrer: it wakes at each request's
// tick, finishes the previous request, prepares and starts the next.
func (l *loop) runDeferred(d Deferrer) {
	r := l.r
	defer func() {
		if l.pending {
			l.finishPending(d)
		}
	}()
	for r.ctx.Err() == nil && !r.finishing.Load() {
		if !l.claim() {
			return
		}
		k := uint64(l.sent)
		if _, stop := l.pacer.Pace(0, k); stop {
			return // this worker's schedule is over; the others send theirs
		}
		due := l.pacer.Due(k)
		if l.pastEnd(due) {
			return // its tick is at or after the run's end
		}
		if !l.awaitTick(d, due) {
			return
		}
		l.sent++
		l.intended = r.begin.Add(due)
		l.w.Prepare()
		now := r.now()
		l.noteLate(r.begin.Add(l.grid(due)), now)
		if !d.Deferrable() {
			if !l.exec() {
				return
			}
			continue
		}
		l.st = Step{}
		if err := d.Start(&l.st); err != nil {
			if !l.failed(err, time.Now()) {
				return
			}
			continue
		}
		l.t0, l.pending = now, true
	}
}

// awaitTick waits for the tick of the request due at due (an offset from
// the run's begin), finishing the pending request on the way: at that
// tick, or earlier when the tick is more than collectAfter past its send.
// False when the run ended.
func (l *loop) awaitTick(d Deferrer, due time.Duration) bool {
	r := l.r
	tick := l.grid(due)
	for {
		wake := tick
		if l.pending {
			if collect := l.grid(l.t0.Sub(r.begin) + collectAfter); collect < wake {
				wake = collect
			}
		}
		if !l.sleepUntil(wake) {
			return false
		}
		if l.pending && !l.finishPending(d) {
			return false
		}
		if wake >= tick {
			return true
		}
	}
}

// grid rounds an offset from the run's begin up to the send grid (none:
// each request at its own start).
// pastEnd says that a request due at due would go at or after the run's
// end (on the grid, its tick may be later than its intended start).
func (l *loop) pastEnd(due time.Duration) bool {
	return l.r.end > 0 && l.grid(due) >= l.r.end
}

// scheduleEnd is the end of what the run schedules: the run's end, or, on
// a grid, just after the last intended start whose tick is before it.
func (l *loop) scheduleEnd() time.Duration {
	g, end := l.r.cfg.SendGrid, l.r.end
	if g <= 0 || !l.r.deferred {
		return end
	}
	return ((end+g-1)/g-1)*g + 1
}

func (l *loop) grid(at time.Duration) time.Duration {
	g := l.r.cfg.SendGrid
	if g <= 0 {
		return at
	}
	return (at + g - 1) / g * g
}

// sleepUntil sleeps until at (an offset from the run's begin): on a Go
// timer until 2 ms before, then on the worker's timerfd armed at at's
// absolute time; false when the run ended.
func (l *loop) sleepUntil(at time.Duration) bool {
	r := l.r
	wait := at - time.Since(r.begin)
	if wait <= 0 {
		return r.ctx.Err() == nil
	}
	precise := l.sleeper != nil && r.beginMono != 0
	if wait > 2*time.Millisecond || !precise {
		if precise {
			wait -= 2 * time.Millisecond
		}
		l.timer.Reset(wait)
		select {
		case <-l.timer.C:
		case <-r.ctx.Done():
			return false
		case <-r.halt:
			return false // runDeferred still reads a request in flight
		}
	}
	if precise && !l.sleeper.sleepUntil(r.beginMono+int64(at)) {
		if rest := at - time.Since(r.begin); rest > 0 {
			time.Sleep(rest)
		}
	}
	return r.ctx.Err() == nil
}

// finishPending reads the pending request's replies and records them;
// false when the loop should end.
func (l *loop) finishPending(d Deferrer) bool {
	l.pending = false
	t1, err := d.Finish(l.r.ctx, &l.st)
	now := time.Now()
	if err != nil {
		return l.failed(err, now)
	}
	return l.replied(l.t0, arrival(t1, now))
}

// arrival is when a reply read at now arrived, by the kernel's time t1 (zero:
// unknown), on the monotonic clock.
func arrival(t1, now time.Time) time.Time {
	if t1.IsZero() || t1.After(now) {
		return now
	}
	return now.Add(t1.Sub(now))
}

// noteLate records a request sent more than lateAfter after its tick (its
// intended start, or on a send grid the tick it waits for by design):
// behind when the previous reply held it up past the tick, the client's
// lag otherwise. The lateness recorded runs from the intended start.
func (l *loop) noteLate(tick, sent time.Time) {
	if sent.Sub(tick) <= lateAfter {
		return
	}
	late := sent.Sub(l.intended)
	if l.prevDone.Sub(tick) > lateAfter {
		l.rec.Behind(l.intended, late, l.intended.Before(l.downUntil))
	} else {
		l.rec.ClientLag(sent, late)
	}
}
