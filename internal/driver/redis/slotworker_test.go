package redis

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/redis/cluster"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// clusterRun runs template against the cluster seeded at addr.
func clusterRun(t *testing.T, addr, template string, batching, pipeline int, cfg engine.Config) (*Factory, engine.Config) {
	return clusterWindowRun(t, addr, template, batching, pipeline, 0, cfg)
}

// clusterWindowRun is clusterRun with a window pipeline of window.
func clusterWindowRun(t *testing.T, addr, template string, batching, pipeline, window int, cfg engine.Config) (*Factory, engine.Config) {
	t.Helper()
	var opts cmdtmpl.Options
	opts.Ranges[1] = cmdtmpl.Range{Max: 5_000}
	ts := TemplateSpec{Template: template, Options: opts, Batching: batching, Pipeline: pipeline, Window: window}
	w, err := ts.Workload()
	require.NoError(t, err)
	cfg.OpsPerRequest, cfg.Operations = w.OpsPerRequest(), w.OpNames()
	return &Factory{Target: endpoint.Target{Addr: addr, Cluster: true, Timeout: 5 * time.Second}, Workload: w, Workers: cfg.Workers}, cfg
}

// TestSlotWorkerModes checks every mode against a real 3-node cluster: the
// client's count of each command equals the nodes' own, with no errors, and
// a batch over random keys splits into one transaction per slot.
func TestSlotWorkerModes(t *testing.T) {
	cl := testenv.StartCluster(t, 3)
	calls := func(name string) (n int64) {
		for _, nd := range cl.Nodes {
			n += testenv.CommandCalls(t, nd.Addr, name)
		}
		return n
	}
	for _, tc := range clusterModes {
		t.Run(tc.name, func(t *testing.T) {
			before, execs := calls("set"), calls("exec")
			f, cfg := clusterRun(t, cl.Nodes[0].Addr, tc.template, tc.batching, tc.pipeline, engine.Config{Workers: 3, Ops: 3000, Seed: 1})
			res, err := engine.Run(context.Background(), cfg, f)
			require.NoError(t, err)
			run := res.Snapshot
			assert.Zero(t, run.Totals.Errors)
			assert.Equal(t, run.Totals.Ops, calls("set")-before, "the nodes executed every SET once")
			switch tc.name {
			case "batch one slot":
				assert.Equal(t, run.Totals.Requests, calls("exec")-execs, "one transaction per batch")
			case "batch across slots":
				assert.Greater(t, calls("exec")-execs, 5*run.Totals.Requests, "a transaction per slot")
			}
		})
	}
}

// TestSlotWorkerFollowsAMigration moves a hot slot from one node to another
// while SETs to it run: every command succeeds (ASK while the slot is
// migrating, MOVED once it has moved), and the nodes executed each once.
func TestSlotWorkerFollowsAMigration(t *testing.T) {
	for _, tc := range []struct {
		name               string
		batching, pipeline int
	}{{"pipeline", 0, 4}, {"MULTI/EXEC", 10, 0}} {
		t.Run(tc.name, func(t *testing.T) { followMigration(t, tc.batching, tc.pipeline, 0) })
	}
}

func followMigration(t *testing.T, batching, pipeline, window int) {
	cl := testenv.StartCluster(t, 3)
	seed := cl.Nodes[0].Addr
	slot := cluster.KeySlot([]byte("m"))
	topo, err := cluster.FetchTopology(context.Background(), endpoint.Target{Addr: seed, Timeout: 5 * time.Second})
	require.NoError(t, err)
	src := topo.Addrs[cluster.NodeFor(topo, slot)]
	dst := ""
	for _, n := range cl.Nodes {
		if n.Addr != src {
			dst = n.Addr
			break
		}
	}
	srcID, dstID := testenv.Do(t, src, "CLUSTER", "MYID"), testenv.Do(t, dst, "CLUSTER", "MYID")

	f, cfg := clusterWindowRun(t, seed, "SET {m}k-__RAND__ v", batching, pipeline, window, engine.Config{Workers: 4, Duration: 6 * time.Second, Seed: 2})
	type outcome struct {
		r   *resultRun
		err error
	}
	done := make(chan outcome, 1)
	start := time.Now()
	go func() {
		res, err := engine.Run(context.Background(), cfg, f)
		if err != nil {
			done <- outcome{nil, err}
			return
		}
		run := res.Snapshot
		// Requests in flight at the deadline complete and count apart.
		rr := &resultRun{ops: run.Totals.Ops + run.Totals.AfterDeadlineOps, errors: run.Totals.Errors}
		if n := len(run.Series); n > 0 {
			rr.lastErrors = run.Series[n-1].Errors
		}
		for _, e := range run.Errors {
			rr.examples = append(rr.examples, fmt.Sprintf("%d× %s", e.Count, e.Example))
		}
		done <- outcome{rr, nil}
	}()
	time.Sleep(1200 * time.Millisecond)
	require.Equal(t, "OK", testenv.Do(t, dst, "CLUSTER", "SETSLOT", fmt.Sprint(slot), "IMPORTING", srcID))
	require.Equal(t, "OK", testenv.Do(t, src, "CLUSTER", "SETSLOT", fmt.Sprint(slot), "MIGRATING", dstID))
	host, port, _ := strings.Cut(dst, ":")
	moved := 0
	for {
		keys := strings.Fields(strings.Trim(testenv.Do(t, src, "CLUSTER", "GETKEYSINSLOT", fmt.Sprint(slot), "500"), "[]"))
		if len(keys) == 0 {
			break
		}
		reply := testenv.Do(t, src, append([]string{"MIGRATE", host, port, "", "0", "5000", "REPLACE", "KEYS"}, keys...)...)
		require.Equal(t, "OK", reply)
		moved += len(keys)
		time.Sleep(30 * time.Millisecond) // let the run meet the migrating slot (ASK) for a while
	}
	for _, n := range cl.Nodes {
		require.Equal(t, "OK", testenv.Do(t, n.Addr, "CLUSTER", "SETSLOT", fmt.Sprint(slot), "NODE", dstID))
	}
	// The run ends at its deadline (an interrupt would drop the replies of
	// requests in flight, which the servers did execute); the slot must have
	// moved well before it, so that the last second shows the new owner.
	require.Less(t, time.Since(start), 4500*time.Millisecond, "the migration took too long for the run's 6 s")
	o := <-done
	require.NoError(t, o.err)
	cr := f.ClusterRouting()
	require.NotNil(t, cr)
	m, a := cr.Moved, cr.Asked
	t.Logf("migrated %d keys of slot %d from %s to %s during the run; %d commands, %d MOVED, %d ASK and %d TRYAGAIN followed; %d errors %v",
		moved, slot, src, dst, o.r.ops, m, a, cr.TryAgain, o.r.errors, o.r.examples)
	assert.Positive(t, moved)
	assert.Positive(t, a, "ASK followed while the slot was migrating")
	assert.Positive(t, m, "MOVED followed after the slot moved")
	if batching == 0 {
		assert.Zero(t, o.r.errors, "no command failed across the migration: %v", o.r.examples)
	} else {
		// A transaction over keys that the migration has split between the
		// two nodes cannot run until it ends (TRYAGAIN, retried for a
		// while): those fail, named, and nothing else does.
		for _, e := range o.r.examples {
			assert.Regexp(t, "TRYAGAIN|given up after 200 retries while its slot migrated", e, "the only failures are transactions over a slot mid-migration")
		}
		assert.Positive(t, cr.TryAgain, "transactions were sent again after TRYAGAIN")
	}
	assert.Zero(t, o.r.lastErrors, "the last second, after the migration, had no errors")
	var sets int64
	for _, n := range cl.Nodes {
		sets += testenv.CommandCalls(t, n.Addr, "set")
	}
	assert.Equal(t, o.r.ops-o.r.errors, sets, "the nodes executed each SET that succeeded once, and no other")
	assert.Equal(t, "0", testenv.Do(t, src, "CLUSTER", "COUNTKEYSINSLOT", fmt.Sprint(slot)))
}

// clusterCase is a template run in one mode against the cluster.
type clusterCase struct {
	name               string
	template           string
	batching, pipeline int
}

// clusterModes are the slot worker's request shapes: one command, a
// pipeline split over the nodes or kept on one by a hash tag, a batch on
// one slot and a batch over many.
var clusterModes = []clusterCase{
	{"single", "SET k-__RAND__ v", 0, 0},
	{"pipeline over nodes", "SET k-__RAND__ v", 0, 16},
	{"pipeline on one tag", "SET {t}k-__RAND__ v", 0, 16},
	{"batch one slot", "SET {t}k-__RAND__ v", 10, 0},
	{"batch across slots", "SET k-__RAND__ v", 10, 0},
}

type resultRun struct {
	ops, errors, lastErrors int64
	examples                []string
}

// TestSlotWorkerDoesNotAllocate checks the cluster hot path: once warm, a
// request (encoding, routing, writing and reading, split over the nodes or
// not) allocates nothing.
func TestSlotWorkerDoesNotAllocate(t *testing.T) {
	cl := testenv.StartCluster(t, 3)
	for _, tc := range clusterModes {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := clusterRun(t, cl.Nodes[0].Addr, tc.template, tc.batching, tc.pipeline, engine.Config{Workers: 1})
			assertNoAllocs(t, f, 200)
		})
	}
}

// assertNoAllocs checks that f's worker's requests allocate nothing once
// warm requests (every node dialled, the buffers grown) have run.
func assertNoAllocs(t *testing.T, f *Factory, warm int) {
	w, err := f.NewWorker(context.Background(), 0, 1)
	require.NoError(t, err)
	defer w.Close()
	var s engine.Step
	req := func() {
		s = engine.Step{}
		w.Prepare()
		require.NoError(t, w.Exec(context.Background(), &s))
	}
	for range warm {
		req()
	}
	assert.Zero(t, testing.AllocsPerRun(max(500, warm), req))
	assert.Zero(t, s.Failed)
}

// pipelineSlotWorker starts a 3-node cluster and returns one slot worker
// that sends pipelines of 16 SETs over random keys.
func pipelineSlotWorker(t *testing.T) *slotWorker {
	cl := testenv.StartCluster(t, 3)
	f, _ := clusterRun(t, cl.Nodes[0].Addr, "SET k-__RAND__ v", 0, 16, engine.Config{Workers: 1})
	w, err := f.NewWorker(context.Background(), 0, 1)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	return w.(*slotWorker)
}

// TestSlotWorkerReroutesAPreparedPipeline changes the slot map between
// Prepare (which encodes a pipeline into its nodes' buffers) and Exec: the
// request goes to the new map's nodes, with no MOVED to follow. The new map
// is the same cluster with its nodes listed in reverse, so each node's index
// changes while the servers stay put.
func TestSlotWorkerReroutesAPreparedPipeline(t *testing.T) {
	sw := pipelineSlotWorker(t)
	w := engine.Worker(sw)
	var s engine.Step
	w.Prepare()
	require.NoError(t, w.Exec(context.Background(), &s))

	w.Prepare()
	old := sw.State.Current.Load()
	n := len(old.Addrs)
	addrs := make([]string, n)
	for i, a := range old.Addrs {
		addrs[n-1-i] = a
	}
	rev := cluster.NewTopology(addrs, func(slot int) int { return n - 1 - cluster.NodeFor(old, slot) })
	sw.State.Current.Store(rev)
	s = engine.Step{}
	require.NoError(t, w.Exec(context.Background(), &s))
	assert.Equal(t, 16, s.Ops)
	assert.Zero(t, s.Failed, "%s", s.Err)
	assert.Zero(t, sw.State.Moved.Load(), "no command went to a node that does not serve it")
	assert.True(t, rev == sw.prep, "the request now follows the new map")
}

// TestSlotWorkerPipelineFollowsMovedOnce runs a pipeline under a stale map
// that sends every command to one node: each command that node does not
// serve gets MOVED and is sent once more, straight to its owner (it is
// written twice in all, not three times), and every SET succeeds.
func TestSlotWorkerPipelineFollowsMovedOnce(t *testing.T) {
	sw := pipelineSlotWorker(t)
	w := engine.Worker(sw)
	real := sw.State.Current.Load()
	stale := cluster.NewTopology(real.Addrs, func(int) int { return 0 }) // every slot at node 0
	sw.State.Current.Store(stale)

	w.Prepare()
	written, again := 0, 0
	for i := range sw.at {
		written += len(sw.cmd(i))
		if cluster.NodeFor(real, sw.slots[i]) != 0 {
			again += len(sw.cmd(i))
		}
	}
	require.Positive(t, again, "some commands belong to other nodes")
	var s engine.Step
	require.NoError(t, w.Exec(context.Background(), &s))
	assert.Equal(t, 16, s.Ops)
	assert.Zero(t, s.Failed, "%s", s.Err)
	assert.Equal(t, written+again, s.BytesOut, "each redirected command is sent once more")
}
