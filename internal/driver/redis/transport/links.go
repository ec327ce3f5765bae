package transport

import (
	"context"

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
	return c, nil
}

// Drop closes a connection that failed; the next request dials again.
func (l *Links) Drop(c *Conn) {
	if c == nil {
		return
	}
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
