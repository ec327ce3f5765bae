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

	"github.com/tairbench/tairbench/internal/driver/redis/cluster"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/pollset"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/resp"
)

// startHoldingCluster starts two fake cluster nodes (holdingServer),
// each serving half the slots, which CLUSTER SLOTS names.
func startHoldingCluster(t *testing.T, window int, quiet time.Duration) ([2]*holdingServer, []string) {
	var nodes [2]*holdingServer
	var slots string
	addrs := make([]string, 2)
	for i := range nodes {
		nodes[i] = &holdingServer{window: window, quiet: quiet, slots: &slots}
		addrs[i] = nodes[i].serve(t)
	}
	slots = halvesReply(addrs)
	return nodes, addrs
}

// halvesReply is the CLUSTER SLOTS reply of two nodes, each serving half
// the slots: addrs[0] the lower, addrs[1] the upper.
func halvesReply(addrs []string) string {
	var b strings.Builder
	b.WriteString("*2\r\n")
	for i, a := range addrs {
		host, port, _ := net.SplitHostPort(a)
		lo, hi := i*cluster.SlotCount/2, (i+1)*cluster.SlotCount/2-1
		fmt.Fprintf(&b, "*3\r\n:%d\r\n:%d\r\n*3\r\n$%d\r\n%s\r\n:%s\r\n$2\r\nn%d\r\n", lo, hi, len(host), host, port, i)
	}
	return b.String()
}

// TestClusterWindowKeepsNInFlightPerNode: on a cluster, a window of N
// keeps N commands in flight on each node's connection, as memtier's
// --pipeline does with --cluster-mode: never more, and all along (the only
// slow answers are each node's tail), every command counted once and sent
// once, each node's replies in send order, each latency from its own send.
func TestClusterWindowKeepsNInFlightPerNode(t *testing.T) {
	const n, limit = 4, 400
	nodes, addrs := startHoldingCluster(t, n, 300*time.Millisecond)
	tg := endpoint.Target{Addr: addrs[0], Cluster: true, Timeout: 5 * time.Second}
	f := &Factory{Target: tg, Workload: windowWorkload(t, "SET k-__RAND__ v", n, limit)}
	res, err := engine.Run(context.Background(), engine.Config{Workers: 1, OpsPerWorker: limit, OpsPerRequest: 1}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Equal(t, int64(limit), tot.Ops)
	assert.Equal(t, int64(limit), tot.Requests, "one reply per request")
	assert.Equal(t, int64(0), tot.Errors)
	var received int64
	for i, nd := range nodes {
		received += nd.received.Load()
		assert.Equal(t, int64(n), nd.max.Load(), "node %d: never more than N outstanding", i)
		assert.LessOrEqual(t, nd.timeouts.Load(), int64(n-1), "node %d: only the tail waited", i)
		assert.Positive(t, nd.received.Load(), "node %d: keys of both halves", i)
		last := -1
		for _, k := range nd.answers() {
			seq, err := strconv.Atoi(strings.TrimPrefix(k, "k-"))
			require.NoError(t, err)
			require.Greater(t, seq, last, "node %d: in send order", i)
			last = seq
		}
	}
	assert.Equal(t, int64(limit), received, "exactly the limit was sent, each command once")
	assert.Less(t, tot.Latency.Max, float64(n*300_000+1_000_000), "from each command's own send")
}

// TestClusterWindowModes runs a window on a real 3-node cluster, over
// random keys and on one hash tag: the nodes executed every SET the client
// counted, once, with no errors.
func TestClusterWindowModes(t *testing.T) {
	cl := testenv.StartCluster(t, 3)
	calls := func() (n int64) {
		for _, nd := range cl.Nodes {
			n += testenv.CommandCalls(t, nd.Addr, "set")
		}
		return n
	}
	for _, tmpl := range []string{"SET k-__RAND__ v", "SET {t}k-__RAND__ v"} {
		t.Run(tmpl, func(t *testing.T) {
			before := calls()
			f, cfg := clusterWindowRun(t, cl.Nodes[0].Addr, tmpl, 0, 0, 16, engine.Config{Workers: 3, Duration: 400 * time.Millisecond, Seed: 1})
			res, err := engine.Run(context.Background(), cfg, f)
			require.NoError(t, err)
			tot := res.Snapshot.Totals
			assert.Zero(t, tot.Errors)
			assert.Positive(t, tot.AfterDeadlineOps, "the tail was read after the deadline")
			assert.Equal(t, tot.Ops+tot.WarmupOps+tot.AfterDeadlineOps, calls()-before, "the nodes executed every SET once")
		})
	}
}

// TestClusterWindowFollowsAMigration: a window follows ASK and MOVED while
// a hot slot moves: no command fails and the nodes ran each once.
func TestClusterWindowFollowsAMigration(t *testing.T) { followMigration(t, 0, 0, 8) }

// TestClusterWindowOpenLoop runs a window on a real 3-node cluster under
// an open loop: the schedule's count goes, each command once, from each
// command's intended start too, with no errors.
func TestClusterWindowOpenLoop(t *testing.T) {
	cl := testenv.StartCluster(t, 3)
	calls := func() (n int64) {
		for _, nd := range cl.Nodes {
			n += testenv.CommandCalls(t, nd.Addr, "set")
		}
		return n
	}
	before := calls()
	f, cfg := clusterWindowRun(t, cl.Nodes[0].Addr, "SET k-__RAND__ v", 0, 0, 4, engine.Config{Workers: 2, Ops: 600, Rate: 1500, Seed: 1})
	res, err := engine.Run(context.Background(), cfg, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Zero(t, tot.Errors)
	assert.Equal(t, int64(600), tot.Ops+tot.AfterDeadlineOps)
	assert.Equal(t, int64(600), calls()-before, "the nodes executed every SET once")
	assert.NotNil(t, tot.CorrectedLatency, "from each intended start")
}

// TestClusterWindowDoesNotAllocate: once every node's connection is up
// and the rings have their size, a reply costs no allocation.
func TestClusterWindowDoesNotAllocate(t *testing.T) {
	cl := testenv.StartCluster(t, 3)
	f, _ := clusterWindowRun(t, cl.Nodes[0].Addr, "SET k-__RAND__ v", 0, 0, 16, engine.Config{Workers: 1})
	assertNoAllocs(t, f, 2000)
}

// TestClusterWindowDrainCountsEveryLostCommand: when the run's tail cannot
// be read (here both nodes' connections are gone), every command in flight
// on any node is counted lost, not only those of the first that failed.
func TestClusterWindowDrainCountsEveryLostCommand(t *testing.T) {
	const n = 4
	_, addrs := startHoldingCluster(t, n, 200*time.Millisecond)
	tg := endpoint.Target{Addr: addrs[0], Cluster: true, Timeout: 5 * time.Second}
	f := &Factory{Target: tg, Workload: windowWorkload(t, "SET k-__RAND__ v", n, 0)}
	wk, err := f.NewWorker(context.Background(), 0, 1)
	require.NoError(t, err)
	defer wk.Close()
	w := wk.(*clusterWindow)
	for range 20 {
		var s engine.Step
		w.Prepare()
		require.NoError(t, w.Exec(context.Background(), &s))
	}
	inFlight := 0
	for _, nw := range w.wins {
		require.Positive(t, nw.flying, "both nodes have commands in flight")
		inFlight += nw.flying
		require.NoError(t, nw.c.NetConn.Close())
	}
	var s engine.Step
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	assert.Error(t, w.Drain(ctx, &s))
	assert.Zero(t, s.Ops)
	assert.Equal(t, inFlight, s.Lost)
}

// TestForgetUnsent: at the run's end a node's waiting commands that never
// went are dropped; those a redirection sends again stay, in order, each
// with a buffer of its own, and the draw counters follow.
func TestForgetUnsent(t *testing.T) {
	w := &clusterWindow{n: 2}
	nw := w.wins[w.windowOf("a:1")] // a ring of 2n+1 = 5
	sent := time.Unix(1, 0)
	for i, s := range []time.Time{sent, sent, {}, sent, {}} { // 2 in flight, 3 waiting
		e := nw.tail()
		e.cmd, e.sent, e.op = []byte{byte('a' + i)}, s, i
		w.queue(nw)
	}
	nw.flying, nw.queued = 2, 3
	require.Equal(t, 1, w.over, "5 > 2n")
	w.forgetUnsent(nw)
	assert.Equal(t, 2, nw.flying)
	require.Equal(t, 1, nw.queued, "the redirected one stays")
	assert.Equal(t, 3, nw.at(2).op)
	assert.Equal(t, []byte{'d'}, nw.at(2).cmd)
	assert.Equal(t, 0, w.over)
	assert.Equal(t, 0, w.below, "3 ≥ n")
	seen := map[*byte]bool{}
	for i := range nw.ring {
		if c := nw.ring[i].cmd; len(c) > 0 {
			assert.False(t, seen[&c[0]], "no buffer shared")
			seen[&c[0]] = true
		}
	}
}

// TestClusterWindowBytesAreEachCommands: on a cluster too, each type's
// bytes are its own commands' and replies', though a node's write carries
// several commands and a read several replies. Keys a and b live on two
// nodes; SET x v is 27 bytes and takes +OK (5), GET b is 20 and takes $1 v
// (7: b was set before, on its node, in order).
func TestClusterWindowBytesAreEachCommands(t *testing.T) {
	cl := testenv.StartCluster(t, 3)
	const limit = 600
	spec := TemplateSpec{Rotate: true, Window: 8, WindowLimit: limit, Mix: []MixEntry{
		{Name: "SETA", Template: "SET a v", Weight: 1}, {Name: "SETB", Template: "SET b v", Weight: 1}, {Name: "GETB", Template: "GET b", Weight: 2}}}
	w, err := spec.Workload()
	require.NoError(t, err)
	f := &Factory{Target: endpoint.Target{Addr: cl.Nodes[0].Addr, Cluster: true, Timeout: 5 * time.Second}, Workload: w, Workers: 1}
	res, err := engine.Run(context.Background(), engine.Config{Workers: 1, OpsPerWorker: limit, OpsPerRequest: 1, Operations: w.OpNames()}, f)
	require.NoError(t, err)
	ops := res.Snapshot.Operations
	require.Len(t, ops, 3)
	assert.Zero(t, res.Snapshot.Totals.Errors)
	for i, want := range [][2]int64{{27, 5}, {27, 5}, {20, 7}} {
		assert.Positive(t, ops[i].Ops)
		assert.Equal(t, ops[i].Ops*want[0], ops[i].BytesOut, "%s sent", ops[i].Name)
		assert.Equal(t, ops[i].Ops*want[1], ops[i].BytesIn, "%s read", ops[i].Name)
	}
}

// slowNode serves a fake cluster node that answers every SET delay after
// it came (in order) and the handshake and CLUSTER SLOTS (*slots) at once.
func slowNode(t *testing.T, delay time.Duration, slots *string) string {
	return testenv.ServeEach(t, func(c net.Conn) {
		defer c.Close()
		due := make(chan time.Time, 1<<12)
		defer close(due)
		go func() {
			for at := range due {
				time.Sleep(time.Until(at))
				_, _ = c.Write([]byte("+OK\r\n"))
			}
		}()
		r := resp.NewReader(bufio.NewReader(c), resp.Limits{})
		for {
			args, err := r.ReadCommand(nil)
			if err != nil {
				return
			}
			switch strings.ToUpper(string(args[0])) {
			case "SET":
				due <- time.Now().Add(delay)
			case "CLUSTER":
				_, _ = c.Write([]byte(*slots))
			case "HELLO":
				_, _ = c.Write([]byte("-ERR unknown command 'HELLO'\r\n"))
			default:
				_, _ = c.Write([]byte("+OK\r\n"))
			}
		}
	})
}

// TestClusterWindowReadsEachNodeAsItAnswers: one node answers at once,
// the other 200 ms late. The fast node's replies are read as they come,
// not behind the slow node's older commands: its latencies stay under half
// the slow node's (read behind them, they would take up to 200 ms too).
func TestClusterWindowReadsEachNodeAsItAnswers(t *testing.T) {
	if !pollset.Supported {
		t.Skip("the nodes are watched at once on Linux only")
	}
	const delay = 200 * time.Millisecond
	var slots string
	fast, slow := slowNode(t, 0, &slots), slowNode(t, delay, &slots)
	slots = halvesReply([]string{slow, fast}) // b's slot (3300) is the slow node's, a's (15495) the fast one's
	spec := TemplateSpec{Rotate: true, Window: 4, WindowLimit: 64, Mix: []MixEntry{
		{Name: "SETA", Template: "SET a v", Weight: 1}, {Name: "SETB", Template: "SET b v", Weight: 1}}}
	w, err := spec.Workload()
	require.NoError(t, err)
	f := &Factory{Target: endpoint.Target{Addr: fast, Cluster: true, Timeout: 5 * time.Second}, Workload: w, Workers: 1}
	res, err := engine.Run(context.Background(), engine.Config{Workers: 1, OpsPerWorker: 64, OpsPerRequest: 1, Operations: w.OpNames()}, f)
	require.NoError(t, err)
	ops := res.Snapshot.Operations
	require.Len(t, ops, 2)
	require.Equal(t, int64(32), ops[0].Ops)
	require.Equal(t, int64(32), ops[1].Ops)
	assert.GreaterOrEqual(t, ops[1].Latency.Min, histFloor(delay.Microseconds()), "the slow node's")
	assert.Less(t, ops[0].Latency.Max, float64(delay.Microseconds())/2, "the fast node's, read as they came (behind the slow node: 200 ms)")
}

// histFloor is the least minimum a run reports for latencies of at least
// us microseconds: a latency lands in a bucket as narrow as the
// histograms' significant digits allow, and the minimum is its bucket's
// lowest value (49,984 µs for 50,010).
func histFloor(us int64) float64 {
	h := stats.NewHistogram()
	_ = h.RecordValue(us)
	return float64(h.Min())
}

// TestClusterWindowOpenLoopSendsWithRepliesOutstanding: two nodes answer
// each command 50 ms after it came; at 1,000/s with room for 32 in flight
// on each, every command goes at its own start while replies are
// outstanding on both nodes (one at a time, 200 commands would take 5 s),
// each timed from its own send.
func TestClusterWindowOpenLoopSendsWithRepliesOutstanding(t *testing.T) {
	const delay, count = 50 * time.Millisecond, 200
	var slots string
	nodes := []string{slowNode(t, delay, &slots), slowNode(t, delay, &slots)}
	slots = halvesReply(nodes)
	f := &Factory{Target: endpoint.Target{Addr: nodes[0], Cluster: true, Timeout: 5 * time.Second},
		Workload: windowWorkload(t, "SET k-__RAND__ v", 32, 0), Workers: 1}
	start := time.Now()
	res, err := engine.Run(context.Background(), engine.Config{Workers: 1, OpsPerWorker: count, OpsPerRequest: 1, Rate: 1000}, f)
	require.NoError(t, err)
	elapsed := time.Since(start)
	tot := res.Snapshot.Totals
	assert.Equal(t, int64(count), tot.Ops)
	assert.Zero(t, tot.Errors)
	assert.Less(t, elapsed, 2500*time.Millisecond, "commands went while replies were outstanding")
	assert.GreaterOrEqual(t, tot.Latency.Min, histFloor(delay.Microseconds()), "each from its own send")
	require.NotNil(t, tot.CorrectedLatency)
	assert.GreaterOrEqual(t, tot.CorrectedLatency.Min, histFloor(delay.Microseconds()))

	// With room for 2 on each node (40 a second at 50 ms a reply), the
	// commands wait for room: they go late, counted behind (held up by the
	// server), not as the client's lag.
	f.Workload = windowWorkload(t, "SET k-__RAND__ v", 2, 0)
	res, err = engine.Run(context.Background(), engine.Config{Workers: 1, OpsPerWorker: 40, OpsPerRequest: 1, Rate: 1000}, f)
	require.NoError(t, err)
	tot = res.Snapshot.Totals
	assert.Equal(t, int64(40), tot.Ops)
	require.NotNil(t, tot.Schedule)
	assert.Greater(t, tot.Schedule.Behind, int64(20), "most waited for room")
	assert.Less(t, tot.Schedule.ClientLags, tot.Schedule.Behind/2, "counted behind, not as the client's lag (a busy machine may add a few)")
}
