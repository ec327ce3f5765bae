package transport

import (
	"context"
	"fmt"
	"time"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
)

// Links is one worker's connections and their life-cycle, the same for
// every RESP worker (the raw, slot-aware and YCSB workers): an address is
// dialled on first use and again after a loss, logging in as Dial does
// (AUTH or HELLO, SELECT, TLS); a failed dial is an engine.ConnectError, so
// that the engine counts a failed connect rather than a lost request, backs
// off and accounts the time the target was unreachable; a connection that
// failed mid-request is closed and forgotten (Drop).
type Links struct {
	Ctx context.Context
	// t is shared by every worker of the run (a copy each would cost 160
	// bytes a connection); it does not change while they run.
	t *endpoint.Target
	// hub, when set, ends the connections' waits at ctx's end (one hook
	// for the run's connections, not one each).
	hub *StopHub
	// Direct is the connection to t.Addr, kept apart so that a standalone
	// worker's request finds it without a map lookup.
	Direct *Conn
	nodes  map[string]*Conn
	// OnDialFail, when set, is called after a failed dial (a cluster
	// reloads its slot map).
	OnDialFail func()
	// yield, when set, is what every connection's waits call at the end
	// of each of the engine's intervals (YieldTo).
	yield func(time.Time) time.Time
	// dropped counts the connections dropped and not yet made again;
	// redials those made again since the last Redials.
	dropped, redials int
}

// NewLinks returns the life-cycle of connections to t's address (and, for
// a cluster, to its nodes) for a worker whose run context is ctx. t is
// kept, not copied: it must not change while the links are in use. hub
// (nil: none) is shared by the run's workers (StopHubs.For(ctx)).
func NewLinks(ctx context.Context, t *endpoint.Target, hub *StopHub) *Links {
	return &Links{Ctx: ctx, t: t, hub: hub}
}

// Main returns the connection to the target's own address, dialling it
// when there is none.
func (l *Links) Main() (*Conn, error) {
	if l.Direct != nil {
		return l.Direct, nil
	}
	c, err := l.dial(*l.t)
	if err != nil {
		return nil, err
	}
	l.Direct = c
	return c, nil
}

// To returns the connection to addr (a cluster node), dialling it the
// first time and after a Drop.
func (l *Links) To(addr string) (*Conn, error) {
	if c := l.nodes[addr]; c != nil {
		return c, nil
	}
	t := *l.t
	t.Addr = addr
	c, err := l.dial(t)
	if err != nil {
		return nil, err
	}
	if l.nodes == nil {
		l.nodes = map[string]*Conn{}
	}
	l.nodes[addr] = c
	return c, nil
}

func (l *Links) dial(t endpoint.Target) (*Conn, error) {
	c, err := dial(l.Ctx, t, l.hub)
	if err != nil {
		if l.OnDialFail != nil {
			l.OnDialFail()
		}
		return nil, &engine.ConnectError{Err: err}
	}
	if l.yield != nil {
		c.YieldTo(l.yield)
	}
	if l.dropped > 0 {
		l.dropped--
		l.redials++
	}
	return c, nil
}

// Redials implements engine.Redialer: the connections made again after a
// Drop since the last call.
func (l *Links) Redials() int {
	n := l.redials
	l.redials = 0
	return n
}

// YieldTo implements engine.Yielder for the worker whose connections
// these are: their waits for replies yield at the end of each of the
// engine's intervals, those dialled later too.
func (l *Links) YieldTo(yield func(time.Time) time.Time) {
	l.yield = yield
	if l.Direct != nil {
		l.Direct.YieldTo(yield)
	}
	for _, c := range l.nodes {
		c.YieldTo(yield)
	}
}

// Drop closes a connection that failed; the next request dials again.
func (l *Links) Drop(c *Conn) {
	if c == nil {
		return
	}
	l.dropped++
	if l.Direct == c {
		l.Direct = nil
	}
	for a, x := range l.nodes {
		if x == c {
			delete(l.nodes, a)
		}
	}
	_ = c.Close()
}

// Expire drops c, whose request got no reply within the target's timeout
// (the engine waited for it), and returns that request's error.
func (l *Links) Expire(c *Conn) error {
	err := fmt.Errorf("read: %w", &TimeoutError{After: l.t.RequestTimeout()})
	l.Drop(c)
	return err
}

// Close closes every connection.
func (l *Links) Close() error {
	var first error
	if l.Direct != nil {
		first = l.Direct.Close()
		l.Direct = nil
	}
	for a, c := range l.nodes {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
		delete(l.nodes, a)
	}
	return first
}
