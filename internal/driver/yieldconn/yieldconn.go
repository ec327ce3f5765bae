// Package yieldconn wraps a worker's network connection so that a read
// waiting for a reply stops at the end of each of the engine's intervals,
// lets the worker hand over what it recorded (engine.Yielder) and goes on
// waiting, up to the caller's own deadline. It serves the drivers whose
// reads happen inside a library (go-redis, fasthttp): the library sees one
// read that waits, as before, and the run's live line for the interval
// holds what the worker recorded in it.
package yieldconn

import (
	"errors"
	"net"
	"os"
	"syscall"
	"time"
)

// Yield is one worker's hand-over: the engine's yield function and the
// end of the interval it waits for. A worker's connections (the first and
// those made again) share it; they are read on the worker's goroutine
// only, so it needs no lock.
type Yield struct {
	fn func(time.Time) time.Time
	at time.Time
}

// Set gives the worker's yield function (engine.Yielder's YieldTo):
// reads of the wrapped connections call it at each interval's end.
func (y *Yield) Set(fn func(time.Time) time.Time) {
	y.fn = fn
	if fn != nil {
		y.at = fn(time.Now())
	}
}

// Wrap returns nc with its reads yielding at interval ends. The result
// offers syscall.Conn when nc does (a pool's health check peeks at the
// socket through it), and NetConn, the connection it wraps.
func (y *Yield) Wrap(nc net.Conn) net.Conn {
	c := &Conn{Conn: nc, y: y}
	if sc, ok := nc.(syscall.Conn); ok {
		return &sysConn{Conn: c, sc: sc}
	}
	return c
}

// Conn is a connection whose reads yield at interval ends.
type Conn struct {
	net.Conn
	y *Yield
	// deadline is the caller's read deadline; set is the one last given
	// to the connection (the earlier of it and the interval's end).
	deadline, set time.Time
}

// NetConn returns the connection c wraps.
func (c *Conn) NetConn() net.Conn { return c.Conn }

// SetReadDeadline records the caller's deadline; the connection's own
// stops at the interval's end when that comes first.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.deadline = t
	if c.y.fn == nil {
		c.set = t
		return c.Conn.SetReadDeadline(t)
	}
	return c.arm()
}

// SetDeadline sets the write deadline and the read deadline as
// SetReadDeadline does.
func (c *Conn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.SetReadDeadline(t)
}

// arm gives the connection the earlier of the caller's deadline and the
// interval's end, when it is not the one it has.
func (c *Conn) arm() error {
	d := c.y.at
	if !c.deadline.IsZero() && c.deadline.Before(d) {
		d = c.deadline
	}
	if d.Equal(c.set) {
		return nil
	}
	c.set = d
	return c.Conn.SetReadDeadline(d)
}

// Read reads as the connection does; a wait that reaches the interval's
// end before the caller's deadline calls the worker's yield and goes on.
func (c *Conn) Read(p []byte) (int, error) {
	y := c.y
	if y.fn == nil {
		return c.Conn.Read(p)
	}
	for {
		if err := c.arm(); err != nil {
			return 0, err
		}
		n, err := c.Conn.Read(p)
		if n > 0 || err == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		now := time.Now()
		if now.Before(y.at) || !c.deadline.IsZero() && !now.Before(c.deadline) {
			return n, err // the caller's own deadline
		}
		y.at = y.fn(now)
	}
}

// sysConn is a Conn over a connection that offers its socket.
type sysConn struct {
	*Conn
	sc syscall.Conn
}

// SyscallConn returns the socket of the wrapped connection.
func (c *sysConn) SyscallConn() (syscall.RawConn, error) { return c.sc.SyscallConn() }
