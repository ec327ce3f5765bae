package yieldconn

import (
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// every100ms is a yield function whose intervals are 100 ms long,
// counting its calls.
func every100ms(calls *[]time.Duration, start time.Time) func(time.Time) time.Time {
	return func(now time.Time) time.Time {
		*calls = append(*calls, now.Sub(start))
		return now.Truncate(100 * time.Millisecond).Add(100 * time.Millisecond)
	}
}

// yielding returns the client side of a pipe wrapped to yield every
// 100 ms, the server side, and the times of the yields.
func yielding(t *testing.T) (net.Conn, net.Conn, *[]time.Duration) {
	client, server := net.Pipe()
	t.Cleanup(func() { server.Close() })
	var y Yield
	calls := new([]time.Duration)
	y.Set(every100ms(calls, time.Now()))
	c := y.Wrap(client)
	t.Cleanup(func() { c.Close() })
	return c, server, calls
}

// The tests run in a synctest bubble over net.Pipe: time is simulated, so
// the interval ends and deadlines are exact.

func TestReadYieldsAtEachIntervalEndAndGoesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		c, server, calls := yielding(t)
		require.NoError(t, c.SetReadDeadline(start.Add(time.Second)))
		go func() {
			time.Sleep(350 * time.Millisecond)
			server.Write([]byte("+OK\r\n"))
		}()
		buf := make([]byte, 16)
		n, err := c.Read(buf)
		require.NoError(t, err)
		assert.Equal(t, "+OK\r\n", string(buf[:n]))
		assert.Equal(t, 350*time.Millisecond, time.Since(start), "one wait, to the reply")
		assert.Equal(t, []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}, *calls,
			"Set, then each interval end the wait reached")
	})
}

func TestCallersDeadlineStillEndsTheRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		c, server, calls := yielding(t)
		require.NoError(t, c.SetDeadline(start.Add(250*time.Millisecond)))
		_, err := c.Read(make([]byte, 16))
		assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
		assert.Equal(t, 250*time.Millisecond, time.Since(start), "given up at the caller's deadline")
		assert.Len(t, *calls, 3, "Set and two interval ends")

		// A deadline that has passed fails the read at once, as it does unwrapped.
		require.NoError(t, c.SetReadDeadline(time.Now().Add(-time.Millisecond)))
		before := len(*calls)
		_, err = c.Read(make([]byte, 16))
		assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
		assert.Len(t, *calls, before)

		// No deadline: the wait yields until the reply comes.
		require.NoError(t, c.SetReadDeadline(time.Time{}))
		go func() {
			time.Sleep(time.Second)
			server.Write([]byte("x"))
		}()
		n, err := c.Read(make([]byte, 16))
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.Len(t, *calls, before+10)
	})
}

func TestWithoutYieldTheConnectionIsUnchanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, server := net.Pipe()
		defer server.Close()
		var y Yield
		c := y.Wrap(client)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(300*time.Millisecond)))
		start := time.Now()
		_, err := c.Read(make([]byte, 4))
		assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
		assert.Equal(t, 300*time.Millisecond, time.Since(start))
		go server.Write([]byte("abc"))
		require.NoError(t, c.SetReadDeadline(time.Time{}))
		b := make([]byte, 3)
		_, err = io.ReadFull(c, b)
		require.NoError(t, err)
		assert.Equal(t, "abc", string(b))
		require.NoError(t, c.Close())
		_, err = server.Write([]byte("x"))
		assert.Error(t, err, "closing the wrapper closes the connection")
	})
}

func TestWrapOffersTheSocketWhenTheConnectionDoes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	nc, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	var y Yield
	c := y.Wrap(nc)
	defer c.Close()
	_, ok := c.(syscall.Conn)
	assert.True(t, ok, "a TCP connection's socket stays visible")
	assert.Same(t, nc, c.(interface{ NetConn() net.Conn }).NetConn())
	p, _ := net.Pipe()
	defer p.Close()
	_, ok = y.Wrap(p).(syscall.Conn)
	assert.False(t, ok, "a connection without a socket does not claim one")
}
