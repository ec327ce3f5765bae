package redis

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// dialRaw is dialFD's connection as a net.Conn.
func dialRaw(ctx context.Context, network, address string, timeout time.Duration) (net.Conn, error) {
	c, err := dialFD(ctx, network, address, timeout)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// loggedIn ends a raw connection's dial: its waits may now park in Go's
// poller (fdConn.park), as a worker on its own goroutine needs.
func loggedIn(nc net.Conn) {
	if c, ok := nc.(*fdConn); ok {
		c.dialing = false
	}
}

// dialFD connects a non-blocking TCP socket outside the Go runtime's
// poller: the connection a group takes as it is (Conn.Detach), with no
// runtime descriptor, poller entry or dial state made and then dropped
// for it. At 1,000 connections that is about a kilobyte of memory a
// connection less than net.Dialer's socket and its duplicate. Host names
// are resolved by Go's resolver and their addresses tried in turn, as
// net.Dialer does; the waits (connect, then the login in Dial) poll the
// descriptor, in slices that see ctx end.
func dialFD(ctx context.Context, network, address string, timeout time.Duration) (*fdConn, error) {
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
			return c, nil
		}
		if ctx.Err() != nil || !time.Now().Before(deadline) {
			break
		}
	}
	return nil, err
}

// connectFD connects to ap by deadline: the socket is non-blocking, with
// TCP_NODELAY and keepalives every 30 s, as Dial's net.Dialer sets them.
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
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 30)
	return c, nil
}

// awaitConnect waits until deadline for a connect in progress to finish
// and returns its outcome; it polls in slices, so that ctx's end is seen.
func (c *fdConn) awaitConnect(ctx context.Context, deadline time.Time) error {
	c.pfd[0] = unix.PollFd{Fd: int32(c.fd), Events: unix.POLLOUT}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return os.ErrDeadlineExceeded
		}
		n, err := unix.Poll(c.pfd[:], int(max(min(left, pollSlice).Milliseconds(), 1)))
		if err == unix.EINTR || err == nil && n == 0 {
			continue
		}
		if err != nil {
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
}
