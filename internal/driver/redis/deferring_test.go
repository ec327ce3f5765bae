//go:build linux

package redis

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// pingServer runs answer for each PING (a RESP array of one bulk string:
// *1, $4, PING) read on each connection it accepts; an error ends the
// connection.
func pingServer(t *testing.T, answer func(nc net.Conn) error) string {
	return testenv.ServeEach(t, func(nc net.Conn) {
		defer nc.Close()
		r := bufio.NewReader(nc)
		for {
			for range 3 {
				if _, err := r.ReadString('\n'); err != nil {
					return
				}
			}
			if answer(nc) != nil {
				return
			}
		}
	})
}

// slowServer answers each PING 5 ms after reading it.
func slowServer(t *testing.T) string {
	return pingServer(t, func(nc net.Conn) error {
		time.Sleep(5 * time.Millisecond)
		_, err := nc.Write([]byte("+PONG\r\n"))
		return err
	})
}

// TestDeferredReadKeepsTheArrivalTime: a reply that came 5 ms after the
// request and was read 50 ms after it came is timed at its arrival, by
// the kernel's clock, not at the read. The test waits for the reply to
// have come (Ready) rather than for a fixed time, so that a busy machine
// that delays the server does not fail it.
func TestDeferredReadKeepsTheArrivalTime(t *testing.T) {
	w := worker(t, endpoint.Target{Addr: slowServer(t), Timeout: 5 * time.Second}, "PING", 1, 0, 0)
	d, ok := w.(engine.Deferrer)
	require.True(t, ok, "a plain TCP worker on Linux defers")
	p, ok := w.(engine.Poller)
	require.True(t, ok)
	for i := range 5 {
		w.Prepare()
		require.True(t, d.Deferrable())
		var s engine.Step
		sent := time.Now()
		require.NoError(t, d.Start(&s))
		for deadline := time.Now().Add(5 * time.Second); p.Ready() != engine.Arrived && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		seen := time.Now() // the reply had come by now
		time.Sleep(50 * time.Millisecond)
		read := time.Now()
		arrived, err := d.Finish(context.Background(), &s)
		require.NoError(t, err)
		require.False(t, arrived.IsZero(), "the kernel gave the arrival time")
		assert.Greater(t, arrived.Sub(sent), 4*time.Millisecond, "request %d: the server answers 5 ms after", i)
		assert.False(t, arrived.After(seen), "request %d: the arrival, no later than the reply was seen", i)
		assert.GreaterOrEqual(t, read.Sub(arrived), 50*time.Millisecond, "request %d: not the read, 50 ms later", i)
		assert.Equal(t, 1, s.Ops)
		assert.Zero(t, s.Failed)
	}
}

// TestDeferredReadWaitsForALateReply: Finish before the reply came waits
// for it and returns its arrival.
func TestDeferredReadWaitsForALateReply(t *testing.T) {
	w := worker(t, endpoint.Target{Addr: slowServer(t), Timeout: 5 * time.Second}, "PING", 1, 0, 0)
	d := w.(engine.Deferrer)
	w.Prepare()
	require.True(t, d.Deferrable())
	var s engine.Step
	sent := time.Now()
	require.NoError(t, d.Start(&s))
	arrived, err := d.Finish(context.Background(), &s)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, arrived.Sub(sent), 4*time.Millisecond)
	assert.WithinDuration(t, time.Now(), arrived, 5*time.Millisecond)
}

// TestDeferringWorkerDoesNotAllocate: Start and Finish against a real
// redis-server, pipelined or not, allocate nothing.
func TestDeferringWorkerDoesNotAllocate(t *testing.T) {
	r := testenv.StartRedis(t)
	for _, pipeline := range []int{0, 16} {
		w := worker(t, endpoint.Target{Addr: r.Addr, Timeout: 5 * time.Second}, "SET k-__RAND__ v", 1000, 0, pipeline)
		d := w.(engine.Deferrer)
		var s engine.Step
		req := func() {
			s = engine.Step{}
			w.Prepare()
			require.True(t, d.Deferrable())
			require.NoError(t, d.Start(&s))
			_, err := d.Finish(context.Background(), &s)
			require.NoError(t, err)
		}
		for range 200 {
			req()
		}
		assert.Zero(t, testing.AllocsPerRun(500, req), "pipeline %d", pipeline)
		assert.Zero(t, s.Failed)
		assert.Equal(t, max(pipeline, 1), s.Ops)
	}
}

// TestDetachedConnection: a connection out of the runtime's poller (a
// group's) still sends, reads what has come without waiting (Ready says
// false before the reply, true after, with its arrival time), counts its
// bytes, allocates nothing per request on a real redis-server, and its
// reads end at once at the run's end.
func TestDetachedConnection(t *testing.T) {
	w := worker(t, endpoint.Target{Addr: slowServer(t), Timeout: 5 * time.Second}, "PING", 1, 0, 0)
	p := w.(engine.Poller)
	fd, ok := p.PollFD(true)
	require.True(t, ok)
	assert.Positive(t, fd)
	w.Prepare()
	require.True(t, p.Deferrable())
	var s engine.Step
	sent := time.Now()
	require.NoError(t, p.Start(&s))
	require.Eventually(t, func() bool { return p.Ready() == engine.Arrived }, 5*time.Second, time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	readAt := time.Now()
	arrived, err := p.Finish(context.Background(), &s)
	require.NoError(t, err)
	assert.Equal(t, 1, s.Ops)
	assert.Equal(t, len("+PONG\r\n"), s.BytesIn)
	assert.GreaterOrEqual(t, arrived.Sub(sent), 4*time.Millisecond, "the server answers 5 ms after")
	assert.True(t, arrived.Before(readAt), "the kernel's arrival, not the read")

	r := testenv.StartRedis(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var opts cmdtmpl.Options
	opts.Ranges[1] = cmdtmpl.Range{Max: 1000, Dist: cmdtmpl.Seq}
	wl, err := TemplateSpec{Template: "SET k-__RAND__ v", Options: opts}.Workload()
	require.NoError(t, err)
	ew, err := (&Factory{Target: endpoint.Target{Addr: r.Addr, Timeout: 5 * time.Second}, Workload: wl}).NewWorker(ctx, 0, 1)
	require.NoError(t, err)
	defer ew.Close()
	p = ew.(engine.Poller)
	_, ok = p.PollFD(true)
	require.True(t, ok)
	req := func() {
		s = engine.Step{}
		ew.Prepare()
		require.NoError(t, p.Start(&s))
		for p.Ready() == engine.NotYet {
		}
		_, err := p.Finish(ctx, &s)
		require.NoError(t, err)
	}
	for range 200 {
		req()
	}
	assert.Zero(t, testing.AllocsPerRun(500, req))
	// The run's end: a read waiting for a reply that will not come returns at once.
	ew.Prepare()
	cancel()
	start := time.Now()
	_, err = p.Finish(ctx, &s)
	require.Error(t, err)
	assert.Less(t, time.Since(start), time.Second)
}

// TestPolledWithoutArrivals: a connection a closed loop's group polls
// (PollFD(false)) reads without waiting as a timed one does, but leaves
// the kernel's receive timestamps off (they cost it on every packet and
// read) and reports no arrival; an open loop's (PollFD(true)) asks for
// them. Deferrable keeps the choice PollFD made.
func TestPolledWithoutArrivals(t *testing.T) {
	for _, arrivals := range []bool{false, true} {
		t.Run(strconv.FormatBool(arrivals), func(t *testing.T) {
			w := worker(t, endpoint.Target{Addr: slowServer(t), Timeout: 5 * time.Second}, "PING", 1, 0, 0)
			p := w.(engine.Poller)
			fd, ok := p.PollFD(arrivals)
			require.True(t, ok)
			on, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS)
			require.NoError(t, err)
			assert.Equal(t, arrivals, on == 1, "SO_TIMESTAMPNS")
			if arrivals {
				// The kernel turns receive stamps on for the whole system a
				// moment after the first socket asks (deferred work, later
				// on a busy machine): until then replies come unstamped.
				require.Eventually(t, func() bool {
					w.Prepare()
					var s engine.Step
					if p.Start(&s) != nil {
						return false
					}
					arrived, err := p.Finish(context.Background(), &s)
					return err == nil && !arrived.IsZero()
				}, 10*time.Second, time.Millisecond, "no stamped reply")
			}
			for range 3 {
				w.Prepare()
				require.True(t, p.Deferrable())
				var s engine.Step
				sent := time.Now()
				require.NoError(t, p.Start(&s))
				assert.Equal(t, engine.NotYet, p.Ready(), "the server answers 5 ms after")
				require.Eventually(t, func() bool { return p.Ready() == engine.Arrived }, 5*time.Second, time.Millisecond)
				arrived, err := p.Finish(context.Background(), &s)
				require.NoError(t, err)
				assert.Equal(t, 1, s.Ops)
				assert.Equal(t, len("+PONG\r\n"), s.BytesIn)
				if arrivals {
					assert.GreaterOrEqual(t, arrived.Sub(sent), 4*time.Millisecond)
				} else {
					assert.True(t, arrived.IsZero(), "no arrival without stamps: %v", arrived)
				}
			}
			on, err = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS)
			require.NoError(t, err)
			assert.Equal(t, arrivals, on == 1, "SO_TIMESTAMPNS after Deferrable")
		})
	}
}

// splitServer answers each PING with +PONG in two parts, the second once
// rest is received from.
func splitServer(t *testing.T, rest <-chan struct{}) string {
	return pingServer(t, func(nc net.Conn) error {
		if _, err := nc.Write([]byte("+PO")); err != nil {
			return err
		}
		<-rest
		_, err := nc.Write([]byte("NG\r\n"))
		return err
	})
}

// TestReadyWaitsForTheWholeReply: a reply that came in part is not ready
// (a group would otherwise wait for the rest and hold its other workers);
// once the rest came it is, and its arrival is the last part's.
func TestReadyWaitsForTheWholeReply(t *testing.T) {
	rest := make(chan struct{})
	w := worker(t, endpoint.Target{Addr: splitServer(t, rest), Timeout: 5 * time.Second}, "PING", 1, 0, 0)
	p := w.(engine.Poller)
	_, ok := p.PollFD(true)
	require.True(t, ok)
	c := w.(*deferringWorker).links.Direct
	w.Prepare()
	var s engine.Step
	require.NoError(t, p.Start(&s))
	require.Eventually(t, func() bool { return p.Ready() == engine.NotYet && c.BytesRead() == 3 }, 5*time.Second, time.Millisecond,
		"+PO came and is not a reply")
	// The first part had come by firstBy; the rest comes 20 ms later, a
	// gap no clock's grain can hide (the kernel's stamp and Go's clock
	// may differ by microseconds).
	firstBy := time.Now()
	time.Sleep(20 * time.Millisecond)
	close(rest)
	require.Eventually(t, func() bool { return p.Ready() == engine.Arrived }, 5*time.Second, time.Millisecond)
	arrived, err := p.Finish(context.Background(), &s)
	require.NoError(t, err)
	assert.Equal(t, 1, s.Ops)
	assert.Equal(t, len("+PONG\r\n"), s.BytesIn, "both parts counted")
	assert.Greater(t, arrived.Sub(firstBy), 10*time.Millisecond, "the arrival is the last part's, not the first's")
}

// TestReadySaysWhenAReplyOutgrowsTheBuffer: a reply larger than the read
// buffer cannot be told whole in it: Ready says Unknown (a group then
// lets the worker read it on its own), and Finish reads all of it.
func TestReadySaysWhenAReplyOutgrowsTheBuffer(t *testing.T) {
	tests := []struct {
		size int
		want engine.Readiness
	}{
		{100, engine.Arrived},
		{3000, engine.Arrived},                          // over the first buffer: it grows
		{transport.MaxReadBuffer - 100, engine.Arrived}, // up to the largest
		{64 << 10, engine.Unknown},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.size), func(t *testing.T) {
			reply := fmt.Appendf(nil, "$%d\r\n%s\r\n", tt.size, strings.Repeat("x", tt.size))
			w := worker(t, endpoint.Target{Addr: pingServer(t, func(nc net.Conn) error {
				_, err := nc.Write(reply)
				return err
			}), Timeout: 5 * time.Second}, "PING", 1, 0, 0)
			p := w.(engine.Poller)
			_, ok := p.PollFD(true)
			require.True(t, ok)
			for range 2 {
				w.Prepare()
				var s engine.Step
				require.NoError(t, p.Start(&s))
				var got engine.Readiness
				require.Eventually(t, func() bool { got = p.Ready(); return got != engine.NotYet }, 5*time.Second, time.Millisecond)
				assert.Equal(t, tt.want, got)
				_, err := p.Finish(context.Background(), &s)
				require.NoError(t, err)
				assert.Equal(t, 1, s.Ops)
				assert.Equal(t, len(reply), s.BytesIn)
			}
		})
	}
}

// TestLargeRepliesOnTheirOwnAreTimedWhole: a closed loop's workers whose
// replies are larger than the largest read buffer leave their group and
// wait on their own goroutines, parked in Go's poller. Every connection
// then keeps a request in flight: the mean latency times the rate is the
// number of connections (Little's law), and the median is near the mean.
// Waiting in poll(2) instead held the scheduler from the others: with 50
// connections, 30 of them busy on average, a median of 40 µs against a
// mean of 1.3 ms, and replies left unread for 600 ms.
func TestLargeRepliesOnTheirOwnAreTimedWhole(t *testing.T) {
	r := testenv.StartRedis(t, "--enable-debug-command", "yes")
	require.Equal(t, "OK", testenv.Do(t, r.Addr, "DEBUG", "POPULATE", "100", "big:", "40000"))
	var opts cmdtmpl.Options
	opts.Ranges[1] = cmdtmpl.Range{Max: 100}
	wl, err := TemplateSpec{Template: "GET big::__RAND__", Options: opts}.Workload()
	require.NoError(t, err)
	const conns = 50
	f := &Factory{Target: endpoint.Target{Addr: r.Addr, Timeout: 10 * time.Second}, Workload: wl}
	res, err := engine.Run(context.Background(), engine.Config{Workers: conns, Ops: 5000, OpsPerRequest: 1, Seed: 1}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	require.Zero(t, tot.Errors, "%+v", res.Snapshot.Errors)
	require.Equal(t, int64(5000), tot.Ops)
	assert.Zero(t, tot.Misses, "every key exists")
	busy := float64(tot.Ops) / res.Elapsed.Seconds() * tot.Latency.Mean / 1e6
	assert.Greater(t, busy, 0.7*conns, "connections with a request in flight, on average (Little's law)")
	assert.Greater(t, tot.Latency.P50, tot.Latency.Mean/4, "the median near the mean: no connection left waiting")
}

// TestPlainRepliesCountAsReadOnes: replies that Ready found whole and
// plain are counted by Finish without reading each, exactly as reading
// them counts. Two workers send the same commands (a sequence over 100
// keys, of which the first 50 hold a string) to two redis-servers loaded
// alike, one polled by Ready before Finish, one not; their counts and
// bytes agree request by request, for GET (misses) and INCR (errors), one
// command a request and pipelined.
func TestPlainRepliesCountAsReadOnes(t *testing.T) {
	var tgs [2]endpoint.Target
	for j := range tgs {
		r := testenv.StartRedis(t)
		for i := range 50 {
			testenv.Do(t, r.Addr, "SET", "k-"+strconv.Itoa(i), "v")
		}
		tgs[j] = endpoint.Target{Addr: r.Addr, Timeout: 5 * time.Second}
	}
	for _, tc := range []struct {
		tmpl     string
		pipeline int
		plain    int // requests whose replies are all plain, of 100
	}{{"GET k-__RAND__", 0, 50}, {"GET k-__RAND__", 4, 48}, {"INCR k-__RAND__", 0, 50}, {"INCR k-__RAND__", 4, 48}, {"SET x-__RAND__ v", 16, 100}} {
		polled, read := worker(t, tgs[0], tc.tmpl, 100, 0, tc.pipeline), worker(t, tgs[1], tc.tmpl, 100, 0, tc.pipeline)
		p, d := polled.(engine.Poller), read.(engine.Deferrer)
		_, ok := p.PollFD(true)
		require.True(t, ok)
		c := polled.(*deferringWorker).links.Direct
		skipped := 0
		for i := range 100 {
			var a, b engine.Step
			polled.Prepare()
			require.NoError(t, p.Start(&a))
			require.Eventually(t, func() bool { return p.Ready() == engine.Arrived }, 5*time.Second, 100*time.Microsecond)
			if c.FoundPlain() {
				skipped++
			}
			_, err := p.Finish(context.Background(), &a)
			require.NoError(t, err)
			read.Prepare()
			require.NoError(t, d.Start(&b))
			_, err = d.Finish(context.Background(), &b)
			require.NoError(t, err)
			assert.Equal(t, [3]int{b.Ops, b.Failed, b.Misses}, [3]int{a.Ops, a.Failed, a.Misses}, "%s -P %d, request %d", tc.tmpl, tc.pipeline, i)
			assert.Equal(t, b.BytesIn, a.BytesIn, "%s -P %d, request %d", tc.tmpl, tc.pipeline, i)
		}
		assert.Equal(t, tc.plain, skipped, "%s -P %d: requests whose replies were counted without reading", tc.tmpl, tc.pipeline)
	}
}
