package transport

import (
	"context"
	"net"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/resp"
)

// TestWriteRead: a request sent from inside the read's poller wait gets its
// reply, one read system call per reply on an idle connection; a request
// larger than the socket's buffer is finished through net.Conn; replies
// left over from a pipeline make it fall back to Write and Read; and a
// server that never answers ends in the connection's timeout, not a hang.
func TestWriteRead(t *testing.T) {
	tg := served(t)
	c, err := Dial(context.Background(), tg)
	require.NoError(t, err)
	defer c.Close()
	require.NotNil(t, c.rx.raw, "a plain TCP connection reads through the poller")
	var rep resp.Reply
	for i := range 100 {
		require.NoError(t, c.WriteRead(resp.AppendCommand(nil, "PING"), &rep), "request %d", i)
		assert.Equal(t, byte('+'), rep.Type)
		assert.True(t, c.rx.drained)
	}
	big := strings.Repeat("x", 8<<20) // far beyond the socket's send buffer
	require.NoError(t, c.WriteRead(resp.AppendCommand(nil, "SET", "big", big), &rep))
	assert.Equal(t, byte('+'), rep.Type)
	require.NoError(t, c.WriteRead(resp.AppendCommand(nil, "GET", "big"), &rep))
	assert.Equal(t, byte('$'), rep.Type, "%s", rep.Err)
	assert.Equal(t, int64(8<<20), rep.Int, "the whole value was sent and comes back")

	// Two replies owed, one read: the second is buffered, so WriteRead
	// falls back (its request's reply comes after it).
	require.NoError(t, c.Write(append(resp.AppendCommand(nil, "PING"), resp.AppendCommand(nil, "ECHO", "a")...)))
	require.NoError(t, c.Read(&rep))
	require.NoError(t, c.WriteRead(resp.AppendCommand(nil, "ECHO", "bbb"), &rep))
	assert.Equal(t, int64(1), rep.Int, "the reply owed first comes first")
	require.NoError(t, c.Read(&rep))
	assert.Equal(t, int64(3), rep.Int)
}

func TestWriteReadTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() { // accepts, reads, never answers
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		buf := make([]byte, 4096)
		_, _ = nc.Read(buf)
		time.Sleep(3 * time.Second)
	}()
	c, err := Dial(context.Background(), endpoint.Target{Addr: ln.Addr().String(), Timeout: 300 * time.Millisecond})
	require.NoError(t, err, "no login: no handshake")
	defer c.Close()
	var rep resp.Reply
	start := time.Now()
	err = c.WriteRead(resp.AppendCommand(nil, "GET", "k"), &rep)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "timeout")
	assert.Less(t, time.Since(start), 2*time.Second)
}

// TestEveryRequestWaitsItsTimeout: a request with no reply fails once it
// has waited the timeout (and at most 100 ms more), however recently the
// connection's deadline was moved, with an error that names the timeout.
func TestEveryRequestWaitsItsTimeout(t *testing.T) {
	const timeout = 400 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() { // answers three requests, then none
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		buf := make([]byte, 4096)
		for i := 0; ; i++ {
			if _, err := nc.Read(buf); err != nil {
				return
			}
			if i < 3 {
				_, _ = nc.Write([]byte("+OK\r\n"))
			}
		}
	}()
	c, err := Dial(context.Background(), endpoint.Target{Addr: ln.Addr().String(), Timeout: timeout})
	require.NoError(t, err)
	defer c.Close()
	var rep resp.Reply
	for range 3 {
		require.NoError(t, c.WriteRead(resp.AppendCommand(nil, "PING"), &rep))
		time.Sleep(90 * time.Millisecond) // the deadline set by an earlier request nears
	}
	start := time.Now()
	err = c.WriteRead(resp.AppendCommand(nil, "PING"), &rep)
	waited := time.Since(start)
	require.Error(t, err)
	assert.Equal(t, "read: timeout: no reply in 400ms", err.Error())
	var te *TimeoutError
	assert.ErrorAs(t, err, &te)
	assert.GreaterOrEqual(t, waited, timeout)
	assert.Less(t, waited, timeout+100*time.Millisecond)
}

// The read buffer starts small and grows, up to its cap, only while
// replies come in bigger bursts than it holds.
func TestReadBufferGrowsWithTheReplies(t *testing.T) {
	tg := served(t)
	c, err := Dial(context.Background(), tg)
	require.NoError(t, err)
	defer c.Close()
	var rep resp.Reply
	for range 50 {
		require.NoError(t, c.WriteRead(resp.AppendCommand(nil, "PING"), &rep))
	}
	assert.Equal(t, minReadBuffer, c.r.BufferSize(), "small replies keep the small buffer")
	require.NoError(t, c.WriteRead(resp.AppendCommand(nil, "SET", "v", strings.Repeat("x", 64<<10)), &rep))
	for i := range 10 {
		require.NoError(t, c.WriteRead(resp.AppendCommand(nil, "GET", "v"), &rep), "request %d", i)
		require.Equal(t, int64(64<<10), rep.Int)
	}
	assert.Equal(t, MaxReadBuffer, c.r.BufferSize(), "64 KB replies grow it to its cap")
}

// TestConnectionsAreSmall: a connection that has served small replies
// holds a few KB of heap (a 512-byte read buffer, the reader and its
// descriptor's connection), so that 10,000 connections fit a client; a
// 4 KB first buffer fails it. The server answers +PONG to whatever it
// reads, through a 64-byte buffer, so that its side of each connection
// weighs little in the count.
func TestConnectionsAreSmall(t *testing.T) {
	addr := testenv.ServeEach(t, func(nc net.Conn) {
		defer nc.Close()
		buf := make([]byte, 64)
		for {
			if _, err := nc.Read(buf); err != nil {
				return
			}
			if _, err := nc.Write([]byte("+PONG\r\n")); err != nil {
				return
			}
		}
	})
	tg := endpoint.Target{Addr: addr, Timeout: 5 * time.Second}
	var rep resp.Reply
	ping := resp.AppendCommand(nil, "PING")
	// Three batches, each kept open until the end (a closed one's memory
	// would come back inside the next batch's count), and the median of
	// their counts: whatever else the process allocates or frees meanwhile
	// (a busy machine's late goroutines of earlier tests) moves one batch.
	var conns []*Conn
	var per []float64
	for range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range 500 {
			c, err := Dial(context.Background(), tg)
			require.NoError(t, err)
			require.NoError(t, c.WriteRead(ping, &rep))
			conns = append(conns, c)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		per = append(per, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/500)
	}
	slices.Sort(per)
	t.Logf("heap bytes a connection, three batches: %.0f", per)
	assert.Less(t, per[1], 3500.0, "heap bytes a connection, both sides (the median batch)")
	for _, c := range conns {
		_ = c.Close()
	}
}

// TestReadStamped: replies that came in one read share that read's time;
// a reply whose bytes needed a read of its own is dated after it; and
// bytes that came in through a plain Read since the last date make the
// next reply's date new, not older than its own arrival.
func TestReadStamped(t *testing.T) {
	batches := []string{":1\r\n:2\r\n:3\r\n", ":4\r\n", ":5\r\n:6\r\n"}
	addr := testenv.ServeEach(t, func(nc net.Conn) { // answers each request with its batch, in one write
		defer nc.Close()
		buf := make([]byte, 4096)
		for _, b := range batches {
			if _, err := nc.Read(buf); err != nil {
				return
			}
			if _, err := nc.Write([]byte(b)); err != nil {
				return
			}
		}
		_, _ = nc.Read(buf)
	})
	c, err := Dial(context.Background(), endpoint.Target{Addr: addr, Timeout: 5 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	var rep resp.Reply
	read := func(want int64) time.Time {
		t.Helper()
		at, err := c.ReadStamped(&rep)
		require.NoError(t, err)
		assert.Equal(t, want, rep.Int)
		return at
	}
	require.NoError(t, c.Write(resp.AppendCommand(nil, "PING")))
	time.Sleep(20 * time.Millisecond) // the batch is all there before the first read
	a := read(1)
	assert.Equal(t, a, read(2), "read with 1")
	assert.Equal(t, a, read(3), "read with 1")

	sent := time.Now()
	require.NoError(t, c.Write(resp.AppendCommand(nil, "PING")))
	assert.False(t, read(4).Before(sent), "4's own read came after its send")

	require.NoError(t, c.Write(resp.AppendCommand(nil, "PING")))
	time.Sleep(20 * time.Millisecond)
	before := time.Now()
	require.NoError(t, c.Read(&rep), "5, through a plain Read: 6 comes with it")
	assert.False(t, read(6).Before(before), "6 is dated after it came, not by 4's read")
}

// TestWriteReadAcrossYields: a request that WriteRead sends from inside
// the read's wait is sent even when the engine's interval ended before
// that wait began (the wait then yields at once): with an interval end
// every 20 µs, every request of a long loop gets its reply. Before, such
// a request was dropped unsent and its read waited out the timeout.
func TestWriteReadAcrossYields(t *testing.T) {
	r := testenv.StartRedis(t)
	c, err := Dial(context.Background(), endpoint.Target{Addr: r.Addr, Timeout: 2 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	yields := 0
	c.YieldTo(func(now time.Time) time.Time { yields++; return now.Add(20 * time.Microsecond) })
	var rep resp.Reply
	req := resp.AppendCommand(nil, "INCR", "c")
	for i := range 20000 {
		c.Deadline = time.Now().Add(2 * time.Second)
		require.NoError(t, c.WriteRead(req, &rep), "request %d", i)
		require.Equal(t, int64(i+1), rep.Int, "request %d's own reply", i)
	}
	assert.Positive(t, yields)
	assert.Equal(t, "20000", testenv.Do(t, r.Addr, "GET", "c"), "each request sent once")
}
