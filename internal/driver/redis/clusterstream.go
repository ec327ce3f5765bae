package redis

import (
	"context"
	"time"

	"github.com/tairbench/tairbench/internal/engine"
)

// In an open loop a cluster window is an engine.RoutedStreamer: the engine
// sends each command at its own intended start once its node's window
// has room (PrepareOne, Room, SendOne), and reads replies as they come,
// from whichever node (Await), each timed from its own command's send and
// intended start.

// Window is how many commands may be in flight on each node's connection.
func (w *clusterWindow) Window() int { return w.n }

// PrepareOne draws the next command for its node (not timed); it waits
// apart until SendOne, so that a redirected command can go meanwhile
// without it.
func (w *clusterWindow) PrepareOne() {
	gen, op, slot, nw := w.drawOne(w.follow())
	w.encode(&w.pend, gen, op, slot)
	w.pendNode = nw
}

// Room says whether the drawn command's node has room for it, after the
// redirected commands already waiting there.
func (w *clusterWindow) Room() bool {
	nw := w.pendNode
	return nw == nil || nw.flying+nw.queued < w.n
}

// SendOne writes the drawn command, and any redirected one waiting before
// it, to its node; s.Intended is its intended start.
func (w *clusterWindow) SendOne(s *engine.Step) error {
	nw := w.pendNode
	w.pendNode = nil
	e := nw.tail()
	e.cmd, w.pend.cmd = w.pend.cmd, e.cmd // the entry takes the buffer; pend keeps the entry's
	e.sent, e.intended, e.op, e.slot, e.hops, e.ask, e.out, e.in = time.Time{}, s.Intended, w.pend.op, w.pend.slot, 0, false, 0, 0
	w.queue(nw)
	s.Op = e.op
	return w.flush(nw, s)
}

// Await reads the next reply to come, from any node, by until when it is
// not zero (false: none came by then); s gets its command's Sent and
// Intended. A redirected command goes again at once, when its new node
// has room.
func (w *clusterWindow) Await(ctx context.Context, until time.Time, s *engine.Step) (bool, error) {
	for {
		if err := w.flushAll(s); err != nil { // what waits (rerouted, redirected) goes first
			return false, err
		}
		nw := w.nextBy(ctx, until)
		if nw == nil {
			return false, nil
		}
		intended := nw.at(0).intended
		done, err := w.readOne(nw, s)
		if err != nil {
			return false, err
		}
		if done {
			s.Intended = intended
			return true, nil
		}
	}
}

// flushAll sends every node's waiting commands that fit its window.
func (w *clusterWindow) flushAll(s *engine.Step) error {
	for _, nw := range w.wins {
		if err := w.flush(nw, s); err != nil {
			return err
		}
	}
	return nil
}

// InFlight is how many commands were sent and await their replies (a
// redirected one waiting to go again included).
func (w *clusterWindow) InFlight() int {
	n := 0
	for _, nw := range w.wins {
		n += nw.load()
	}
	return n
}
