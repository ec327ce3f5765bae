package redis

import (
	"context"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Detach takes the connection out of the Go runtime's poller and returns
// its descriptor, for an engine group that waits on it in an epoll set of
// its own: a socket in the runtime's poller wakes the runtime each time
// data comes, whether or not anything waits for it, and a send grid's
// replies are read at the next tick, not when they come. The socket lives
// on in a duplicate descriptor; the runtime's is closed (no FIN is sent:
// the socket is still open). Reads and writes then go to the descriptor
// directly; a read or write that must wait parks in Go's poller, on a
// second duplicate made at the connection's first wait (or polls it,
// poll(2) bounded so that a deadline set meanwhile is seen, when that
// cannot be made); the run's end still ends them, as Dial's does. False (and nothing changed) for a TLS connection or when
// the descriptor cannot be duplicated.
func (c *Conn) Detach(ctx context.Context) (int, bool) {
	if c.rx.raw == nil {
		return -1, false
	}
	if fc, ok := c.nc.(*fdConn); ok {
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
	fc := &fdConn{fd: dup, laddr: c.nc.LocalAddr(), raddr: c.nc.RemoteAddr()}
	if c.stopCtx != nil {
		c.stopCtx()
	}
	_ = c.nc.Close()
	c.nc, c.rx.Conn, c.rx.raw, c.dl = fc, fc, fdRaw{fc}, time.Time{}
	c.stopCtx = context.AfterFunc(ctx, func() { _ = fc.SetDeadline(time.Unix(1, 0)) })
	return dup, true
}

// fdConn is a connection on a non-blocking descriptor outside the
// runtime's poller (Conn.Detach).
type fdConn struct {
	fd           int
	laddr, raddr net.Addr
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
}

// parker waits for a descriptor through Go's poller: the waiting
// goroutine parks, and its thread and scheduler slot go to other
// goroutines. A wait in poll(2) holds both until the system monitor
// takes the slot back (up to 10 ms): with many connections waiting so
// (a group's workers that left it, each on its own goroutine) the others
// starved, and replies sat unread for up to a second.
type parker struct {
	f      *os.File
	rc     syscall.RawConn
	waited bool
	pfd    [1]unix.PollFd        // the readiness wanted, for waitOnce
	once   func(fd uintptr) bool // waitOnce, made once
}

// waitOnce ends the wait at once when what it waits for is there, else
// asks the poller to wait, once. The poller forgets readiness it saw
// before the wait began (the first read's EAGAIN came before it): data
// that came between that read and the wait would otherwise be missed
// until the next, and in a closed loop there is none.
func (p *parker) waitOnce(uintptr) bool {
	if p.waited {
		return true
	}
	p.pfd[0].Revents = 0
	if n, err := unix.Poll(p.pfd[:], 0); err == nil && n > 0 {
		return true
	}
	p.waited = true
	return false
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
	p.once = p.waitOnce
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

// wait waits for events on the descriptor until they come or the
// deadline passes (os.ErrDeadlineExceeded): parked in Go's poller, or,
// when the descriptor cannot be put there, polling it.
func (c *fdConn) wait(events int16, deadline *atomic.Int64) error {
	p := c.park()
	if p == nil {
		return c.poll(events, deadline)
	}
	if c.closed.Load() {
		return net.ErrClosed
	}
	p.waited = false
	p.pfd[0] = unix.PollFd{Fd: int32(c.fd), Events: events}
	var err error
	if events == unix.POLLIN {
		err = p.rc.Read(p.once)
	} else {
		err = p.rc.Write(p.once)
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
	for {
		n, err := unix.Read(c.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if err = c.wait(unix.POLLIN, &c.rdl); err != nil {
				return 0, err
			}
			continue
		case err != nil:
			return 0, os.NewSyscallError("read", err)
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write implements net.Conn: it writes p in full.
func (c *fdConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		// Raw: the descriptor is non-blocking (see group's waitFD).
		r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(c.fd), uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done))
		n, err := int(r), error(nil)
		if e != 0 {
			err = e
		}
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if err = c.wait(unix.POLLOUT, &c.wdl); err != nil {
				return done, err
			}
			continue
		case err != nil:
			return done, os.NewSyscallError("write", err)
		}
		done += n
	}
	return done, nil
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

// LocalAddr implements net.Conn.
func (c *fdConn) LocalAddr() net.Addr { return c.laddr }

// RemoteAddr implements net.Conn.
func (c *fdConn) RemoteAddr() net.Addr { return c.raddr }

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
// descriptor, and a callback that asks to wait polls it.
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
func (r fdRaw) Read(f func(fd uintptr) bool) error {
	for !f(uintptr(r.c.fd)) {
		if err := r.c.wait(unix.POLLIN, &r.c.rdl); err != nil {
			return err
		}
	}
	return nil
}

// Write implements syscall.RawConn.
func (r fdRaw) Write(f func(fd uintptr) bool) error {
	for !f(uintptr(r.c.fd)) {
		if err := r.c.wait(unix.POLLOUT, &r.c.wdl); err != nil {
			return err
		}
	}
	return nil
}

var _ syscall.RawConn = fdRaw{}
