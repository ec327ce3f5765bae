package cli

import (
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

func readRunFile(t *testing.T, path string) *result.Run {
	t.Helper()
	doc, err := result.ReadFile(path)
	require.NoError(t, err)
	r, ok := doc.(*result.Run)
	require.True(t, ok)
	return r
}

func TestThresholdsGateARun(t *testing.T) {
	dir := t.TempDir()
	base := []string{"redis", "--embedded", "-command", "TR.GETBIT foo __RAND__", "-p", "2", "-q"}
	pass, fail := filepath.Join(dir, "pass.json"), filepath.Join(dir, "fail.json")
	res := runCLI(context.Background(), append(base, "-d", "1", "--threshold", "p99<5s", "--threshold", "errors<1%", "--json", pass)...)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "threshold p99<5s")
	assert.Contains(t, res.out, "PASS")
	r := readRunFile(t, pass)
	require.Len(t, r.Thresholds, 2)
	assert.True(t, r.Thresholds[0].Pass)

	junit := filepath.Join(dir, "j.xml")
	res = runCLI(context.Background(), append(base, "-d", "1", "--threshold", "qps>1e9", "--threshold", "qps>100000000", "--json", fail, "--junit", junit)...)
	assert.Contains(t, res.err, "qps>1e9")
	require.Equal(t, 1, res.code, "a threshold that does not parse is refused before the run")
	res = runCLI(context.Background(), append(base, "-d", "1", "--threshold", "qps>100000000", "--json", fail, "--junit", junit)...)
	require.Equal(t, 99, res.code, res.err)
	assert.Contains(t, res.err, "threshold failed: qps>100000000")
	raw, err := os.ReadFile(junit)
	require.NoError(t, err)
	var suite struct {
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testcase"`
	}
	require.NoError(t, xml.Unmarshal(raw, &suite))
	assert.Equal(t, 1, suite.Failures)
	assert.Equal(t, "qps>100000000", suite.Cases[0].Name)

	res = runCLI(context.Background(), append(base, "-d", "1", "--threshold", "GET:p99<1ms")...)
	require.Equal(t, 1, res.code)
	assert.Contains(t, res.err, "this run has no operation GET (it has TR.GETBIT)")

	// --abort-on-fail stops a 30-second run once p99 already fails.
	start := time.Now()
	res = runCLI(context.Background(), append(base, "-d", "30", "--threshold", "p99<1us", "--abort-on-fail", "--json", fail)...)
	require.Equal(t, 99, res.code, res.err)
	assert.Less(t, time.Since(start), 15*time.Second)
	r = readRunFile(t, fail)
	assert.Equal(t, result.StopThreshold, r.StopReason)
	assert.Contains(t, res.out, "stopped early by --abort-on-fail")

	// The same thresholds on a merge, judged on the merged histograms.
	res = runCLI(context.Background(), "merge", pass, pass, "--allow-disjoint", "--threshold", "p99<1us")
	require.Equal(t, 1, res.code, "a run given twice is refused")
	other := filepath.Join(dir, "other.json")
	res = runCLI(context.Background(), append(base, "-d", "1", "--json", other)...)
	require.Equal(t, 0, res.code, res.err)
	res = runCLI(context.Background(), "merge", pass, other, "--allow-disjoint", "--threshold", "p99<1us", "--threshold", "p99<5s")
	require.Equal(t, 99, res.code, res.err)
	assert.Contains(t, res.out, "threshold p99<1us")
	assert.Contains(t, res.err, "threshold failed: p99<1us")

	// compare --fail-on: a run against itself changes nothing.
	res = runCLI(context.Background(), "compare", pass, pass, "--fail-on", "p99>+10%")
	require.Equal(t, 0, res.code, res.err)
	res = runCLI(context.Background(), "compare", pass, pass, "--fail-on", "qps<+10%")
	require.Equal(t, 99, res.code, res.err)
	res = runCLI(context.Background(), "compare", pass, pass, "--fail-on", "p99>10ms")
	require.Equal(t, 1, res.code)
	assert.Contains(t, res.err, "want METRIC>+N%")
}

// TestPreloadThenRead: --preload fills every key GET can draw, so the run
// reads no miss; without it most reads miss. A plan above --max-memory is
// refused before anything is sent.
func TestPreloadThenRead(t *testing.T) {
	r := testenv.StartRedis(t)
	dir := t.TempDir()
	js := filepath.Join(dir, "run.json")
	base := []string{"redis", "-port", port(r), "-command", "GET k-__RAND__", "-r", "5000", "-c", "20000", "-p", "4", "-q", "--json", js}
	res := runCLI(context.Background(), base...)
	require.Equal(t, 0, res.code, res.err)
	assert.Equal(t, int64(20000), readRunFile(t, js).Totals.Misses, "nothing to read yet")

	res = runCLI(context.Background(), append(base, "--preload")...)
	require.Equal(t, 0, res.code, res.err)
	run := readRunFile(t, js)
	assert.Zero(t, run.Totals.Misses)
	require.NotNil(t, run.Preload)
	assert.Equal(t, int64(5000), run.Preload.Keys)
	assert.Equal(t, "5000", testenv.Do(t, r.Addr, "DBSIZE"))
	assert.Contains(t, res.err, "preload: 5000 keys for GET")

	testenv.Do(t, r.Addr, "FLUSHALL")
	res = runCLI(context.Background(), "redis", "-port", port(r), "-command", "GET k-__RAND__", "-r", "100000000", "-c", "10", "-q", "--preload")
	require.Equal(t, 1, res.code)
	assert.Contains(t, res.err, "above --max-memory")
	assert.Equal(t, "0", testenv.Do(t, r.Addr, "DBSIZE"))
}

// TestDryRunSendsNothing: every --dry-run prints its plan, exits 0 and
// opens no connection to the target.
func TestDryRunSendsNothing(t *testing.T) {
	r := testenv.StartRedis(t)
	testenv.Do(t, r.Addr, "CONFIG", "RESETSTAT")
	cases := [][]string{
		{"redis", "-port", port(r), "-command", "GET k-__RAND__", "-r", "1000", "-d", "10", "--preload", "--threshold", "p99<2ms", "--dry-run"},
		{"roaring", "--port", port(r), "--cases", "getbit,set-ops/*", "--dry-run"},
		{"suite", "enhanced", "--port", port(r), "--dry-run"},
		{"suite", "pmem", "--port", port(r), "--groups", "string", "--dry-run"},
		{"bitmap", "compare", "--redis", r.Addr, "--roaring", r.Addr, "--dry-run"},
		{"memtier", "-s", "127.0.0.1", "-p", port(r), "--test-time", "5", "--dry-run"},
		{"redis-benchmark", "-p", port(r), "-t", "set,get", "-n", "1000", "--dry-run"},
		{"ycsb", "run", "redis", "-P", "workloads/workloadc", "-p", "redis.port=" + port(r), "--dry-run"},
		{"search", "-t", "write", "-f", "wiki.xml", "-a", r.Addr, "--dry-run"},
	}
	for _, args := range cases {
		res := runCLI(context.Background(), args...)
		require.Equal(t, 0, res.code, "%v: %s", args, res.err)
		assert.Contains(t, res.out+res.err, "nothing", "%v", args)
	}
	res := runCLI(context.Background(), cases[0]...)
	assert.Contains(t, res.out, "preload GET")
	assert.Contains(t, res.out, "for 10s")
	assert.Contains(t, res.out, "threshold p99<2ms")
	res = runCLI(context.Background(), cases[1]...)
	assert.Contains(t, res.out, "set-op-keys")
	assert.Regexp(t, `total: about [0-9.hms]+: \d+ runs, [0-9.hms]+ of timed runs`, res.out)
	assert.Equal(t, "1", testenv.InfoField(t, r.Addr, "stats", "total_connections_received"), "only this check connected")
}

func TestSearchThreshold(t *testing.T) {
	file := testenv.RepoPath(t, "testdata/wiki/enwiki-abstract-sample-2019.xml")
	res := runCLI(context.Background(), "search", "-t", "write", "--embedded", "-f", file, "-n", "100", "-c", "2", "--quiet",
		"--threshold", "errors<1%", "--threshold", "qps>1000000000")
	require.Equal(t, 99, res.code, res.err)
	assert.Contains(t, res.out, "threshold errors<1%")
	assert.Contains(t, res.err, "threshold failed: qps>1000000000")
}

// TestMissesTheRepliesCannotShow: TR.GETBIT answers 0 for a missing key
// as for an unset bit; the table says so and gives the server's count.
func TestMissesTheRepliesCannotShow(t *testing.T) {
	js := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "--embedded", "-command", "TR.GETBIT nokey-__RAND__ 5", "-command", "GET nokey-__RAND__",
		"-c", "4000", "-q", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	assert.Regexp(t, `TR.GETBIT\s+1\s+\d+\s+\d+\s+0\s+—`, res.out)
	assert.Contains(t, res.out, "TR.GETBIT replies do not tell a missing key from an empty one; the server counted 4000 reads of a missing key")
	r := readRunFile(t, js)
	require.NotNil(t, r.Server.KeyspaceMisses)
	assert.Equal(t, int64(4000), *r.Server.KeyspaceMisses)
	require.Len(t, r.Operations, 2)
	assert.True(t, r.Operations[0].MissesHidden, "the JSON says TR.GETBIT's misses cannot be counted")
	assert.False(t, r.Operations[1].MissesHidden)
}

// TestLoginRefusedStopsAtOnce: no password or a wrong one stops the run
// before it starts, in one line, instead of a run of NOAUTH errors.
func TestLoginRefusedStopsAtOnce(t *testing.T) {
	r := testenv.StartRedis(t, "--requirepass", "sekret")
	for _, extra := range [][]string{nil, {"-a", "wrong"}} {
		start := time.Now()
		res := runCLI(context.Background(), append([]string{"redis", "-port", port(r), "-command", "GET k", "-d", "10", "-q"}, extra...)...)
		require.Equal(t, 1, res.code, res.err)
		assert.Contains(t, res.err, "refused the login")
		assert.Contains(t, res.err, "the run did not start")
		assert.NotContains(t, res.err, "server statistics unavailable")
		assert.Less(t, time.Since(start), 5*time.Second)
	}
}

// TestBlackHoleEndsOnTime: a server that accepts and never replies holds
// the run no longer than its duration plus the grace for requests in
// flight (plus the 3 s the target's identification may wait), whatever
// --timeout says; the requests in flight are counted as lost; exit 3.
func TestBlackHoleEndsOnTime(t *testing.T) {
	p := blackHole(t)
	js := filepath.Join(t.TempDir(), "r.json")
	start := time.Now()
	res := runCLI(context.Background(), "redis", "-port", p, "-command", "GET k", "-d", "2", "-p", "2", "--timeout", "60s",
		"--no-server-stats", "-q", "--json", js)
	took := time.Since(start)
	require.Equal(t, 3, res.code, res.err)
	assert.Less(t, took, 15*time.Second, "not held for --timeout")
	r := readRunFile(t, js)
	assert.Equal(t, int64(2), r.Totals.LostOps, "the 2 requests in flight")
	require.NotEmpty(t, r.Errors)
	assert.Contains(t, r.Errors[0].Message, "abandoned: no reply 2s after the run's end")
	assert.InDelta(t, 2, r.Availability.UnresponsiveS, 0.01, "2 s with connections up and no reply")
	assert.Zero(t, r.Availability.UnreachableMS)
	raw, err := os.ReadFile(js)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"latency_us": {
      "min": null,`, "no reply: no latency, not 0")
	assert.Contains(t, res.out, "latency ms   none: no request got a reply")
	assert.Contains(t, res.out, "unresponsive 2.000 s")
}
