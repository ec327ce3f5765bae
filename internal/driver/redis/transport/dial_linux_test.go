package transport

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/resp"
)

// TestDialOutsideThePoller: a plain TCP connection is dialled outside Go's
// poller, by address or host name, logs in (AUTH on a redis-server with a
// password; a wrong one is refused as such) without a duplicate in the poller, names both its ends, and
// is handed to a group as it is (Detach: the same descriptor, no copy).
// Once logged in, a wait on its own goroutine parks as net.Conn's would.
func TestDialOutsideThePoller(t *testing.T) {
	r := testenv.StartRedis(t, "--requirepass", "sesame")
	_, port, err := net.SplitHostPort(r.Addr)
	require.NoError(t, err)
	for _, addr := range []string{r.Addr, net.JoinHostPort("localhost", port)} {
		c, err := Dial(context.Background(), endpoint.Target{Addr: addr, Password: "sesame", Timeout: 5 * time.Second})
		require.NoError(t, err, addr)
		fc, ok := c.NetConn.(*fdConn)
		require.True(t, ok, "%s: dialled outside the poller", addr)
		assert.False(t, fc.dialing, "logged in")
		assert.Nil(t, fc.parked.Load(), "the login polled: no duplicate in Go's poller")
		assert.Equal(t, port, strconv.Itoa(fc.RemoteAddr().(*net.TCPAddr).Port))
		assert.Positive(t, fc.LocalAddr().(*net.TCPAddr).Port)
		rep, err := c.Do("PING")
		require.NoError(t, err)
		assert.Equal(t, byte('+'), rep.Type)
		fd, ok := c.Detach(context.Background())
		require.True(t, ok)
		assert.Equal(t, fc.fd, fd, "a group takes the descriptor itself")
		require.NoError(t, c.Close())
	}
	_, err = Dial(context.Background(), endpoint.Target{Addr: r.Addr, Password: "wrong", Timeout: 5 * time.Second})
	require.Error(t, err, "a wrong password")
	assert.True(t, IsAuthError(err), "%v", err)
}

// TestDialFailures: a refused connection, a connect that is never
// answered (a listener whose queue is full), a run that ends meanwhile,
// and what dialRaw leaves to net.Dialer, each say what happened.
func TestDialFailures(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close())
	_, err = Dial(context.Background(), endpoint.Target{Addr: closed, Timeout: time.Second})
	require.Error(t, err)
	assert.Equal(t, "cannot connect to "+closed+": connection refused", err.Error())

	full := fullListener(t)
	start := time.Now()
	_, err = dialRaw(context.Background(), "tcp", full, 300*time.Millisecond)
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	_, err = dialRaw(ctx, "tcp", full, time.Minute)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 5*time.Second, "the run's end ends the wait")

	for _, a := range [][2]string{{"unix", "/tmp/redis.sock"}, {"tcp", "[fe80::1%lo]:6379"}} {
		_, err = dialRaw(context.Background(), a[0], a[1], time.Second)
		assert.ErrorIs(t, err, errNoRawDial, a[1])
	}
	_, err = dialRaw(context.Background(), "tcp", "127.0.0.1:99999", time.Second)
	assert.Error(t, err)
}

// fullListener returns the address of a listener that accepts nothing
// and whose queue is full: a further connect is not answered.
func fullListener(t *testing.T) string {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = unix.Close(fd) })
	require.NoError(t, unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	require.NoError(t, unix.Listen(fd, 0))
	sa, err := unix.Getsockname(fd)
	require.NoError(t, err)
	addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(sa.(*unix.SockaddrInet4).Port)).String()
	// A backlog of 0 queues one connection; the kernel drops the SYNs of
	// any after it while nothing accepts.
	c, err := dialRaw(context.Background(), "tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return addr
}

// TestDialSetsWhatNetDialerSets: the raw socket's options (no delay,
// keepalives: idle, interval, count) are those of the connection
// net.Dialer made before, for the same target.
func TestDialSetsWhatNetDialerSets(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			defer nc.Close()
		}
	}()
	opts := func(fd int) [5]int {
		var o [5]int
		for i, opt := range [][2]int{{unix.IPPROTO_TCP, unix.TCP_NODELAY}, {unix.SOL_SOCKET, unix.SO_KEEPALIVE},
			{unix.IPPROTO_TCP, unix.TCP_KEEPIDLE}, {unix.IPPROTO_TCP, unix.TCP_KEEPINTVL}, {unix.IPPROTO_TCP, unix.TCP_KEEPCNT}} {
			v, err := unix.GetsockoptInt(fd, opt[0], opt[1])
			require.NoError(t, err)
			o[i] = v
		}
		return o
	}
	d := net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	nc, err := d.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer nc.Close()
	raw, err := nc.(*net.TCPConn).SyscallConn()
	require.NoError(t, err)
	var want [5]int
	require.NoError(t, raw.Control(func(fd uintptr) { want = opts(int(fd)) }))

	c, err := dialRaw(context.Background(), "tcp", ln.Addr().String(), 5*time.Second)
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, want, opts(c.(*fdConn).fd), "TCP_NODELAY, SO_KEEPALIVE, TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT")
}

// TestDialIPv6: an IPv6 literal is dialled on an IPv6 socket.
func TestDialIPv6(t *testing.T) {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback on this machine: %v", err)
	}
	defer ln.Close()
	go func() {
		if nc, err := ln.Accept(); err == nil {
			_, _ = nc.Write([]byte("+PONG\r\n"))
			_ = nc.Close()
		}
	}()
	c, err := dialRaw(context.Background(), "tcp", ln.Addr().String(), 5*time.Second)
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, ln.Addr().String(), c.RemoteAddr().String())
	buf := make([]byte, 16)
	n, err := c.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "+PONG\r\n", string(buf[:n]))
}

// TestDialedConnectionServes: a worker on a raw connection runs requests
// against the embedded server as one through net.Dialer would.
func TestDialedConnectionServes(t *testing.T) {
	tg := served(t)
	c, err := Dial(context.Background(), tg)
	require.NoError(t, err)
	defer c.Close()
	var rep resp.Reply
	for i := range 50 {
		require.NoError(t, c.WriteRead(resp.AppendCommand(nil, "ECHO", strconv.Itoa(i)), &rep))
		assert.Equal(t, byte('$'), rep.Type)
		assert.Equal(t, int64(len(strconv.Itoa(i))), rep.Int)
	}
}

// TestDetachStopsOnItsContext: once detached, a connection's blocked read
// ends when Detach's context ends, whether the group took the raw TCP
// descriptor as it was or a Unix socket's duplicate, and whether the
// connection was dialled with a hook of its own or into a run's hub:
// detached with the run's context it stays in the hub, with another it
// leaves it.
func TestDetachStopsOnItsContext(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		for _, how := range []string{"own hook", "hub, the run's context", "hub, another context"} {
			t.Run(network+", "+how, func(t *testing.T) {
				addr, _ := silentServer(t, network)
				run, endRun := context.WithCancel(context.Background())
				defer endRun()
				var hub *StopHub
				if how != "own hook" {
					hub = NewStopHub(run)
				}
				c, err := dial(run, endpoint.Target{Addr: addr, Timeout: time.Minute}, hub)
				require.NoError(t, err)
				defer c.Close()
				ctx, end := run, endRun
				if how != "hub, the run's context" {
					ctx, end = context.WithCancel(context.Background())
				}
				_, ok := c.Detach(ctx)
				require.True(t, ok)
				if hub != nil {
					assert.Equal(t, how == "hub, the run's context", c.hub == hub, "in the hub")
				}
				done := blockedRead(c)
				end()
				assertEnds(t, done, "the read after Detach's context ended")
			})
		}
	}
}
