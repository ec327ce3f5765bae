package transport

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/resp"
)

// silentServer accepts connections on network and never answers; it
// closes them when the test ends. accepted says how many it has taken.
func silentServer(t *testing.T, network string) (addr string, accepted func() int) {
	addr = "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	ln, err := net.Listen(network, addr)
	require.NoError(t, err)
	var mu sync.Mutex
	// Room for every connection a test makes, so that no batch of an
	// allocation count pays for the slice's growth.
	held := make([]net.Conn, 0, 1<<14)
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, nc := range held {
			_ = nc.Close()
		}
	})
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, nc)
			mu.Unlock()
		}
	}()
	return ln.Addr().String(), func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(held)
	}
}

// blockedRead starts a read on c that no reply will satisfy.
func blockedRead(c *Conn) <-chan error {
	done := make(chan error, 1)
	go func() {
		var rep resp.Reply
		done <- c.Read(&rep)
	}()
	return done
}

// assertEnds waits for a blocked read to end in an error; what names the
// read in the failure.
func assertEnds(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		assert.Error(t, err, what)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s went on", what)
	}
}

// TestStopHubEndsEveryWait: the run's end ends the blocked reads of every
// connection in its hub (one hook for all of them, none of their own), on
// TCP (dialled outside the poller where it can be) and on a Unix socket;
// each Close takes its connection out of the hub. (Detached connections:
// TestDetachStopsOnItsContext.)
func TestStopHubEndsEveryWait(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			addr, _ := silentServer(t, network)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var hubs StopHubs
			hub := hubs.For(ctx)
			require.Same(t, hub, hubs.For(ctx), "one hub for the run's workers")
			tg := endpoint.Target{Addr: addr, Timeout: time.Minute}
			links := make([]*Links, 3)
			var waits []<-chan error
			for i := range links {
				links[i] = NewLinks(ctx, &tg, hub)
				c, err := links[i].Main()
				require.NoError(t, err)
				assert.Nil(t, c.stopCtx, "no hook of its own")
				waits = append(waits, blockedRead(c))
			}
			assert.Equal(t, 3, hub.len())
			cancel()
			for i, done := range waits {
				assertEnds(t, done, fmt.Sprintf("connection %d's read after the run ended", i))
			}
			for _, l := range links {
				require.NoError(t, l.Close())
			}
			assert.Equal(t, 0, hub.len(), "Close leaves the hub")
		})
	}
}

// deadlineLog records the deadlines set on it.
type deadlineLog struct{ set []time.Time }

func (d *deadlineLog) SetDeadline(t time.Time) error {
	d.set = append(d.set, t)
	return nil
}

// TestStopHubAfterTheEnd: a connection that joins a hub whose context has
// ended, or moves to another net.Conn in it, is stopped at once; one
// dialled into it does not wait.
func TestStopHubAfterTheEnd(t *testing.T) {
	addr, _ := silentServer(t, "tcp")
	ended, end := context.WithCancel(context.Background())
	hub := NewStopHub(ended)
	end()
	require.Eventually(t, func() bool { hub.mu.Lock(); defer hub.mu.Unlock(); return hub.done }, 10*time.Second, time.Millisecond)
	var joined, moved deadlineLog
	late := &Conn{}
	hub.add(late, &joined) // the dial below mostly sees the ended context first
	hub.retarget(late, &moved)
	assert.Equal(t, []time.Time{pastDeadline}, joined.set, "joined after the end: stopped at once")
	assert.Equal(t, []time.Time{pastDeadline}, moved.set, "moved after the end: stopped at once")
	hub.remove(late)
	assert.Equal(t, 0, hub.len())
	if c, err := dial(ended, endpoint.Target{Addr: addr, Timeout: time.Minute}, hub); err == nil {
		assertEnds(t, blockedRead(c), "the read of a connection that joined an ended hub")
		_ = c.Close()
	}
}

// TestStopHubSavesAllocations: connections in a hub take less heap than
// with a hook each (context.AfterFunc: its context, its closure and its
// entry in the parent's children), measured on 500 connections each way, three times.
func TestStopHubSavesAllocations(t *testing.T) {
	testenv.NoRaceForAllocs(t)
	addr, accepted := silentServer(t, "tcp")
	tg := endpoint.Target{Addr: addr, Timeout: time.Minute}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	total := 0
	// Every batch stays open until the end: a closed batch's memory would
	// come back inside a later batch's count.
	var open []*Conn
	defer func() {
		for _, c := range open {
			_ = c.Close()
		}
	}()
	perConn := func(hub *StopHub) float64 {
		const n = 500
		total += n
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range n {
			c, err := dial(ctx, tg, hub)
			require.NoError(t, err)
			open = append(open, c)
		}
		// The server's side of each connection, held, weighs the same in
		// both counts once every one is accepted.
		require.Eventually(t, func() bool { return accepted() >= total }, 10*time.Second, time.Millisecond)
		runtime.GC()
		runtime.ReadMemStats(&after)
		return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	}
	hub := NewStopHub(ctx)
	perConn(nil) // warm-up: the first batch pays for the process's own growth
	// Both orders, three times, the median of each: a batch measured after
	// others weighs more, and whatever else the process allocates or frees
	// meanwhile (a busy machine's late goroutines of earlier tests) moves a
	// reading.
	var owns, shareds []float64
	for range 3 {
		own1, shared1, shared2, own2 := perConn(nil), perConn(hub), perConn(hub), perConn(nil)
		owns, shareds = append(owns, (own1+own2)/2), append(shareds, (shared1+shared2)/2)
	}
	slices.Sort(owns)
	slices.Sort(shareds)
	own, shared := owns[1], shareds[1] // the medians: one round moved by the rest of the process is left out
	t.Logf("heap a connection: %.0f bytes with a hook each, %.0f in a hub", own, shared)
	assert.Less(t, shared, own-100, "a hub saves the hook's 180 bytes a connection")
}
