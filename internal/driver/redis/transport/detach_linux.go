package transport

import (
	"context"
	"io"
	"net"
	"net/netip"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Detach takes the connection out of the Go runtime's poller and returns
// its descriptor, for an engine group that waits on it in an epoll set of
// its own: a socket in the runtime's poller wakes the runtime each time
// data comes, whether or not anything waits for it, and a send grid's
// replies are read at the next tick, not when they come. A connection
// dialled outside the poller (dialRaw: plain TCP) is taken as it is. One
// that net dialled (a Unix socket) lives on in a duplicate descriptor; the
// runtime's is closed (no FIN is sent: the socket is still open). Reads
// and writes then go to the descriptor directly; a read or write that must
// wait parks in Go's poller, on a second duplicate made at the
// connection's first wait (or polls it, poll(2) bounded so that a deadline
// set meanwhile is seen, when that cannot be made). From then on ctx's
// end, not Dial's, ends them. False
// (and nothing changed) for a TLS connection or when the descriptor
// cannot be duplicated.
func (c *Conn) Detach(ctx context.Context) (int, bool) {
	if c.rx.raw == nil {
		return -1, false
	}
	if fc, ok := c.NetConn.(*fdConn); ok {
		if !c.stopsOn(ctx) { // Dial's stop already ends fc's waits on ctx
			c.stopOn(ctx, c.hub, fc)
		}
		return fc.fd, true
	}
	dup, derr := -1, error(nil)
	if err := c.rx.raw.Control(func(fd uintptr) { dup, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil || derr != nil {
		return -1, false
	}
	if err := unix.SetNonblock(dup, true); err != nil {
		_ = unix.Close(dup)
		return -1, false
	}
	fc := &fdConn{fd: dup, laddr: c.NetConn.LocalAddr(), raddr: c.NetConn.RemoteAddr()}
	fc.readFn, fc.writeFn = fc.readStep, fc.writeStep
	_ = c.NetConn.Close()
	c.NetConn, c.rx.Conn, c.rx.raw, c.Deadline = fc, fc, fdRaw{fc}, time.Time{}
	c.stopOn(ctx, c.hub, fc)
	return dup, true
}

// fdConn is a connection on a non-blocking descriptor outside the
// runtime's poller (Conn.Detach).
type fdConn struct {
	fd           int
	laddr, raddr net.Addr
	// peer is the address dialRaw connected to (raddr is made from it when
	// asked for); dialing makes waits poll rather than park until the
	// login is done (loggedIn), so that a grouped connection never has a
	// duplicate in Go's poller.
	peer    netip.AddrPort
	dialing bool
	// rdl and wdl are the read and write deadlines (Unix ns, 0: none).
	rdl, wdl atomic.Int64
	closed   atomic.Bool
	// pfd is poll(2)'s argument, kept here so that a wait does not
	// allocate (a connection's reads and writes come from one goroutine).
	pfd [1]unix.PollFd
	// parked is the descriptor's duplicate in Go's poller, made at the
	// connection's first wait (nil before it, or when it cannot be made).
	parked atomic.Pointer[parker]
	tried  bool // the duplicate was tried (the waiting goroutine's own)
	// Read's and Write's state across their waits, and their steps as
	// func values made once (a wait does not allocate).
	rbuf, wbuf      []byte
	rn, wdone       int
	rerr, werr      error
	readFn, writeFn func(fd uintptr) bool
}

// parker waits for a descriptor through Go's poller: the waiting
// goroutine parks, and its thread and scheduler slot go to other
// goroutines. A wait in poll(2) holds both until the system monitor
// takes the slot back (up to 10 ms): with many connections waiting so
// (a group's workers that left it, each on its own goroutine) the others
// starved, and replies sat unread for up to a second.
type parker struct {
	f  *os.File
	rc syscall.RawConn
}

// park makes the connection's parker at its first wait: a duplicate of
// the descriptor (the same socket, non-blocking) in Go's poller, with the
// deadlines set so far. nil when it cannot be made (a wait then polls).
func (c *fdConn) park() *parker {
	if p := c.parked.Load(); p != nil || c.tried {
		return p
	}
	c.tried = true
	dup, err := unix.FcntlInt(uintptr(c.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	p := &parker{f: os.NewFile(uintptr(dup), "redis")}
	if p.rc, err = p.f.SyscallConn(); err != nil || p.f.SetReadDeadline(time.Time{}) != nil {
		_ = p.f.Close() // not in the poller: a wait there would block its thread
		return nil
	}
	c.parked.Store(p)
	// Deadlines set before the store (the run's end) reach the duplicate;
	// one set meanwhile is set again here or by its own SetDeadline after.
	for {
		r, w := c.rdl.Load(), c.wdl.Load()
		_ = p.f.SetReadDeadline(nanoTime(r))
		_ = p.f.SetWriteDeadline(nanoTime(w))
		if c.rdl.Load() == r && c.wdl.Load() == w {
			break
		}
	}
	if c.closed.Load() {
		_ = p.f.Close()
	}
	return p
}

func nanoTime(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// pollSlice bounds one poll(2), so that a deadline moved meanwhile (the
// run's end) is seen within it.
const pollSlice = 10 * time.Millisecond

// waitIO runs step on the descriptor until it is done (false: it would
// block), waiting for events between its tries: parked in Go's poller on
// a duplicate made at the first wait, or, when that cannot be made,
// polling. A parked wait tries step first (Go's poller forgets readiness
// it saw before the wait began), so that data or room that came since the
// last try is not missed.
func (c *fdConn) waitIO(events int16, deadline *atomic.Int64, step func(fd uintptr) bool) error {
	p := c.parked.Load()
	for p == nil {
		if step(uintptr(c.fd)) {
			return nil
		}
		if !c.dialing {
			p = c.park()
		}
		if p == nil {
			if err := c.poll(events, deadline); err != nil {
				return err
			}
		}
	}
	if c.closed.Load() {
		return net.ErrClosed
	}
	var err error
	if events == unix.POLLIN {
		err = p.rc.Read(step)
	} else {
		err = p.rc.Write(step)
	}
	if err != nil && c.closed.Load() {
		return net.ErrClosed
	}
	return err
}

// poll polls the descriptor for events until they come or the deadline
// passes (os.ErrDeadlineExceeded).
func (c *fdConn) poll(events int16, deadline *atomic.Int64) error {
	c.pfd[0] = unix.PollFd{Fd: int32(c.fd), Events: events}
	for {
		slice := pollSlice
		if dl := deadline.Load(); dl != 0 {
			left := time.Until(time.Unix(0, dl))
			if left <= 0 {
				return os.ErrDeadlineExceeded
			}
			slice = min(slice, left)
		}
		if c.closed.Load() {
			return net.ErrClosed
		}
		n, err := unix.Poll(c.pfd[:], int(max(slice.Milliseconds(), 1)))
		if err == unix.EINTR || err == nil && n == 0 {
			continue
		}
		return err
	}
}

// Read implements net.Conn.
func (c *fdConn) Read(p []byte) (int, error) {
	c.rbuf, c.rn, c.rerr = p, 0, nil
	err := c.waitIO(unix.POLLIN, &c.rdl, c.readFn)
	c.rbuf = nil
	if err != nil {
		return 0, err
	}
	return c.rn, c.rerr
}

// readStep is one try of Read: false when nothing came yet.
func (c *fdConn) readStep(uintptr) bool {
	for {
		// Raw, as writeStep's.
		n, err := rawRead(uintptr(c.fd), c.rbuf)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return false
		case err != nil:
			c.rerr = os.NewSyscallError("read", err)
		case n == 0 && len(c.rbuf) > 0:
			c.rerr = io.EOF
		default:
			c.rn = n
		}
		return true
	}
}

// Write implements net.Conn: it writes p in full.
func (c *fdConn) Write(p []byte) (int, error) {
	c.wbuf, c.wdone, c.werr = p, 0, nil
	err := c.waitIO(unix.POLLOUT, &c.wdl, c.writeFn)
	c.wbuf = nil
	if err == nil {
		err = c.werr
	}
	return c.wdone, err
}

// writeStep is one try of Write: false when the socket is full.
func (c *fdConn) writeStep(uintptr) bool {
	for c.wdone < len(c.wbuf) {
		// Raw: the descriptor is non-blocking (see group's waitFD).
		n, err := rawWrite(uintptr(c.fd), c.wbuf[c.wdone:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return false
		case err != nil:
			c.werr = os.NewSyscallError("write", err)
			return true
		}
		c.wdone += n
	}
	return true
}

// Close implements net.Conn.
func (c *fdConn) Close() error {
	if c.closed.Swap(true) {
		return net.ErrClosed
	}
	if p := c.parked.Load(); p != nil {
		_ = p.f.Close() // a parked wait ends
	}
	return unix.Close(c.fd)
}

// LocalAddr implements net.Conn (nil when it cannot be read).
func (c *fdConn) LocalAddr() net.Addr {
	if c.laddr != nil {
		return c.laddr
	}
	sa, err := unix.Getsockname(c.fd)
	if err != nil {
		return nil
	}
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		return net.TCPAddrFromAddrPort(netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(sa.Port)))
	case *unix.SockaddrInet6:
		return net.TCPAddrFromAddrPort(netip.AddrPortFrom(netip.AddrFrom16(sa.Addr), uint16(sa.Port)))
	}
	return nil
}

// RemoteAddr implements net.Conn.
func (c *fdConn) RemoteAddr() net.Addr {
	if c.raddr == nil && c.peer.IsValid() {
		return net.TCPAddrFromAddrPort(c.peer)
	}
	return c.raddr
}

// SyscallConn implements syscall.Conn.
func (c *fdConn) SyscallConn() (syscall.RawConn, error) { return fdRaw{c}, nil }

// SetDeadline implements net.Conn.
func (c *fdConn) SetDeadline(t time.Time) error {
	_ = c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

// SetReadDeadline implements net.Conn (a parked wait sees it at once).
func (c *fdConn) SetReadDeadline(t time.Time) error {
	c.rdl.Store(unixNano(t))
	if p := c.parked.Load(); p != nil {
		_ = p.f.SetReadDeadline(t)
	}
	return nil
}

// SetWriteDeadline implements net.Conn (a parked wait sees it at once).
func (c *fdConn) SetWriteDeadline(t time.Time) error {
	c.wdl.Store(unixNano(t))
	if p := c.parked.Load(); p != nil {
		_ = p.f.SetWriteDeadline(t)
	}
	return nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fdRaw is an fdConn's syscall.RawConn: its callbacks run on the
// descriptor, and a callback that asks to wait waits (waitIO).
type fdRaw struct{ c *fdConn }

// Control implements syscall.RawConn.
func (r fdRaw) Control(f func(fd uintptr)) error {
	if r.c.closed.Load() {
		return net.ErrClosed
	}
	f(uintptr(r.c.fd))
	return nil
}

// Read implements syscall.RawConn.
func (r fdRaw) Read(f func(fd uintptr) bool) error { return r.c.waitIO(unix.POLLIN, &r.c.rdl, f) }

// Write implements syscall.RawConn.
func (r fdRaw) Write(f func(fd uintptr) bool) error { return r.c.waitIO(unix.POLLOUT, &r.c.wdl, f) }

var _ syscall.RawConn = fdRaw{}
