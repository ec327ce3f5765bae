package redis

import (
	"context"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/engine"
)

// windowWorker keeps N commands in flight on its connection, as
// memtier_benchmark's --pipeline does: each Exec reads one reply, whose
// latency runs from its own command's send to the read that brought the
// reply in (Conn.ReadStamped), after sending what Prepare
// rendered to fill the window again. It drains the window's tail
// when the run ends, and stops sending at the workload's WindowLimit.
// In an open loop it is an engine.Streamer: the engine sends each command
// at its own intended start (PrepareOne, SendOne) while up to N are in
// flight, and reads their replies as they come (Await).
type windowWorker struct {
	*rawWorker
	ring      []windowSlot // commands in flight, oldest at head
	head, n   int
	queued    []windowSlot // the commands rendered but not sent (no send time yet)
	sentTotal int64
}

// windowSlot is one command: when it went, its operation, and its own
// bytes, which its reply's Step carries (a refill's write and a read of
// several replies are shared out command by command, as memtier counts
// them).
type windowSlot struct {
	sent time.Time
	op   int
	out  int
}

func newWindowWorker(raw *rawWorker) *windowWorker {
	return &windowWorker{rawWorker: raw, ring: make([]windowSlot, raw.f.Workload.N),
		queued: make([]windowSlot, 0, raw.f.Workload.N)}
}

// StampsSends implements engine.SendStamper: every reply Exec counts
// carries its own command's send time.
func (*windowWorker) StampsSends() {}

var _ engine.SendStamper = (*windowWorker)(nil)

// Prepare renders the commands that refill the window (outside the timed region).
func (w *windowWorker) Prepare() {
	want := len(w.ring) - w.n - len(w.queued)
	if lim := w.f.Workload.WindowLimit; lim > 0 {
		want = min(want, int(lim-w.sentTotal)-len(w.queued))
	}
	if len(w.queued) == 0 {
		w.req = w.req[:0]
	}
	for ; want > 0; want-- {
		op, at := w.pick.pick(), len(w.req)
		w.req = w.gens[op].AppendRESP(w.req)
		w.queued = append(w.queued, windowSlot{op: op, out: len(w.req) - at})
	}
}

// Exec sends the rendered commands and reads the oldest reply.
func (w *windowWorker) Exec(ctx context.Context, s *engine.Step) error {
	c, err := w.links.Main()
	if err != nil {
		return err
	}
	// Replies already read into the buffer are taken first, and the
	// commands that refill the window go in one write once it is empty, as
	// an event loop (memtier's) reads all that arrived, then writes.
	// Each command's latency runs from before the write, as a single
	// command's does (the write is part of what the command waits for).
	// They are in flight from there: lost with the connection if it fails.
	if len(w.queued) > 0 && (w.n == 0 || c.Buffered() == 0) {
		now := time.Now()
		for _, q := range w.queued {
			q.sent = now
			w.ring[(w.head+w.n)%len(w.ring)] = q
			w.n++
		}
		w.sentTotal += int64(len(w.queued))
		w.queued = w.queued[:0]
		err := c.Write(w.req)
		w.req = w.req[:0]
		if err != nil {
			return w.lost(c, s, err)
		}
	}
	if w.n == 0 {
		return engine.ErrDone // the limit is sent and every reply read
	}
	rx := c.Consumed()
	done, err := c.ReadStamped(&c.Rep)
	if err != nil {
		return w.lost(c, s, err)
	}
	s.Done = done
	countReply(s, &c.Rep, &w.errBuf)
	slot := w.ring[w.head]
	w.head, w.n = (w.head+1)%len(w.ring), w.n-1
	s.Sent, s.Op = slot.sent, slot.op
	s.BytesOut, s.BytesIn = slot.out, int(c.Consumed()-rx)
	return nil
}

// lost drops the connection: every command in flight is lost with it.
func (w *windowWorker) lost(c *transport.Conn, s *engine.Step, err error) error {
	s.Lost = max(w.n, 1)
	w.n, w.head = 0, 0
	w.queued, w.req = w.queued[:0], w.req[:0]
	w.links.Drop(c)
	return err
}

// Drain reads the replies still in flight when the run ended.
func (w *windowWorker) Drain(ctx context.Context, s *engine.Step) error {
	if w.n == 0 {
		return nil
	}
	c, err := w.links.Main()
	if err != nil {
		s.Lost = w.n
		return err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.NetConn.SetReadDeadline(time.Now()) })
	defer stop()
	for w.n > 0 {
		err := ctx.Err()
		if err == nil {
			err = c.Read(&c.Rep)
		}
		if err != nil {
			s.Lost = w.n
			w.n = 0
			w.links.Drop(c)
			return err
		}
		countReply(s, &c.Rep, &w.errBuf)
		w.head, w.n = (w.head+1)%len(w.ring), w.n-1
	}
	return nil
}

// Window is how many commands may be in flight (engine.Streamer).
func (w *windowWorker) Window() int { return len(w.ring) }

// PrepareOne renders one command (engine.Streamer).
func (w *windowWorker) PrepareOne() {
	op := w.pick.pick()
	w.req = w.gens[op].AppendRESP(w.req[:0])
	w.queued = append(w.queued[:0], windowSlot{op: op, out: len(w.req)})
}

// SendOne writes the command PrepareOne rendered (engine.Streamer).
func (w *windowWorker) SendOne(s *engine.Step) error {
	c, err := w.links.Main()
	if err != nil {
		s.Lost = w.n // the connection was lost earlier with them
		w.n, w.head = 0, 0
		return err
	}
	q := w.queued[0]
	w.ring[(w.head+w.n)%len(w.ring)] = q
	w.n++ // in flight: lost with the connection if the write fails
	s.Op = q.op
	if err := c.Write(w.req); err != nil {
		return w.lost(c, s, err)
	}
	w.sentTotal++
	w.queued, w.req = w.queued[:0], w.req[:0]
	return nil
}

// Await reads the oldest command's reply, by until when it is not zero
// (engine.Streamer).
func (w *windowWorker) Await(ctx context.Context, until time.Time, s *engine.Step) (bool, error) {
	c, err := w.links.Main()
	if err != nil {
		s.Lost = w.n
		w.n, w.head = 0, 0
		return false, err
	}
	if !until.IsZero() {
		came, err := c.WaitUntil(ctx, until)
		if err != nil {
			return false, w.lost(c, s, err)
		}
		if !came {
			return false, nil
		}
	}
	rx := c.Consumed()
	done, err := c.ReadStamped(&c.Rep)
	if err != nil {
		return false, w.lost(c, s, err)
	}
	s.Done = done
	countReply(s, &c.Rep, &w.errBuf)
	slot := w.ring[w.head]
	s.Op, s.BytesOut, s.BytesIn = slot.op, slot.out, int(c.Consumed()-rx)
	w.head, w.n = (w.head+1)%len(w.ring), w.n-1
	return true, nil
}

// FD is the connection's descriptor, for the engine to wait on beside a
// timer (engine.StreamPoller); false over TLS or with no connection.
func (w *windowWorker) FD() (int, bool) {
	if c := w.links.Direct; c != nil {
		return c.FD()
	}
	return -1, false
}

// Buffered says that replies, or part of one, were read and not yet taken
// (engine.StreamPoller).
func (w *windowWorker) Buffered() bool {
	c := w.links.Direct
	return c != nil && c.Buffered() > 0
}
