package redis

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/internal/threshold"
	"github.com/tairbench/tairbench/internal/topology"
	"github.com/tairbench/tairbench/pkg/result"
)

// onRedis is an open-loop run of SETs against addr for d.
func onRedis(t *testing.T, addr string, d time.Duration, events ...string) Options {
	host, port, _ := strings.Cut(addr, ":")
	p, _ := strconv.Atoi(port)
	tg, err := target.Options{Host: host, Port: p, Protocol: 2, Timeout: 5 * time.Second}.Build()
	require.NoError(t, err)
	o := base(t)
	o.Embedded, o.Target = false, tg
	o.Count, o.CountGiven, o.Duration, o.Rate, o.Parallel = 0, false, d, 2000, 4
	o.Events.Specs = events
	return o
}

// TestEventsInsideARun: a BGSAVE over a dataset and a DEBUG SLEEP, each at
// its time: the fork's time is in the event, the sleep's window without
// replies is its length, the run's summary has the table.
func TestEventsInsideARun(t *testing.T) {
	srv := testenv.StartRedis(t, "--enable-debug-command", "yes")
	testenv.Do(t, srv.Addr, "DEBUG", "POPULATE", "200000", "pop", "64")
	o := onRedis(t, srv.Addr, 8*time.Second, "at=1s bgsave", "at=4s debug sleep 0.5", "at=6s config set maxmemory-policy allkeys-lru")
	io, out, _ := harness.Captured("test")
	r, err := Run(context.Background(), o, io)
	require.NoError(t, err)
	require.NotNil(t, r.Events)
	ev := r.Events.Events
	require.Len(t, ev, 3)
	require.NotNil(t, ev[2].CompletedS, "CONFIG SET answered")
	assert.Equal(t, "OK", ev[2].Reply)
	assert.Contains(t, testenv.Do(t, srv.Addr, "CONFIG", "GET", "maxmemory-policy"), "allkeys-lru")

	save := ev[0]
	assert.Equal(t, "bgsave", save.Action)
	require.NotNil(t, save.IssuedS)
	assert.InDelta(t, 1, *save.IssuedS, 0.5)
	require.NotNil(t, save.CompletedS, "the save's end is seen: %+v", save)
	assert.Greater(t, *save.CompletedS, *save.IssuedS)
	fork, err := strconv.Atoi(save.Signals["latest_fork_usec"])
	require.NoError(t, err)
	assert.Positive(t, fork)
	// Both times are in the per-second series.
	issuedIn := r.Series[int(*save.IssuedS)].Events
	require.NotEmpty(t, issuedIn)
	assert.Contains(t, issuedIn[0], "bgsave issued at ")
	assert.Contains(t, strings.Join(r.Series[int(*save.CompletedS)].Events, ";"), "bgsave completed at ")
	assert.Equal(t, "ok", save.Signals["rdb_last_bgsave_status"])

	sleep := ev[1]
	require.NotNil(t, sleep.Score)
	require.NotNil(t, sleep.CompletedS)
	assert.GreaterOrEqual(t, *sleep.CompletedS-*sleep.IssuedS, 0.5)
	// No reply for the sleep's length, to a slot (7.8 ms) and a reply's gap.
	assert.GreaterOrEqual(t, sleep.Score.NoReplyMS, 450.0)
	assert.Less(t, sleep.Score.NoReplyMS, 2000.0)
	require.NotNil(t, sleep.Score.Inside.MaxUS)
	assert.Greater(t, *sleep.Score.Inside.MaxUS, 400_000.0, "a request waited through the sleep, from its intended start")
	assert.Contains(t, out.String(), "events (3), scored on the run's own seconds")
	assert.Contains(t, out.String(), "latest_fork_usec")
}

// TestEventsRefusedBeforeTheRun: an event the run cannot go through is
// refused with its reason, and no command of the load is sent.
func TestEventsRefusedBeforeTheRun(t *testing.T) {
	srv := testenv.StartRedis(t)
	for _, c := range []struct {
		event []string
		want  string
	}{
		{[]string{"at=5s bgsave"}, "event at 5s (bgsave) is past the run's end (2s)"},
		{[]string{"at=1s failover"}, "the target has no replica to fail over to"},
		{[]string{"at=1s debug sleep 1"}, "DEBUG command not allowed"},
		{[]string{"at=1s exec 'no-such-program-here --now'"}, "cannot start"},
		{[]string{"at=1s dance"}, "unknown action"},
	} {
		t.Run(c.want, func(t *testing.T) {
			o := onRedis(t, srv.Addr, 2*time.Second, c.event...)
			io, _, _ := harness.Captured("test")
			_, err := Run(context.Background(), o, io)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
			assert.Zero(t, testenv.CommandCalls(t, srv.Addr, "set"), "nothing of the load was sent")
		})
	}
	o := base(t)
	o.Count, o.CountGiven, o.Duration = 0, false, 2*time.Second
	o.Events.Specs = []string{"at=1s kill"}
	io, _, _ := harness.Captured("test")
	_, err := Run(context.Background(), o, io)
	assert.ErrorContains(t, err, "the embedded server runs inside tairbench")
}

// TestFailoverEvent: FAILOVER on a primary with a replica completes when
// the old primary follows the replica it promoted.
func TestFailoverEvent(t *testing.T) {
	primary := testenv.StartRedis(t)
	replica := testenv.StartRedis(t, "--replicaof", "127.0.0.1", strconv.Itoa(primary.Port))
	require.Eventually(t, func() bool {
		return testenv.InfoField(t, replica.Addr, "replication", "master_link_status") == "up"
	}, 20*time.Second, 50*time.Millisecond)
	o := onRedis(t, primary.Addr, 6*time.Second, "at=2s failover")
	o.AllowErrors = true
	io, _, _ := harness.Captured("test")
	r, err := Run(context.Background(), o, io)
	require.NoError(t, err)
	ev := r.Events.Events[0]
	require.Empty(t, ev.Error)
	require.NotNil(t, ev.CompletedS)
	assert.Equal(t, replica.Addr, ev.Signals["new_primary"])
	assert.Equal(t, "slave", testenv.InfoField(t, primary.Addr, "replication", "role"))
	assert.Equal(t, "master", testenv.InfoField(t, replica.Addr, "replication", "role"))
	// The load stays on the old primary (clients that follow a
	// topology are a --sentinel run's): its writes are refused there.
	assert.Positive(t, r.Totals.Errors)
	assert.Equal(t, "reply", r.Errors[0].Kind)
	assert.Contains(t, r.Errors[0].Message, "READONLY")
}

// TestKillEvent: kill -9 of the server completes when the process is
// gone; the run goes on, the load without a server from then on.
func TestKillEvent(t *testing.T) {
	srv := testenv.StartRedis(t)
	o := onRedis(t, srv.Addr, 4*time.Second, "at=1s kill")
	o.AllowErrors = true
	io, _, _ := harness.Captured("test")
	r, err := Run(context.Background(), o, io)
	require.NoError(t, err)
	ev := r.Events.Events[0]
	require.Empty(t, ev.Error)
	require.NotNil(t, ev.CompletedS)
	assert.Contains(t, ev.Reply, "killed")
	require.NotNil(t, ev.Score)
	assert.Nil(t, ev.Score.RecoveredS, "nothing answered again")
	assert.Greater(t, ev.Score.NoReplyMS, 2500.0, "from the kill to the run's end")
	assert.Positive(t, r.Availability.ConnectionsLost)
}

// TestSentinelFailoverWithLedger: a Sentinel failover under 20,000/s open
// loop. The clients follow the primary the Sentinels name; with WAIT 1
// every acknowledged write is on the new primary; without WAIT, what
// Redis lost is counted, not hidden.
func TestSentinelFailoverWithLedger(t *testing.T) {
	testenv.Integration(t)
	topo, err := topology.Up(topology.Sentinel, t.TempDir(), 0, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = topo.Down() })
	sentinels := topo.Addrs("sentinel")
	for _, wait := range []int{1, 0} {
		t.Run("wait "+strconv.Itoa(wait), func(t *testing.T) {
			// The last failover's old primary is in sync as a replica.
			require.Eventually(t, func() bool {
				addr := primaryOf(testenv.Do(t, sentinels[0], "SENTINEL", "GET-MASTER-ADDR-BY-NAME", topology.MasterName))
				return strings.Contains(testenv.Do(t, addr, "INFO", "replication"), "state=online")
			}, 30*time.Second, 100*time.Millisecond)
			o := onRedis(t, sentinels[0], 12*time.Second, "at=3s failover")
			o.Target.Sentinels, o.Target.MasterName = sentinels, topology.MasterName
			o.Rate, o.Parallel = 20000, 20
			o.VerifyWrites, o.WaitReplicas, o.WaitTimeout = true, wait, time.Second
			o.AllowErrors = true
			if wait == 0 { // what Redis loses without WAIT is reported, and allowed here
				lost, err := threshold.Parse("lost_writes<1000000000")
				require.NoError(t, err)
				o.Out.Thresholds = []threshold.Threshold{lost}
			}
			io, out, _ := harness.Captured("test")
			r, err := Run(context.Background(), o, io)
			require.NoError(t, err, out.String())
			ev := r.Events.Events[0]
			require.Empty(t, ev.Error)
			require.NotNil(t, ev.CompletedS, "the Sentinels named a new primary")
			assert.NotEqual(t, ev.Signals["old_primary"], ev.Signals["new_primary"])
			l := r.Ledger
			require.NotNil(t, l)
			require.Empty(t, l.ReadError)
			assert.Positive(t, l.Acknowledged)
			assert.Equal(t, l.Sent, l.Acknowledged+l.Unacknowledged+l.Refused)
			// The writes went on at the new primary: the last seconds had
			// replies that were no errors.
			last := r.Series[len(r.Series)-2]
			assert.Positive(t, last.Requests-last.Errors, "the clients followed the failover")
			if wait == 1 {
				assert.Zero(t, l.LostAcknowledged, "WAIT 1: every acknowledged write is on the promoted replica")
				assert.Contains(t, out.String(), "threshold lost_writes<1          PASS")
			} else if l.LostAcknowledged > 0 {
				assert.Contains(t, out.String(), "!! WARNING: LOST WRITES:")
			}
		})
	}
}

// primaryOf is the address in a GET-MASTER-ADDR-BY-NAME reply's text
// ("[host port]").
func primaryOf(reply string) string {
	host, port, _ := strings.Cut(strings.Trim(reply, "[]"), " ")
	return host + ":" + port
}

// TestRestartWithAOFAlways: kill -9 of the server mid-run, started again
// with its command line: with appendfsync always the ledger finds every
// acknowledged write in the AOF it loaded.
func TestRestartWithAOFAlways(t *testing.T) {
	srv := testenv.StartRedis(t, "--appendonly", "yes", "--appendfsync", "always")
	o := onRedis(t, srv.Addr, 6*time.Second, "at=2s restart")
	o.VerifyWrites, o.AllowErrors = true, true
	io, out, _ := harness.Captured("test")
	r, err := Run(context.Background(), o, io)
	stopRestarted(t, r)
	require.NoError(t, err, out.String())
	ev := r.Events.Events[0]
	require.Empty(t, ev.Error)
	require.NotNil(t, ev.CompletedS, "the server answered again")
	assert.Contains(t, ev.Reply, "started again as")
	require.NotNil(t, ev.Score)
	assert.Positive(t, ev.Score.NoReplyMS)
	l := r.Ledger
	require.NotNil(t, l)
	require.Empty(t, l.ReadError)
	assert.Zero(t, l.LostAcknowledged, "appendfsync always: every acknowledged write was on disk")
	assert.Positive(t, l.Acknowledged)
	assert.Positive(t, r.Availability.ConnectionsLost, "the connections were lost with the process and made again")
	last := r.Series[len(r.Series)-2]
	assert.Positive(t, last.Requests-last.Errors, "the load went on on the restarted server")
}

// TestReshardUnderLoad: 1,000 slots move from one primary to another
// while the load writes across the cluster: the routing follows MOVED and
// ASK, counted, and no request is lost for it.
func TestReshardUnderLoad(t *testing.T) {
	cl := testenv.StartCluster(t, 3)
	from, to := cl.Nodes[0].Addr, cl.Nodes[1].Addr
	o := onRedis(t, from, 8*time.Second, "at=2s reshard 1000 slots from "+from+" to "+to)
	o.Target.Cluster = true
	o.Commands = []string{"SET k-__RAND__ __DATA__"}
	o.R1, o.Rate, o.Parallel = 100000, 5000, 8
	io, out, _ := harness.Captured("test")
	r, err := Run(context.Background(), o, io)
	require.NoError(t, err, out.String())
	ev := r.Events.Events[0]
	require.Empty(t, ev.Error, out.String())
	require.NotNil(t, ev.CompletedS, "every slot moved within the run")
	assert.Equal(t, "1000", ev.Signals["slots_moved"])
	assert.Positive(t, ev.Signals["keys_moved"])
	require.NotNil(t, r.Cluster)
	assert.Positive(t, r.Cluster.Moved+r.Cluster.Asked, "the routing followed the slots")
	require.NotNil(t, ev.Score)
	assert.Zero(t, ev.Score.Inside.Errors+ev.Score.Inside.TransportErrors, "MOVED and ASK are followed, not lost")
	assert.Zero(t, r.Totals.Errors)
	owned := testenv.Do(t, to, "CLUSTER", "COUNTKEYSINSLOT", "0")
	assert.NotEmpty(t, owned)
}

// TestRetryThroughARestart: with --retry, the requests that met the
// restart are sent again, counted apart, and none fails.
func TestRetryThroughARestart(t *testing.T) {
	srv := testenv.StartRedis(t)
	o := onRedis(t, srv.Addr, 4*time.Second, "at=1s restart")
	o.Target.Retry = 20 // up to about 3 s of pauses
	io, out, _ := harness.Captured("test")
	r, err := Run(context.Background(), o, io)
	stopRestarted(t, r)
	require.NoError(t, err, out.String())
	require.NotNil(t, r.Events.Events[0].CompletedS)
	assert.Positive(t, r.Totals.Retried, "the requests that met the restart were sent again")
	assert.Zero(t, r.Totals.Errors, "each got its reply in the end")
	assert.Contains(t, out.String(), "commands sent again (--retry)")
}

// TestAddNodeUnderLoad: an empty cluster-enabled server joins the
// cluster while the load runs; the event is done when the cluster sees
// it connected.
func TestAddNodeUnderLoad(t *testing.T) {
	cl := testenv.StartCluster(t, 3)
	fresh := testenv.StartRedis(t, "--cluster-enabled", "yes", "--cluster-config-file", "fresh-nodes.conf")
	o := onRedis(t, cl.Nodes[0].Addr, 4*time.Second, "at=1s add-node "+fresh.Addr)
	o.Target.Cluster = true
	io, out, _ := harness.Captured("test")
	r, err := Run(context.Background(), o, io)
	require.NoError(t, err, out.String())
	ev := r.Events.Events[0]
	require.Empty(t, ev.Error)
	require.NotNil(t, ev.CompletedS)
	assert.NotEmpty(t, ev.Signals["node_id"])
	assert.Equal(t, "4", testenv.InfoLine(t, cl.Nodes[0].Addr, "CLUSTER", "INFO", "cluster_known_nodes"))

	o = onRedis(t, cl.Nodes[0].Addr, 2*time.Second, "at=1s add-node "+cl.Nodes[1].Addr)
	o.Target.Cluster = true
	_, err = Run(context.Background(), o, io)
	assert.ErrorContains(t, err, "it must be empty")
}

// stopRestarted stops, when the test ends, the server a restart event
// started again (its PID is in the event's signals).
func stopRestarted(t *testing.T, r *result.Run) {
	if r == nil || r.Events == nil {
		return
	}
	if pid, err := strconv.Atoi(r.Events.Events[0].Signals["new_pid"]); err == nil {
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	}
}
