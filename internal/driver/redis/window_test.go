package redis

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/redis/cluster"
	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/resp"
)

// holdingServer answers a command only once window commands are waiting
// for their replies (the oldest first), so a client that keeps fewer in
// flight stalls; after quiet with nothing new it answers the oldest (a
// run's tail). It records the most commands ever outstanding, the
// answers it gave on a timeout, and the order of the keys it answered.
type holdingServer struct {
	window int
	quiet  time.Duration
	// slots, when set, makes it a cluster node: CLUSTER gets *slots (the
	// CLUSTER SLOTS reply), HELLO an unknown command, and other commands
	// but SET an OK at once.
	slots    *string
	max      atomic.Int64
	timeouts atomic.Int64
	received atomic.Int64
	mu       sync.Mutex
	answered []string
}

func (h *holdingServer) serve(t *testing.T) string { return testenv.ServeEach(t, h.conn) }

// answers returns the keys answered so far, in order (a copy, read under
// the lock: the client's reads on raw descriptors do not order them).
func (h *holdingServer) answers() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.answered...)
}

func (h *holdingServer) conn(c net.Conn) {
	defer c.Close()
	r := resp.NewReader(bufio.NewReader(c), resp.Limits{})
	var pending []string
	answer := func() {
		h.mu.Lock()
		h.answered = append(h.answered, pending[0])
		h.mu.Unlock()
		pending = pending[1:]
		_, _ = c.Write([]byte("+OK\r\n"))
	}
	for {
		_ = c.SetReadDeadline(time.Now().Add(h.quiet))
		args, err := r.ReadCommand(nil)
		if ne, ok := err.(net.Error); ok && ne.Timeout() && len(pending) > 0 {
			h.timeouts.Add(1)
			answer()
			continue
		}
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return
		}
		if len(args) == 0 || h.answeredAtOnce(c, args) {
			continue
		}
		h.received.Add(1)
		pending = append(pending, string(args[1]))
		if n := int64(len(pending)); n > h.max.Load() {
			h.max.Store(n)
		}
		if len(pending) >= h.window {
			answer()
		}
	}
}

// answeredAtOnce answers a cluster node's commands other than SET.
func (h *holdingServer) answeredAtOnce(c net.Conn, args [][]byte) bool {
	if h.slots == nil {
		return false
	}
	switch strings.ToUpper(string(args[0])) {
	case "SET":
		return false
	case "CLUSTER":
		_, _ = c.Write([]byte(*h.slots))
	case "HELLO":
		_, _ = c.Write([]byte("-ERR unknown command 'HELLO'\r\n"))
	default:
		_, _ = c.Write([]byte("+OK\r\n"))
	}
	return true
}

func windowWorkload(t *testing.T, tmpl string, n int, limit int64) Workload {
	var opts cmdtmpl.Options
	opts.Ranges[1] = cmdtmpl.Range{Max: 1 << 30, Dist: cmdtmpl.Seq}
	w, err := TemplateSpec{Template: tmpl, Options: opts, Window: n, WindowLimit: limit}.Workload()
	require.NoError(t, err)
	return w
}

// TestWindowKeepsExactlyNInFlight: with a server that answers only when N
// commands wait, a window of N runs through, closed-loop and under an open
// loop (each command at its own intended start): it never has more than N
// out, the only slow answers are the tail's (N−1), every command is
// counted once, replies come in send order, and each latency runs from its
// own command's send.
func TestWindowKeepsExactlyNInFlight(t *testing.T) {
	for _, rate := range []float64{0, 2000} {
		t.Run(map[bool]string{true: "closed", false: "open"}[rate == 0], func(t *testing.T) {
			const n, limit = 4, 200
			h := &holdingServer{window: n, quiet: time.Second}
			tg := endpoint.Target{Addr: h.serve(t), Timeout: 5 * time.Second}
			f := &Factory{Target: tg, Workload: windowWorkload(t, "SET k-__RAND__ v", n, limit)}
			res, err := engine.Run(context.Background(), engine.Config{Workers: 1, OpsPerWorker: limit, OpsPerRequest: 1, Rate: rate}, f)
			require.NoError(t, err)
			tot := res.Snapshot.Totals
			assert.Equal(t, int64(limit), tot.Ops)
			assert.Equal(t, int64(limit), tot.Requests, "one reply per request")
			assert.Equal(t, int64(0), tot.AfterDeadlineOps)
			assert.Equal(t, int64(0), tot.Errors)
			assert.Equal(t, int64(limit), h.received.Load(), "exactly the limit was sent")
			assert.Equal(t, int64(n), h.max.Load(), "never more than N outstanding")
			assert.Equal(t, int64(n-1), h.timeouts.Load(), "only the tail waited: the window was full all along")
			answered := h.answers()
			require.Len(t, answered, limit)
			for i, k := range answered {
				require.Equal(t, "k-"+itoa(i), k, "in send order")
			}
			// The tail waited a quiet period each, from its own send: the slowest
			// latency holds the (N−1) quiet periods of the last command, not more.
			assert.Less(t, tot.Latency.Max, float64(n*1_000_000+2_000_000))
			assert.Equal(t, rate > 0, tot.CorrectedLatency != nil, "open: also from each intended start")
		})
	}
}

func itoa(i int) string {
	return string(resp.AppendInt(nil, int64(i))[1 : len(resp.AppendInt(nil, int64(i)))-2])
}

// TestWindowDrainsItsTail: a timed run ends with commands in flight; they
// are read and counted as completed after the run's end, so the server's
// count equals the client's.
func TestWindowDrainsItsTail(t *testing.T) {
	_, tg := embedded(t)
	// Two workers split the key range: every SET writes a key of its own.
	f := &Factory{Target: tg, Workload: windowWorkload(t, "SET k-__RAND__ v", 16, 0), Workers: 2}
	res, err := engine.Run(context.Background(), engine.Config{Workers: 2, Duration: 300 * time.Millisecond, OpsPerRequest: 1}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Positive(t, tot.AfterDeadlineOps)
	assert.Equal(t, int64(0), tot.Errors)
	c, err := transport.Dial(context.Background(), tg)
	require.NoError(t, err)
	defer c.Close()
	got, err := c.DoString("DBSIZE")
	require.NoError(t, err)
	assert.Equal(t, itoa(int(tot.Ops+tot.WarmupOps+tot.AfterDeadlineOps)), got, "the server ran what the client counted")
}

func TestWindowRefusals(t *testing.T) {
	for _, ts := range []TemplateSpec{
		{Template: "GET k", Window: 4, Pipeline: 2},
		{Template: "GET k", Window: 4, Batching: 2},
		{Template: "GET k", Window: 4, Inline: true},
		{Template: "GET k", Window: -1},
	} {
		_, err := ts.Workload()
		assert.Error(t, err, "%+v", ts)
	}
}

// delayServer answers each command delay after it read it, in order; with
// split it writes each reply in two parts 2 ms apart (a reply that comes
// in part while the client waits with a deadline; a reply goes 2 ms after
// the previous one, so the window fills). It records the most commands
// outstanding at once.
type delayServer struct {
	delay     time.Duration
	split     bool
	most      atomic.Int64
	received  atomic.Int64
	delivered atomic.Int64
}

func (d *delayServer) conn(c net.Conn) {
	defer c.Close()
	due := make(chan time.Time, 1<<16)
	go func() {
		for at := range due {
			time.Sleep(time.Until(at))
			last := "+OK\r\n"
			if d.split {
				_, _ = c.Write([]byte("+O"))
				time.Sleep(2 * time.Millisecond)
				last = "K\r\n"
			}
			// Counted before the reply's end goes: the client may answer it
			// with a new command before a count after the write.
			d.delivered.Add(1)
			_, _ = c.Write([]byte(last))
		}
	}()
	defer close(due)
	r := resp.NewReader(bufio.NewReader(c), resp.Limits{})
	for {
		if _, err := r.ReadCommand(nil); err != nil {
			return
		}
		if out := d.received.Add(1) - d.delivered.Load(); out > d.most.Load() {
			d.most.Store(out)
		}
		due <- time.Now().Add(d.delay)
	}
}

// TestOpenWindowSendsWithRepliesOutstanding: with replies 10 ms away and a
// command due every 1 ms, the open loop's window has several in flight (a
// closed loop would have one), each reply timed from its own send; replies
// that come in two parts are read whole.
func TestOpenWindowSendsWithRepliesOutstanding(t *testing.T) {
	for _, split := range []bool{false, true} {
		t.Run(map[bool]string{false: "whole", true: "split"}[split], func(t *testing.T) {
			const window, count = 32, 300
			d := &delayServer{delay: 10 * time.Millisecond, split: split}
			tg := endpoint.Target{Addr: testenv.ServeEach(t, d.conn), Timeout: 5 * time.Second}
			f := &Factory{Target: tg, Workload: windowWorkload(t, "SET k-__RAND__ v", window, count)}
			res, err := engine.Run(context.Background(), engine.Config{Workers: 1, OpsPerWorker: count, OpsPerRequest: 1, Rate: 1000}, f)
			require.NoError(t, err)
			tot := res.Snapshot.Totals
			assert.Equal(t, int64(count), tot.Ops)
			assert.Equal(t, int64(0), tot.Errors)
			assert.Equal(t, int64(count), d.received.Load())
			assert.Greater(t, d.most.Load(), int64(1), "commands sent while replies were outstanding")
			assert.LessOrEqual(t, d.most.Load(), int64(window))
			assert.GreaterOrEqual(t, tot.Latency.Min, 9_900.0, "each from its own send: at least the server's 10 ms")
		})
	}
}

// TestWindowBytesAreEachCommands: a window's write carries several
// commands and one read several replies, yet each type's bytes are its
// own commands' and replies' (memtier's KB/sec by type), closed-loop and
// open. SET k v is 27 bytes and takes +OK (5); GET k is 20 and takes $1 v (7).
func TestWindowBytesAreEachCommands(t *testing.T) {
	_, tg := embedded(t)
	for _, rate := range []float64{0, 4000} {
		t.Run(map[bool]string{true: "closed", false: "open"}[rate == 0], func(t *testing.T) {
			const limit = 400
			spec := TemplateSpec{Rotate: true, Window: 8, WindowLimit: limit,
				Mix: []MixEntry{{Template: "SET k v", Weight: 1}, {Template: "GET k", Weight: 3}}}
			w, err := spec.Workload()
			require.NoError(t, err)
			f := &Factory{Target: tg, Workload: w}
			res, err := engine.Run(context.Background(), engine.Config{Workers: 1, OpsPerWorker: limit, OpsPerRequest: 1, Rate: rate,
				Operations: []string{"SET", "GET"}}, f)
			require.NoError(t, err)
			ops := res.Snapshot.Operations
			require.Len(t, ops, 2)
			assert.Equal(t, int64(limit), ops[0].Ops+ops[1].Ops)
			assert.Equal(t, int64(limit/4), ops[0].Ops, "one SET in four")
			assert.Equal(t, ops[0].Ops*27, ops[0].BytesOut, "SET sent")
			assert.Equal(t, ops[0].Ops*5, ops[0].BytesIn, "SET read")
			assert.Equal(t, ops[1].Ops*20, ops[1].BytesOut, "GET sent")
			assert.Equal(t, ops[1].Ops*7, ops[1].BytesIn, "GET read")
			tot := res.Snapshot.Totals
			assert.Equal(t, ops[0].BytesOut+ops[1].BytesOut, tot.BytesOut)
			assert.Equal(t, ops[0].BytesIn+ops[1].BytesIn, tot.BytesIn)
		})
	}
}

// TestWindowTimesFromBeforeTheWrite: a command's latency runs from before
// the write that sends it, as a single command's does, on one connection
// and on a cluster node's. Here the write of two 24 MB SETs cannot finish
// before the server, which waits 100 ms before each read, has taken the
// first: timed from the write's end, the first reply would seem to take
// no time at all.
func TestWindowTimesFromBeforeTheWrite(t *testing.T) {
	const wait = 100 * time.Millisecond
	for _, isCluster := range []bool{false, true} {
		t.Run(map[bool]string{false: "standalone", true: "cluster"}[isCluster], func(t *testing.T) {
			var slots string // the CLUSTER SLOTS reply: this node holds every slot
			addr := testenv.ServeEach(t, func(c net.Conn) {
				defer c.Close()
				r := resp.NewReader(bufio.NewReader(c), resp.Limits{MaxBulk: 64 << 20})
				for {
					time.Sleep(wait)
					args, err := r.ReadCommand(nil)
					if err != nil {
						return
					}
					reply := "+OK\r\n"
					switch strings.ToUpper(string(args[0])) {
					case "CLUSTER":
						reply = slots
					case "HELLO":
						reply = "-ERR unknown command 'HELLO'\r\n"
					}
					if _, err := c.Write([]byte(reply)); err != nil {
						return
					}
				}
			})
			host, port, _ := net.SplitHostPort(addr)
			slots = fmt.Sprintf("*1\r\n*3\r\n:0\r\n:%d\r\n*3\r\n$%d\r\n%s\r\n:%s\r\n$2\r\nn0\r\n", cluster.SlotCount-1, len(host), host, port)
			spec := TemplateSpec{Template: "SET k __DATA__", Options: cmdtmpl.Options{DataSize: 24 << 20}, Window: 2, WindowLimit: 2}
			w, err := spec.Workload()
			require.NoError(t, err)
			f := &Factory{Target: endpoint.Target{Addr: addr, Cluster: isCluster, Timeout: 10 * time.Second}, Workload: w, Workers: 1}
			res, err := engine.Run(context.Background(), engine.Config{Workers: 1, OpsPerWorker: 2, OpsPerRequest: 1}, f)
			require.NoError(t, err)
			tot := res.Snapshot.Totals
			require.Equal(t, int64(2), tot.Ops)
			assert.GreaterOrEqual(t, tot.Latency.Min, histFloor(wait.Microseconds()), "the first reply came at least %s after the write began", wait)
		})
	}
}
