package redis

import (
	"context"
	"time"

	"github.com/tairbench/tairbench/internal/engine"
)

// deferringWorker is a raw worker that an open loop can run deferred
// (engine.Deferrer): Start writes the request, Finish reads its replies at
// the worker's next wake, with the kernel's time of their arrival.
type deferringWorker struct {
	*rawWorker
	// rx is the connection's bytes read when the request was sent: its
	// replies' bytes are those read since (by Ready and Finish).
	rx int64
	// untimed: the engine times replies when it reads them (PollFD), so
	// the connection need not note when they arrived.
	untimed bool
}

// Deferrable implements engine.Deferrer: a connection that reads without
// waiting and, unless untimed, notes when its data arrived (plain TCP or
// Unix socket on Linux).
func (w *deferringWorker) Deferrable() bool {
	c := w.links.Direct
	return c != nil && c.EnablePolled(!w.untimed)
}

// Start implements engine.Deferrer: it writes the prepared request, and
// starts counting its replies' bytes and noting their arrival.
func (w *deferringWorker) Start(s *engine.Step) error {
	c := w.links.Direct
	s.Op, s.BytesOut = w.op, len(w.req)
	if err := c.Write(w.req); err != nil {
		w.links.Drop(c)
		return err
	}
	c.ForgetArrival()
	w.rx = c.BytesRead()
	return nil
}

// Finish implements engine.Deferrer: it reads and counts the replies, and
// returns when the last one arrived. Replies that Ready found whole and
// plain are counted as they are (each a command that neither failed nor
// missed) and skipped, not read again one by one.
func (w *deferringWorker) Finish(_ context.Context, s *engine.Step) (time.Time, error) {
	c := w.links.Direct
	var err error
	checked := w.check != nil && w.check.Expects() || w.vals != nil // its replies are read whole
	if n := w.f.Workload.RepliesPerRequest(); w.f.Workload.Mode != Batch && !checked && c.SkipPlain(n) {
		s.Ops += n
	} else {
		err = w.replies(c, s, c.Read(&c.Rep))
	}
	s.BytesIn = int(c.BytesRead() - w.rx)
	if err != nil {
		w.links.Drop(c)
		return time.Time{}, err
	}
	return c.Arrived(), nil
}

// Expire implements engine.Poller: the request got no reply within the
// timeout; its connection is dropped.
func (w *deferringWorker) Expire() error {
	err := w.links.Expire(w.links.Direct)
	return err
}

// Ready implements engine.Poller: it reads what has come of the replies,
// without waiting, and says whether they have all come (Unknown when one
// is larger than the largest read buffer, transport.MaxReadBuffer: reading it may
// wait). A smaller buffer grows to tell them whole.
func (w *deferringWorker) Ready() engine.Readiness {
	c := w.links.Direct
	if c == nil {
		return engine.Arrived
	}
	n := w.f.Workload.RepliesPerRequest()
	for {
		switch {
		case !c.Owed(n):
			return engine.NotYet
		case !c.Spills(n):
			return engine.Arrived
		case !c.GrowFull(): // at most log2(MaxReadBuffer/minReadBuffer) times a connection
			return engine.Unknown
		}
	}
}

// PollFD implements engine.Poller: the connection, reading without
// waiting and noting when its data arrives if arrivals, leaves the
// runtime's poller (Conn.Detach) for the engine's.
func (w *deferringWorker) PollFD(arrivals bool) (int, bool) {
	c := w.links.Direct
	w.untimed = !arrivals
	if c == nil || !c.EnablePolled(arrivals) {
		return -1, false
	}
	return c.Detach(w.links.Ctx)
}
