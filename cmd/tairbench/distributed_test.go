package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// runShards runs n tairbench processes at once, each with --shard i/n and
// the same --start-at, and returns their result files.
func runShards(t *testing.T, n int, args ...string) []string {
	dir := t.TempDir()
	startAt := strconv.FormatFloat(float64(time.Now().Add(2*time.Second).UnixNano())/1e9, 'f', 3, 64)
	paths := make([]string, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	outs := make([][]byte, n)
	for i := range n {
		paths[i] = filepath.Join(dir, "shard"+strconv.Itoa(i)+".json")
		wg.Add(1)
		go func() {
			defer wg.Done()
			extra := []string{"--shard", strconv.Itoa(i) + "/" + strconv.Itoa(n), "--start-at", startAt, "--json", paths[i]}
			if args[0] == "redis" {
				extra = append(extra, "-q")
			}
			cmd := exec.Command(binary(t), append(append([]string{}, args...), extra...)...)
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i], string(outs[i]))
	}
	return paths
}

// TestShardsMergeExactly: three clients start together (--start-at), each
// with its own seed stream and slice of a sequential range (--shard), and
// their merged result counts exactly what the server ran.
func TestShardsMergeExactly(t *testing.T) {
	r := testenv.StartRedis(t)
	port := strconv.Itoa(r.Port)
	paths := runShards(t, 3, "redis", "-port", port, "-c", "3000", "-p", "2", "-command", "SET k-__RAND__ v",
		"--rand", "1=9000:seq", "--no-server-stats")
	var starts []time.Time
	var seeds []uint64
	for _, p := range paths {
		run := runFile(t, p)
		starts = append(starts, run.StartedAt)
		seeds = append(seeds, run.Seeds.Base)
		assert.Equal(t, int64(3000), run.Totals.Ops)
	}
	for _, s := range starts[1:] {
		assert.WithinDuration(t, starts[0], s, 2500*time.Millisecond, "the clients were started within the wait")
	}
	assert.NotEqual(t, seeds[0], seeds[1], "a seed stream per shard")
	assert.Equal(t, "9000", testenv.Do(t, r.Addr, "DBSIZE"), "each shard walked its own third of the sequential range")

	merged := filepath.Join(t.TempDir(), "total.json")
	out, err := exec.Command(binary(t), append(append([]string{"merge"}, paths...), "-o", merged)...).CombinedOutput()
	require.NoError(t, err, string(out))
	m := runFile(t, merged)
	assert.Equal(t, int64(9000), m.Totals.Ops)
	assert.Equal(t, testenv.CommandCalls(t, r.Addr, "set"), m.Totals.Ops+m.Totals.WarmupOps+m.Totals.AfterDeadlineOps,
		"the merged count is the server's, exactly")
	assert.Len(t, m.Sources, 3)
	assert.Equal(t, 6, m.Config.Connections)
	var sum int64
	for _, iv := range m.Series {
		sum += iv.Ops
	}
	assert.Equal(t, m.Totals.Ops, sum, "the aligned seconds add up")

	// A result of another workload is refused.
	other := filepath.Join(t.TempDir(), "other.json")
	out, err = exec.Command(binary(t), "redis", "-port", port, "-c", "100", "-command", "GET x", "-q", "--json", other).CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command(binary(t), "merge", paths[0], other).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "only results of one workload merge")
}

// TestShardedYCSBLoad: three YCSB clients load a third of the records each
// (--shard splits insertstart/insertcount), and the merge counts them all.
func TestShardedYCSBLoad(t *testing.T) {
	r := testenv.StartRedis(t)
	paths := runShards(t, 3, "ycsb", "load", "redis", "-P", "workloads/workloada", "-p", "redis.port="+strconv.Itoa(r.Port),
		"-p", "recordcount=900", "-p", "redis.command_group=string", "-p", "fieldcount=1", "-threads", "2")
	assert.Equal(t, "900", testenv.Do(t, r.Addr, "DBSIZE"), "every record once")
	out, err := exec.Command(binary(t), append([]string{"merge"}, paths...)...).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "commands     900 in 900 requests, 0 errors")
}

func runFile(t *testing.T, path string) *result.Run {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	run, err := result.DecodeRun(f)
	require.NoError(t, err)
	return run
}

// TestCompareMarksOnlyRealDifferences: two runs of one workload made at the
// same time differ within the noise; twice the rate is significant. The
// two alike run open-loop at a rate this machine holds with room to spare:
// closed-loop, two clients that share 2 cores with the server need not get
// the same share of them (one CI run had B 21% slower, with little noise).
func TestCompareMarksOnlyRealDifferences(t *testing.T) {
	r := testenv.StartRedis(t)
	port := strconv.Itoa(r.Port)
	dir := t.TempDir()
	run := func(name string, extra ...string) string {
		p := filepath.Join(dir, name)
		out, err := exec.Command(binary(t), append([]string{"redis", "-port", port, "-d", "8", "-p", "2", "-r", "1000",
			"-command", "SET k-__RAND__ v", "-q", "--no-server-stats", "--json", p}, extra...)...).CombinedOutput()
		require.NoError(t, err, string(out))
		return p
	}
	// Side by side, so that the shared machine's drift hits both alike.
	var a, b string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a = run("a.json", "--rate", "2000") }()
	go func() { defer wg.Done(); b = run("b.json", "--rate", "2000") }()
	wg.Wait()
	out, err := exec.Command(binary(t), "compare", a, b).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Regexp(t, `(?m)^QPS \(commands/s\).*within noise`, string(out))

	// A real difference whose per-second series hold steady: twice the
	// rate. (A closed loop's series drifts with this shared machine, and
	// its autocorrelation leaves the test few effective seconds: a 400x
	// change at -P 16 once came out at p = 0.015.)
	double := run("r4000.json", "--rate", "4000")
	out, err = exec.Command(binary(t), "compare", a, double).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Regexp(t, `(?m)^QPS \(commands/s\).*significant$`, string(out))
}
