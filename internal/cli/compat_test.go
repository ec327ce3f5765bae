package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// TestRedisBenchmarkStdinAndLoop: -x takes the command's last argument from
// standard input; -l repeats the tests until interrupted.
func TestRedisBenchmarkStdinAndLoop(t *testing.T) {
	r := testenv.StartRedis(t)
	var out, errb bytes.Buffer
	a := &app{Streams: Streams{Out: &out, Err: &errb, In: strings.NewReader("the value")}, version: "test"}
	err := runRedisBenchmark(context.Background(), []string{"-p", port(r), "-n", "100", "-q", "-x", "set", "fromstdin"}, a)
	require.NoError(t, err, errb.String())
	assert.Equal(t, "the value", testenv.Do(t, r.Addr, "GET", "fromstdin"))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	res := runCLI(ctx, "redis-benchmark", "-p", port(r), "-t", "set", "-n", "2000", "-q", "-l")
	assert.GreaterOrEqual(t, strings.Count(res.out, "SET: "), 2, "the tests again and again: %s", res.out)
}

// TestMemtierHDRFiles: --hdr-file-prefix writes each type's and the total
// latency distribution.
func TestMemtierHDRFiles(t *testing.T) {
	r := testenv.StartRedis(t)
	prefix := filepath.Join(t.TempDir(), "run")
	res := runCLI(context.Background(), "memtier", "-s", "127.0.0.1", "-p", port(r), "-c", "2", "-t", "1", "-n", "200",
		"--ratio=1:1", "--hide-histogram", "--hdr-file-prefix", prefix)
	require.Equal(t, 0, res.code, res.err)
	for name, count := range map[string]string{"SET": "200", "GET": "200", "TOTALS": "400"} {
		data, err := os.ReadFile(prefix + "_" + name + ".hgrm")
		require.NoError(t, err, name)
		assert.Contains(t, string(data), "Percentile", name)
		assert.Regexp(t, `Total count\s+=\s+`+count+`\]`, string(data), name)
	}
}

// TestPeerRateOptionsAreOpenLoop: memtier's --rate-limiting and YCSB's
// -target run open-loop, with latency from the intended start.
func TestPeerRateOptionsAreOpenLoop(t *testing.T) {
	r := testenv.StartRedis(t)
	dir := t.TempDir()
	mt := filepath.Join(dir, "m.json")
	res := runCLI(context.Background(), "memtier", "-s", "127.0.0.1", "-p", port(r), "-c", "2", "-t", "1", "--test-time=2",
		"--rate-limiting=100", "--ratio=1:1", "--hide-histogram", "--json", mt)
	require.Equal(t, 0, res.code, res.err)
	yc := filepath.Join(dir, "y.json")
	res = runCLI(context.Background(), "ycsb", "run", "redis", "-P", "workloads/workloadc", "-p", "redis.port="+port(r),
		"-p", "recordcount=100", "-p", "operationcount=300", "-target", "300", "--json", yc)
	require.Equal(t, 0, res.code, res.err)
	for path, rate := range map[string]float64{mt: 200, yc: 300} {
		doc := readCompat(t, path)
		run := doc.Tests[0].Run
		require.NotNil(t, run.Totals.Schedule, path)
		assert.Equal(t, rate, run.Totals.Schedule.Rate, path)
		assert.NotEmpty(t, run.HistogramCorrected, "%s: latency from the intended start", path)
		assert.NotNil(t, run.Totals.CorrectedLatency, path)
	}
}

// TestMemtierPipelineIsAWindow: --pipeline keeps N requests in flight per
// connection against a real redis-server: each connection sends exactly
// --requests, one reply per request, and redis-server counted them all.
func TestMemtierPipelineIsAWindow(t *testing.T) {
	r := testenv.StartRedis(t)
	js := filepath.Join(t.TempDir(), "m.json")
	res := runCLI(context.Background(), "memtier", "-s", "127.0.0.1", "-p", port(r), "-c", "3", "-t", "1", "-n", "1000",
		"--pipeline", "16", "--hide-histogram", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.err, "window of 16 commands in flight")
	assert.Contains(t, res.out, "3000 commands in 3000 requests, 0 errors")
	assert.Contains(t, res.out, "server counted 3000: match")
	doc, err := result.ReadFile(js)
	require.NoError(t, err)
	run := doc.(*result.Compat).Tests[0].Run
	assert.Equal(t, 16, run.Config.Template.Window)
}

// TestMemtierClusterPipelineIsAWindow: with --cluster-mode, memtier's
// --pipeline keeps that many commands in flight on each connection to a
// node, and each client sends exactly --requests in all: the nodes
// executed every one of them once.
func TestMemtierClusterPipelineIsAWindow(t *testing.T) {
	cl := testenv.StartCluster(t, 3)
	js := filepath.Join(t.TempDir(), "m.json")
	res := runCLI(context.Background(), "memtier", "-s", "127.0.0.1", "-p", port(cl.Nodes[0]), "--cluster-mode", "-c", "3", "-t", "2",
		"-n", "1000", "--ratio", "1:1", "--pipeline", "16", "--hide-histogram", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.err, "window of 16 commands in flight")
	assert.Contains(t, res.out, "6000 commands in 6000 requests, 0 errors")
	assert.Contains(t, res.err, "each client has a connection to every node")
	assert.Contains(t, res.out, "tairbench: cluster: 3 nodes; slot map read 1 time(s); 0 MOVED, 0 ASK")
	assert.Contains(t, res.out, "not checked against the client's", "no server count is claimed")
	var calls int64
	for _, nd := range cl.Nodes {
		calls += testenv.CommandCalls(t, nd.Addr, "set") + testenv.CommandCalls(t, nd.Addr, "get")
	}
	assert.Equal(t, int64(6000), calls, "the nodes executed each command once")
	run := readCompat(t, js).Tests[0].Run
	assert.Equal(t, 16, run.Config.Template.Window)
	require.NotNil(t, run.Cluster)
	assert.Equal(t, 3, run.Cluster.Nodes)

	// With --rate-limiting, an open loop: each command at its own intended
	// start while its node's window has room; every one executed once.
	before := calls
	res = runCLI(context.Background(), "memtier", "-s", "127.0.0.1", "-p", port(cl.Nodes[0]), "--cluster-mode", "-c", "3", "-t", "1",
		"-n", "200", "--ratio", "1:1", "--pipeline", "4", "--rate-limiting", "400", "--hide-histogram", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "600 commands in 600 requests, 0 errors")
	calls = 0
	for _, nd := range cl.Nodes {
		calls += testenv.CommandCalls(t, nd.Addr, "set") + testenv.CommandCalls(t, nd.Addr, "get")
	}
	assert.Equal(t, int64(600), calls-before, "the nodes executed each command once")
	run = readCompat(t, js).Tests[0].Run
	require.NotNil(t, run.Totals.Schedule)
	assert.Equal(t, 1200.0, run.Totals.Schedule.Rate)
	assert.NotNil(t, run.Totals.CorrectedLatency, "also from each intended start")
}

// TestOpenLoopWindow: memtier's --pipeline with --rate-limiting, and
// tairbench redis -window with --rate, run an open loop whose window
// keeps several commands in flight: each connection sends its count on
// schedule, redis-server counts them all, and latency is also measured
// from each command's intended start.
func TestOpenLoopWindow(t *testing.T) {
	r := testenv.StartRedis(t)
	dir := t.TempDir()
	mt := filepath.Join(dir, "m.json")
	res := runCLI(context.Background(), "memtier", "-s", "127.0.0.1", "-p", port(r), "-c", "3", "-t", "1", "-n", "200",
		"--pipeline", "4", "--rate-limiting", "400", "--hide-histogram", "--json", mt)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "600 commands in 600 requests, 0 errors")
	assert.Contains(t, res.out, "server counted 600: match")
	run := readCompat(t, mt).Tests[0].Run
	assert.Equal(t, 4, run.Config.Template.Window)
	require.NotNil(t, run.Totals.Schedule)
	assert.Equal(t, 1200.0, run.Totals.Schedule.Rate)
	assert.NotNil(t, run.Totals.CorrectedLatency)

	js := filepath.Join(dir, "r.json")
	res = runCLI(context.Background(), "redis", "-port", port(r), "-p", "2", "-c", "400", "-window", "8", "--rate", "2000",
		"-command", "SET k-__RAND__ v", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.err, "window of 8 commands in flight")
	doc, err := result.ReadFile(js)
	require.NoError(t, err)
	rr := doc.(*result.Run)
	assert.Equal(t, int64(400), rr.Totals.Ops)
	require.NotNil(t, rr.Totals.Schedule)
	assert.NotNil(t, rr.Totals.CorrectedLatency)
}
