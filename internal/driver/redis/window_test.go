package redis

import (
	"bufio"
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/resp"
)

// holdingServer answers a command only once window commands are waiting
// for their replies (the oldest first), so a client that keeps fewer in
// flight stalls; after quiet with nothing new it answers the oldest (a
// run's tail). It records the most commands ever outstanding, the
// answers it gave on a timeout, and the order of the keys it answered.
type holdingServer struct {
	window   int
	quiet    time.Duration
	max      atomic.Int64
	timeouts atomic.Int64
	received atomic.Int64
	mu       sync.Mutex
	answered []string
}

func (h *holdingServer) serve(t *testing.T) string { return serveEach(t, h.conn) }

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
		if len(args) == 0 {
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

func windowWorkload(t *testing.T, tmpl string, n int, limit int64) Workload {
	var opts cmdtmpl.Options
	opts.Ranges[1] = cmdtmpl.Range{Max: 1 << 30, Dist: cmdtmpl.Seq}
	w, err := TemplateSpec{Template: tmpl, Options: opts, Window: n, WindowLimit: limit}.Workload()
	require.NoError(t, err)
	return w
}

// TestWindowKeepsExactlyNInFlight: with a server that answers only when N
// commands wait, a window of N runs through; it never has more than N out,
// the only slow answers are the tail's (N−1), every command is counted
// once, replies come in send order, and each latency runs from its own
// command's send.
func TestWindowKeepsExactlyNInFlight(t *testing.T) {
	const n, limit = 4, 200
	h := &holdingServer{window: n, quiet: time.Second}
	tg := endpoint.Target{Addr: h.serve(t), Timeout: 5 * time.Second}
	f := &Factory{Target: tg, Workload: windowWorkload(t, "SET k-__RAND__ v", n, limit)}
	res, err := engine.Run(context.Background(), engine.Config{Workers: 1, OpsPerWorker: limit, OpsPerRequest: 1}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Equal(t, int64(limit), tot.Ops)
	assert.Equal(t, int64(limit), tot.Requests, "one reply per request")
	assert.Equal(t, int64(0), tot.AfterDeadlineOps)
	assert.Equal(t, int64(limit), h.received.Load(), "exactly the limit was sent")
	assert.Equal(t, int64(n), h.max.Load(), "never more than N outstanding")
	assert.Equal(t, int64(n-1), h.timeouts.Load(), "only the tail waited: the window was full all along")
	require.Len(t, h.answered, limit)
	for i, k := range h.answered[:10] {
		assert.Equal(t, "k-"+itoa(i), k, "in send order")
	}
	// The tail waited a quiet period each, from its own send: the slowest
	// latency holds the (N−1) quiet periods of the last command, not more.
	assert.Less(t, tot.Latency.Max, float64(n*1_000_000+2_000_000))
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
	c, err := Dial(context.Background(), tg)
	require.NoError(t, err)
	defer c.Close()
	got, err := c.DoString("DBSIZE")
	require.NoError(t, err)
	assert.Equal(t, itoa(int(tot.Ops+tot.WarmupOps+tot.AfterDeadlineOps)), got, "the server ran what the client counted")
}

func TestWindowRefusals(t *testing.T) {
	f := &Factory{Target: endpoint.Target{Addr: "127.0.0.1:1", Cluster: true}, Workload: windowWorkload(t, "GET k", 4, 0)}
	_, err := f.NewWorker(context.Background(), 0, 1)
	assert.ErrorContains(t, err, "not supported on a cluster yet")
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
