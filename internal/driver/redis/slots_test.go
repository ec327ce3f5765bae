package redis

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/runner"
	"github.com/tairbench/tairbench/internal/target"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/resp"
)

func TestKeySlot(t *testing.T) {
	assert.Equal(t, uint16(0x31C3), crc16([]byte("123456789")), "CRC16/XMODEM check value")
	tests := []struct {
		key  string
		slot int
	}{
		{"foo", 12182},
		{"bar", 5061},
		{"{user1000}.following", KeySlot([]byte("user1000"))},
		{"{user1000}.followers", KeySlot([]byte("user1000"))},
		{"foo{}{bar}", int(crc16([]byte("foo{}{bar}")) & 16383)}, // an empty tag hashes the whole key
		{"foo{{bar}}zap", KeySlot([]byte("{bar"))},
		{"foo{bar}{zap}", KeySlot([]byte("bar"))},
		{"", 0},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.slot, KeySlot([]byte(tc.key)), tc.key)
	}
}

func TestCommandSlot(t *testing.T) {
	tests := []struct {
		args []string
		slot int
	}{
		{[]string{"SET", "foo", "v"}, 12182},
		{[]string{"get", "{foo}x"}, 12182},
		{[]string{"EVALSHA", "abc", "1", "foo"}, 12182},
		{[]string{"EVAL", "return 1", "0"}, -1},
		{[]string{"PING"}, -1},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.slot, commandSlot(resp.AppendCommand(nil, tc.args...)), "%v", tc.args)
	}
	assert.Equal(t, -1, commandSlot([]byte("*2\r\n$3\r\nGET\r\n$9\r\nfoo")), "truncated")
}

func TestRedirect(t *testing.T) {
	ask, slot, addr, ok := redirect([]byte("MOVED 3999 127.0.0.1:6381"))
	assert.True(t, ok)
	assert.False(t, ask)
	assert.Equal(t, 3999, slot)
	assert.Equal(t, "127.0.0.1:6381", addr)
	ask, slot, addr, ok = redirect([]byte("ASK 12182 10.0.0.2:7000"))
	assert.True(t, ok && ask)
	assert.Equal(t, 12182, slot)
	assert.Equal(t, "10.0.0.2:7000", addr)
	for _, bad := range []string{"ERR MOVED", "MOVED x 1:2", "MOVED 99999 a:1", "ASK 12", "MOVED  a"} {
		_, _, _, ok = redirect([]byte(bad))
		assert.False(t, ok, bad)
	}
}

func FuzzCommandSlot(f *testing.F) {
	f.Add(resp.AppendCommand(nil, "SET", "foo", "bar"))
	f.Add([]byte("*3\r\n$4\r\nEVAL\r\n$1\r\nx\r\n$1\r\n1\r\n"))
	f.Add([]byte("MOVED 1 a:1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s := commandSlot(b); s < -1 || s >= SlotCount {
			t.Fatalf("slot %d", s)
		}
		if _, s, _, ok := redirect(b); ok && (s < 0 || s >= SlotCount) {
			t.Fatalf("redirect slot %d", s)
		}
	})
}

// clusterRun runs template against the cluster seeded at addr.
func clusterRun(t *testing.T, addr, template string, batching, pipeline int, cfg engine.Config) (*Factory, *runner.Spec) {
	t.Helper()
	var opts cmdtmpl.Options
	opts.Ranges[1] = cmdtmpl.Range{Max: 5_000}
	ts := TemplateSpec{Template: template, Options: opts, Batching: batching, Pipeline: pipeline}
	w, err := ts.Workload()
	require.NoError(t, err)
	spec := ts.Spec("cluster", "test", target.Target{Addr: addr, Cluster: true, Timeout: 5 * time.Second}, w, cfg)
	return spec.Factory.(*Factory), &spec
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
	for _, tc := range []clusterCase{
		{"single", "SET k-__RAND__ v", 0, 0},
		{"pipeline", "SET k-__RAND__ v", 0, 16},
		{"batch one slot", "SET {t}k-__RAND__ v", 10, 0},
		{"batch across slots", "SET k-__RAND__ v", 10, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, execs := calls("set"), calls("exec")
			_, spec := clusterRun(t, cl.Nodes[0].Addr, tc.template, tc.batching, tc.pipeline, engine.Config{Workers: 3, Ops: 3000, Seed: 1})
			run, _, err := runner.Run(context.Background(), *spec)
			require.NoError(t, err)
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
		t.Run(tc.name, func(t *testing.T) { followMigration(t, tc.batching, tc.pipeline) })
	}
}

func followMigration(t *testing.T, batching, pipeline int) {
	cl := testenv.StartCluster(t, 3)
	seed := cl.Nodes[0].Addr
	slot := KeySlot([]byte("m"))
	topo, err := fetchTopology(context.Background(), target.Target{Addr: seed, Timeout: 5 * time.Second})
	require.NoError(t, err)
	src := topo.addrs[topo.slots[slot]]
	dst := ""
	for _, n := range cl.Nodes {
		if n.Addr != src {
			dst = n.Addr
			break
		}
	}
	srcID, dstID := testenv.Do(t, src, "CLUSTER", "MYID"), testenv.Do(t, dst, "CLUSTER", "MYID")

	f, spec := clusterRun(t, seed, "SET {m}k-__RAND__ v", batching, pipeline, engine.Config{Workers: 4, Duration: 6 * time.Second, Seed: 2})
	type outcome struct {
		r   *resultRun
		err error
	}
	done := make(chan outcome, 1)
	start := time.Now()
	go func() {
		run, _, err := runner.Run(context.Background(), *spec)
		if err != nil {
			done <- outcome{nil, err}
			return
		}
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

type resultRun struct {
	ops, errors, lastErrors int64
	examples                []string
}

func BenchmarkCommandSlot(b *testing.B) {
	cmd := resp.AppendCommand(nil, "SET", "key:12345", "value")
	b.ReportAllocs()
	for b.Loop() {
		_ = commandSlot(cmd)
	}
}

// TestSlotWorkerDoesNotAllocate checks the cluster hot path: once warm, a
// request (encoding, routing, writing and reading, split over the nodes or
// not) allocates nothing.
func TestSlotWorkerDoesNotAllocate(t *testing.T) {
	cl := testenv.StartCluster(t, 3)
	for _, tc := range []clusterCase{
		{"single", "SET k-__RAND__ v", 0, 0},
		{"pipeline over nodes", "SET k-__RAND__ v", 0, 16},
		{"pipeline on one tag", "SET {t}k-__RAND__ v", 0, 16},
		{"batches over slots", "SET k-__RAND__ v", 10, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := clusterRun(t, cl.Nodes[0].Addr, tc.template, tc.batching, tc.pipeline, engine.Config{Workers: 1})
			w, err := f.NewWorker(context.Background(), 0, 1)
			require.NoError(t, err)
			defer w.Close()
			var s engine.Step
			req := func() {
				s = engine.Step{}
				w.Prepare()
				require.NoError(t, w.Exec(context.Background(), &s))
			}
			for range 200 { // dial every node, grow the buffers
				req()
			}
			assert.Zero(t, testing.AllocsPerRun(500, req))
			assert.Zero(t, s.Failed)
		})
	}
}
