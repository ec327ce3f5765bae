package transport

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// loggedIn ends a raw connection's dial: its waits may now park in Go's
// poller (fdConn.park), as a worker on its own goroutine needs.
func loggedIn(nc net.Conn) {
	if c, ok := nc.(*fdConn); ok {
		c.dialing = false
	}
}

// dialRaw connects a non-blocking TCP socket outside the Go runtime's
// poller: the connection a group takes as it is (Conn.Detach), with no
// runtime descriptor, poller entry or dial state made and then dropped
// for it. At 1,000 connections that is about a kilobyte of memory a
// connection less than net.Dialer's socket and its duplicate. Host names
// are resolved by Go's resolver and their addresses tried in turn, as
// net.Dialer does; the waits (connect, then the login in Dial) poll the
// descriptor, in slices that see ctx end.
func dialRaw(ctx context.Context, network, address string, timeout time.Duration) (net.Conn, error) {
	if network != "tcp" {
		return nil, errNoRawDial
	}
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, &net.AddrError{Err: "invalid port", Addr: address}
	}
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	var one [1]netip.Addr
	addrs := one[:0]
	if ip, perr := netip.ParseAddr(host); perr == nil {
		addrs = append(addrs, ip)
	} else if addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	for _, ip := range addrs {
		if ip.Zone() != "" {
			return nil, errNoRawDial
		}
	}
	for _, ip := range addrs {
		var c *fdConn
		if c, err = connectFD(ctx, netip.AddrPortFrom(ip.Unmap(), uint16(port)), deadline); err == nil {
			return c, nil // not a nil *fdConn in a non-nil net.Conn: err is nil here only
		}
		if ctx.Err() != nil || !time.Now().Before(deadline) {
			break
		}
	}
	return nil, err
}

// connectFD connects to ap by deadline: the socket is non-blocking, with
// TCP_NODELAY and keepalives (the first after 30 s idle, then every 15 s,
// 9 unanswered end it), as net.Dialer{KeepAlive: 30 * time.Second} sets
// them for the connections Dial makes through it.
func connectFD(ctx context.Context, ap netip.AddrPort, deadline time.Time) (*fdConn, error) {
	var family int
	var sa unix.Sockaddr
	if ap.Addr().Is4() {
		family, sa = unix.AF_INET, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	} else {
		family, sa = unix.AF_INET6, &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	c := &fdConn{fd: fd, peer: ap, dialing: true}
	c.readFn, c.writeFn = c.readStep, c.writeStep
	if err = unix.Connect(fd, sa); err == unix.EINPROGRESS || err == unix.EINTR {
		err = c.awaitConnect(ctx, deadline)
	} else if err != nil {
		err = os.NewSyscallError("connect", err)
	}
	if err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 30)
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 15)
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 9)
	return c, nil
}

// awaitConnect waits until deadline for a connect in progress to finish
// and returns its outcome. The wait is the connection's own (poll, with
// its write deadline), which ctx's end moves to the past.
func (c *fdConn) awaitConnect(ctx context.Context, deadline time.Time) error {
	c.wdl.Store(deadline.UnixNano())
	stop := context.AfterFunc(ctx, func() { c.wdl.Store(1) })
	err := c.poll(unix.POLLOUT, &c.wdl)
	stop()
	c.wdl.Store(0)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return err
		}
		return os.NewSyscallError("poll", err)
	}
	soerr, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return os.NewSyscallError("getsockopt", err)
	}
	if soerr != 0 {
		return os.NewSyscallError("connect", unix.Errno(soerr))
	}
	return nil
}
