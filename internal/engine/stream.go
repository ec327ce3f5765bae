package engine

import (
	"context"
	"time"
)

// Streamer is a window pipeline that can also run an open loop: each
// command goes at its own intended start while up to Window earlier ones
// await their replies, which come back in order. The engine keeps each
// command's intended start and send time, so that every reply is timed
// from its own command's (service and corrected latency), not from the
// command that happened to free its slot.
type Streamer interface {
	Worker
	// Window is how many commands may be in flight at once.
	Window() int
	// PrepareOne renders the next command for SendOne (not timed).
	PrepareOne()
	// SendOne writes the command PrepareOne rendered and returns without
	// reading. On failure it sets Step.Lost to the commands lost with the
	// connection, this one included.
	SendOne(s *Step) error
	// Await reads the oldest command's reply and fills s as Exec does,
	// waiting for it as long as the connection's timeout allows or, when
	// until is not zero, until then: false (and nil) when it had not come
	// by then. On failure it sets Step.Lost to the commands lost.
	Await(ctx context.Context, until time.Time, s *Step) (bool, error)
}

// StreamPoller is a Streamer whose connection can be waited on: the
// engine then waits for a reply and for the next command's start together,
// the start to the microsecond (on Linux; elsewhere Await waits).
type StreamPoller interface {
	Streamer
	// FD is the connection's descriptor, which the engine only waits on
	// (false: none, as over TLS or before a connection).
	FD() (int, bool)
	// Buffered says that data was read and not yet taken: Await then reads
	// from it without waiting on the descriptor.
	Buffered() bool
}

// flight is a command in flight: when it was due and when it went.
type flight struct{ intended, sent time.Time }

// stream is the ring of a Streamer's commands in flight, oldest at head.
type stream struct {
	ring    []flight
	head, n int
	// freed is when a full window's oldest reply came, freeing the slot
	// the next command waited for (zero: it did not wait).
	freed time.Time
	// poller and wt, when set, wait for a reply and a start together.
	poller StreamPoller
	wt     *waiter
}

// forget makes the waiter take the connection's descriptor anew: after a
// failure the connection is made again, perhaps under the same number.
func (st *stream) forget() {
	if st.wt != nil {
		st.wt.forget()
	}
}

// runStream is the open loop of a window pipeline: it reads replies as
// they come until the next command is due, sends it on time while the
// window has room, and otherwise waits for the oldest reply (the next
// command then goes late, behind). When the schedule or the budget ends,
// the replies still in flight are read and recorded; drain takes what is
// left when the run ended under them.
func (l *loop) runStream(s Streamer) {
	r := l.r
	st := &stream{ring: make([]flight, max(s.Window(), 1))}
	if p, ok := s.(StreamPoller); ok && r.beginMono != 0 {
		if st.wt = newWaiter(); st.wt != nil {
			st.poller = p
			defer st.wt.close()
		}
	}
	for r.ctx.Err() == nil && !r.finishing.Load() {
		if st.n == len(st.ring) {
			if !l.await(s, st, time.Time{}) {
				return
			}
			continue
		}
		due, ok := l.nextDue()
		if !ok {
			break
		}
		if !l.awaitDue(s, st, due) {
			return
		}
		l.sent++
		if !l.sendOne(s, st, r.begin.Add(due)) {
			return
		}
	}
	for st.n > 0 && r.ctx.Err() == nil {
		if !l.await(s, st, time.Time{}) {
			return
		}
	}
}

// nextDue claims the next command and returns its intended start (an
// offset from the run's begin); false when the budget or the schedule
// ended (the latter finishes the run: nothing more is scheduled in it).
func (l *loop) nextDue() (time.Duration, bool) {
	if !l.claim() {
		return 0, false
	}
	k := uint64(l.sent)
	if _, stop := l.pacer.Pace(0, k); stop {
		return 0, false // its schedule is over; the others send theirs
	}
	return l.pacer.Due(k), true
}

// awaitDue reads the replies that come before the command due at due (an
// offset from the run's begin), and sleeps until then when none is in
// flight (the window has room: reads only free it). False when the run
// ended.
func (l *loop) awaitDue(s Streamer, st *stream, due time.Duration) bool {
	r := l.r
	at := r.begin.Add(due)
	for st.n > 0 {
		if !r.now().Before(at) {
			return true
		}
		got, ok := l.awaitOne(s, st, at)
		if !ok || !got {
			return ok
		}
	}
	if st.n == 0 {
		return l.sleepRest(st, due)
	}
	return true
}

// sleepRest sleeps until due once the window emptied. When its waiter's
// timer is already armed for due (the last reply came during that wait),
// it waits on that timer, whose expiry would otherwise wake the process
// for nothing; data with nothing in flight (a push, a close) ends that
// wait early, and the sleep goes on as usual.
func (l *loop) sleepRest(st *stream, due time.Duration) bool {
	r := l.r
	if st.poller != nil && st.wt.pending(r.beginMono+int64(due)) {
		if fd, ok := st.poller.FD(); ok {
			_, _ = st.wt.until(fd, r.beginMono+int64(due))
		}
	}
	return l.sleepUntil(due) // at once when due has come
}

// sendOne sends the next command, due at intended, and notes it in flight;
// false when the loop should end.
func (l *loop) sendOne(s Streamer, st *stream, intended time.Time) bool {
	s.PrepareOne()
	now := l.r.now()
	l.intended, l.prevDone = intended, st.freed
	l.noteLate(intended, now)
	st.freed = time.Time{}
	l.st = Step{}
	if err := s.SendOne(&l.st); err != nil {
		return l.lostStream(st, err, time.Now())
	}
	st.ring[(st.head+st.n)%len(st.ring)] = flight{intended: intended, sent: now}
	st.n++
	return true
}

// await reads the oldest reply, waiting as long as it takes; a full window
// notes when it freed a slot. False when the loop should end.
func (l *loop) await(s Streamer, st *stream, until time.Time) bool {
	full := st.n == len(st.ring)
	var got, ok bool
	if until.IsZero() {
		got, ok = l.awaitLong(s, st)
	} else {
		got, ok = l.awaitOne(s, st, until)
	}
	if got && full {
		st.freed = l.prevDone
	}
	return ok
}

// awaitLong waits for the oldest reply as long as it takes, an interval
// at a time: at each interval's end without it, the interval's recordings
// go to the aggregator, so that its line has them.
func (l *loop) awaitLong(s Streamer, st *stream) (got, ok bool) {
	now := l.r.now()
	l.rec.FlushIfDue(now)
	for step := l.r.agg.IntervalEnd(now); ; step = step.Add(l.r.cfg.Tick) {
		if got, ok = l.awaitOne(s, st, step); got || !ok {
			return got, ok
		}
		l.rec.FlushIfDue(step)
	}
}

// awaitOne reads the oldest reply if it comes by until (zero: whenever it
// comes; got says it did) and records it from its own command's send and
// intended start; ok is false when the loop should end.
func (l *loop) awaitOne(s Streamer, st *stream, until time.Time) (got, ok bool) {
	l.st = Step{}
	ok, err := l.awaitReply(s, st, until)
	t1 := l.replyTime()
	if err != nil {
		return false, l.lostStream(st, err, t1)
	}
	if !ok {
		return false, true
	}
	f := st.ring[st.head]
	st.head, st.n = (st.head+1)%len(st.ring), st.n-1
	l.intended, l.st.Sent = f.intended, f.sent
	return true, l.replied(f.sent, t1)
}

// lostStream counts the failure of a connection with the window's commands
// on it (Step.Lost) and empties the ring; false when the loop should end.
func (l *loop) lostStream(st *stream, err error, t1 time.Time) bool {
	st.head, st.n = 0, 0
	st.forget() // made again, perhaps under the same descriptor
	ok := l.failed(err, t1)
	st.freed = l.prevDone // the failure's back-off held up what fell due
	return ok
}

// waitStage is how long before a start the wait for a reply leaves Go's
// timers (a read deadline, up to a millisecond late) for the waiter.
const waitStage = 2 * time.Millisecond

// awaitReply is s.Await, made precise where the connection can be waited
// on: up to waitStage before until, a read deadline ends the wait for a
// reply; from there the waiter, which wakes at the reply or at until to
// the microsecond.
func (l *loop) awaitReply(s Streamer, st *stream, until time.Time) (bool, error) {
	r, p := l.r, st.poller
	if until.IsZero() || p == nil {
		return s.Await(r.ctx, until, &l.st)
	}
	if stage := until.Add(-waitStage); r.now().Before(stage) {
		if got, err := s.Await(r.ctx, stage, &l.st); got || err != nil {
			return got, err
		}
	}
	fd, ok := p.FD()
	if p.Buffered() || !ok {
		return s.Await(r.ctx, until, &l.st)
	}
	readable, err := st.wt.until(fd, r.beginMono+int64(until.Sub(r.begin)))
	switch {
	case err != nil:
		return s.Await(r.ctx, until, &l.st) // the deadline's precision, then
	case !readable:
		return false, nil
	}
	return s.Await(r.ctx, time.Time{}, &l.st)
}
