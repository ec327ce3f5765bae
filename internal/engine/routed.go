package engine

import "time"

// RoutedStreamer is a Streamer over several connections, each with a
// window of its own (a cluster's nodes, one per slot range): the command
// PrepareOne rendered goes at its intended start when its connection's
// window has room, and Await reads whichever reply comes first, giving
// back in the Step the Sent and Intended of the command it answers, since
// replies come back in order on each connection but not across them.
type RoutedStreamer interface {
	Streamer
	// Room says whether the command PrepareOne rendered can go now.
	Room() bool
	// InFlight is how many commands sent await their replies.
	InFlight() int
}

// runRouted is the open loop of a RoutedStreamer: each command goes at its
// intended start once its connection has room (else it waits for replies
// until it has, and goes late, behind); replies are read as they come
// until then. When the schedule or the budget ends, the replies still in
// flight are read and recorded.
func (l *loop) runRouted(s RoutedStreamer) {
	r := l.r
	// held is when the last wait for room ended: a send late by then was
	// held up by the server (this command's node, or an earlier one's).
	var held time.Time
	for r.ctx.Err() == nil && !r.finishing.Load() {
		due, ok := l.nextDue()
		if !ok {
			break
		}
		s.PrepareOne()
		for !s.Room() {
			if got, ok := l.awaitRouted(s, time.Time{}); !ok {
				return
			} else if got {
				held = l.prevDone
			}
		}
		at := r.begin.Add(due)
		for s.InFlight() > 0 && r.now().Before(at) {
			got, ok := l.awaitRouted(s, at)
			if !ok {
				return
			}
			if !got {
				break
			}
		}
		if s.InFlight() == 0 && !l.sleepUntil(due) {
			return
		}
		l.sent++
		if !l.sendRouted(s, at, held) {
			return
		}
	}
	for s.InFlight() > 0 && r.ctx.Err() == nil {
		if _, ok := l.awaitRouted(s, time.Time{}); !ok {
			return
		}
	}
}

// sendRouted sends the command PrepareOne rendered, due at intended; late
// and held up by a wait for room that ended after its start, it counts
// behind. False when the loop should end.
func (l *loop) sendRouted(s RoutedStreamer, intended, held time.Time) bool {
	now := l.r.now()
	l.intended, l.prevDone = intended, held
	l.noteLate(intended, now)
	l.st = Step{Intended: intended}
	if err := s.SendOne(&l.st); err != nil {
		return l.failed(err, time.Now())
	}
	return true
}

// awaitRouted reads a reply if one comes by until (zero: whenever it
// comes; got says it did) and records it from its own command's send and
// intended start; ok is false when the loop should end.
func (l *loop) awaitRouted(s RoutedStreamer, until time.Time) (got, ok bool) {
	r := l.r
	l.st = Step{}
	got, err := s.Await(r.ctx, until, &l.st)
	t1 := l.replyTime()
	if err != nil {
		return false, l.failed(err, t1)
	}
	if !got {
		return false, true
	}
	l.intended = l.st.Intended
	return true, l.replied(l.st.Sent, t1)
}
