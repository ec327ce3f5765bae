package cli

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// durableRedis is a redis-server whose every INCR reaches its append-only
// file before the reply, so that its counter survives a SIGKILL: the
// counter is the number of INCRs the server ran, across restarts.
func durableRedis(t *testing.T) *testenv.Redis {
	return testenv.StartRedis(t, "--appendonly", "yes", "--appendfsync", "always")
}

func counter(t *testing.T, r *testenv.Redis) int64 {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		v := testenv.Do(t, r.Addr, "GET", "c")
		if strings.HasPrefix(v, "LOADING") && time.Now().Before(deadline) {
			continue // the restarted server is still reading its file
		}
		n, err := strconv.ParseInt(v, 10, 64)
		require.NoError(t, err)
		return n
	}
}

// incrRun runs INCR c from 4 connections for secs seconds and returns the
// exit code, the summary and the result.
func incrRun(t *testing.T, r *testenv.Redis, secs int) (runOut, *result.Run) {
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "-port", port(r), "-d", strconv.Itoa(secs), "-p", "4", "--timeout", "2s",
		"-command", "INCR c", "-q", "--json", jsonPath)
	return res, readResult(t, jsonPath)
}

// assertReconciles checks that the server ran every command the client
// counted, plus at most the commands of requests whose replies were lost.
func assertReconciles(t *testing.T, run *result.Run, server int64) {
	t.Helper()
	replyErrors := run.Totals.Errors - run.Totals.LostOps // LOADING while the restarted server reads its file
	counted := run.Totals.Ops - replyErrors + run.Totals.AfterDeadlineOps
	assert.GreaterOrEqual(t, server, counted, "the server ran every command counted as successful")
	assert.LessOrEqual(t, server, counted+run.Totals.LostOps, "the rest are commands whose replies were lost")
}

func assertEverySecond(t *testing.T, run *result.Run, secs int) {
	t.Helper()
	require.Len(t, run.Series, secs, "one row for every second")
	for i, iv := range run.Series {
		assert.Equal(t, i, iv.Second)
		if iv.Requests == 0 {
			assert.Nil(t, iv.P99US, "second %d had no reply: no latency, not 0", i)
		}
	}
}

func TestServerKilledAndRestarted(t *testing.T) {
	r := durableRedis(t)
	var killedAt, upAt time.Time
	restarted := make(chan struct{})
	time.AfterFunc(2*time.Second, func() {
		defer close(restarted)
		killedAt = time.Now()
		r.Stop()
		time.Sleep(2 * time.Second)
		r.Restart(t)
		upAt = time.Now()
	})
	res, run := incrRun(t, r, 6)
	<-restarted // orders the times' writes before their reads
	assert.Equal(t, ExitRunFailed, res.code, "unreachable a third of the run: "+res.err)
	assertEverySecond(t, run, 6)
	truth := upAt.Sub(killedAt).Seconds() * 1000
	assert.InDelta(t, truth, run.Availability.UnreachableMS, 500, "unreachable time")
	assert.Equal(t, 4, run.Availability.ConnectionsLost)
	assert.GreaterOrEqual(t, run.Availability.Reconnects, int64(4))
	assert.Greater(t, run.Totals.ConnectFailures, int64(0))
	assertReconciles(t, run, counter(t, r))
	assert.Contains(t, res.out, "!! WARNING: target unreachable")
	assert.True(t, strings.HasPrefix(res.out, "!! WARNING"), "the summary opens with the warning")
	assert.Contains(t, res.out, "availability target unreachable")
	for _, e := range run.Errors {
		if e.Kind == "reply" {
			assert.Contains(t, e.Message, "LOADING", "the only error replies come while the server loads its file")
		}
	}
	var lost int64
	for _, iv := range run.Series {
		lost += iv.ConnectFailures
	}
	assert.Equal(t, run.Totals.ConnectFailures, lost, "connect failures are in the seconds they happened")
	last := run.Series[len(run.Series)-1]
	assert.Greater(t, last.Ops, int64(0), "the run recovered")
	assertLives(t, run, r, "restart:")
}

// assertLives checks the reconciliation against the server's own counts:
// the last life's calls and rejected calls are what the restarted server
// says, the earlier lives end unread, no sample is negative, and the
// first cause observed is the one expected.
func assertLives(t *testing.T, run *result.Run, r *testenv.Redis, cause string) {
	t.Helper()
	require.NotNil(t, run.Server)
	rc := run.Server.Reconciliation
	require.NotNil(t, rc)
	require.GreaterOrEqual(t, len(rc.Lives), 2, "the restart makes a second life: %+v", rc.Lives)
	assert.NotEmpty(t, run.Server.Restarts)
	last := rc.Lives[len(rc.Lives)-1]
	assert.Equal(t, testenv.CommandCalls(t, r.Addr, "incr"), last.Calls, "the new life's calls are the server's own count")
	assert.Equal(t, testenv.CommandStat(t, r.Addr, "incr", "rejected_calls"), last.Rejected, "and so are its rejected calls")
	assert.True(t, last.EndRead)
	assert.False(t, rc.Lives[0].EndRead, "the killed life ended after its last reading")
	assert.False(t, rc.Complete)
	assert.False(t, rc.Match, "an incomplete count is never called a match")
	require.NotEmpty(t, rc.Causes)
	assert.Contains(t, rc.Causes[0], cause)
	for _, s := range run.Server.Samples {
		if s.OpsPerSec != nil {
			assert.GreaterOrEqual(t, *s.OpsPerSec, 0.0, "second %d: no negative rate", s.Second)
		}
		if s.CPUCores != nil {
			assert.GreaterOrEqual(t, *s.CPUCores, 0.0, "second %d", s.Second)
		}
	}
}

// A restarted server with a large file answers LOADING for a while: the
// server counts those as rejected calls, and so does the reconciliation.
func TestServerRestartedLoadingReconciled(t *testing.T) {
	r := testenv.StartRedis(t, "--appendonly", "yes", "--appendfsync", "always", "--enable-debug-command", "yes")
	testenv.Do(t, r.Addr, "DEBUG", "POPULATE", "2000000")
	testenv.Do(t, r.Addr, "BGREWRITEAOF")
	for deadline := time.Now().Add(30 * time.Second); testenv.InfoField(t, r.Addr, "persistence", "aof_rewrite_in_progress") != "0" ||
		testenv.InfoField(t, r.Addr, "persistence", "aof_rewrite_scheduled") != "0"; time.Sleep(100 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the file was not rewritten in 30 s")
	}
	restarted := make(chan struct{})
	time.AfterFunc(2*time.Second, func() { defer close(restarted); r.Stop(); r.Restart(t) })
	res, run := incrRun(t, r, 7)
	<-restarted
	counter(t, r) // waits until the server has loaded its file
	assertLives(t, run, r, "restart:")
	rc := run.Server.Reconciliation
	var loading int64
	for _, e := range run.Errors {
		if strings.Contains(e.Message, "LOADING") {
			loading += e.Count
		}
	}
	require.Greater(t, loading, int64(0), "the client saw LOADING")
	assert.Equal(t, loading, rc.Lives[len(rc.Lives)-1].Rejected, "every LOADING reply is a rejected call of the new life")
	assert.Contains(t, res.out, "rejected before running (rejected_calls)")
	assert.Contains(t, res.out, "observed: restart:")
}

// A template the server refuses (wrong arity): every command is an error
// and a rejected call, and the counts match.
func TestWrongArityReconciles(t *testing.T) {
	r := testenv.StartRedis(t)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "-port", port(r), "-count", "2000", "-p", "2",
		"-command", "INCR a b", "-q", "--json", jsonPath)
	run := readResult(t, jsonPath)
	assert.Equal(t, ExitRunFailed, res.code, "every command failed")
	rc := run.Server.Reconciliation
	require.NotNil(t, rc)
	assert.True(t, rc.Match, "rejected calls are answers: %+v", rc)
	assert.Equal(t, int64(2000), rc.Rejected)
	assert.Equal(t, testenv.CommandStat(t, r.Addr, "incr", "rejected_calls"), rc.Rejected)
	assert.NotContains(t, res.out, "differs from the client's")
}

func TestServerKilledForGood(t *testing.T) {
	r := durableRedis(t)
	var killedAt time.Time
	killed := make(chan struct{})
	time.AfterFunc(2*time.Second, func() { defer close(killed); killedAt = time.Now(); r.Stop() })
	start := time.Now()
	res, run := incrRun(t, r, 5)
	<-killed
	end := start.Add(time.Duration(run.DurationMS * float64(time.Millisecond)))
	assert.Equal(t, ExitRunFailed, res.code, res.err)
	assertEverySecond(t, run, 5)
	truth := end.Sub(killedAt).Seconds() * 1000
	assert.InDelta(t, truth, run.Availability.UnreachableMS, 500)
	assert.Contains(t, run.Availability.SilentSeconds, 3)
	assert.Contains(t, run.Availability.SilentSeconds, 4)
	assert.Zero(t, run.Series[4].Ops)
	assert.Greater(t, run.Series[4].ConnectFailures, int64(0), "failed connects are told in their second")
	r.Restart(t)
	assertReconciles(t, run, counter(t, r))
	rc := run.Server.Reconciliation
	require.NotNil(t, rc)
	assert.False(t, rc.Complete, "the server's count after its last reading is unknown")
	assert.False(t, rc.Match)
	require.NotEmpty(t, rc.Causes)
	assert.Contains(t, rc.Causes[0], "stopped answering")
	assert.Contains(t, res.out, "cannot be checked against the client's")
}

// TestServerPaused: a 3 s CLIENT PAUSE is measured to within 100 ms
// (the server's 10 ms cron unpauses it), each second's live line holds
// what the JSON's same second holds, and every command is counted once.
func TestServerPaused(t *testing.T) {
	r := testenv.StartRedis(t, "--hz", "100")
	time.AfterFunc(2*time.Second, func() { testenv.Do(t, r.Addr, "CLIENT", "PAUSE", "3000", "ALL") })
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "-port", port(r), "-d", "7", "-p", "4",
		"-command", "INCR c", "--json", jsonPath)
	run := readResult(t, jsonPath)
	assert.Equal(t, ExitRunFailed, res.code, "whole seconds without a reply: "+res.err)
	assertEverySecond(t, run, 7)
	assertLiveLinesAreTheSeries(t, res.err, run)
	assert.Zero(t, run.Availability.UnreachableMS, "the connections stayed usable")
	// The pause covers about [2 s, 5 s): at least two whole seconds without a reply.
	assert.GreaterOrEqual(t, len(run.Availability.SilentSeconds), 2, "silent: %v", run.Availability.SilentSeconds)
	assert.Contains(t, run.Availability.SilentSeconds, 3)
	assert.InDelta(t, 3.0, run.Availability.UnresponsiveS, 0.1, "the pause, to the reply")
	assert.GreaterOrEqual(t, run.Totals.Latency.Max, 2.5e6, "the stalled requests waited the pause out")
	assert.Equal(t, run.Totals.Ops+run.Totals.AfterDeadlineOps, testenv.CommandCalls(t, r.Addr, "incr"), "exact count")
	assert.Contains(t, res.out, "no reply at all in ")
}

// assertLiveLinesAreTheSeries checks that the live line of each second
// (on standard error) gives the JSON's count of commands (per second, or
// in a last partial second) and errors for that second, under the same
// number.
func assertLiveLinesAreTheSeries(t *testing.T, stderr string, run *result.Run) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^\[\s*(\d+)-\d+s\]\s+(\d+) ops.*errors (\d+) \(total`)
	lines := re.FindAllStringSubmatch(stderr, -1)
	require.Len(t, lines, len(run.Series), stderr)
	for i, m := range lines {
		iv := run.Series[i]
		assert.Equal(t, strconv.Itoa(iv.Second), m[1])
		assert.Equal(t, strconv.FormatInt(iv.Ops, 10), m[2], "second %d: live line and JSON", iv.Second)
		assert.Equal(t, strconv.FormatInt(iv.Errors, 10), m[3], "second %d: errors", iv.Second)
	}
}

func TestUnknownModuleCommandIsOneGroup(t *testing.T) {
	r := testenv.StartRedis(t)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "-port", port(r), "-c", "2000", "-p", "4",
		"-command", "TR.GETBIT foo __RAND__", "-q", "--json", jsonPath)
	assert.Equal(t, ExitRunFailed, res.code)
	run := readResult(t, jsonPath)
	require.Len(t, run.Errors, 1, "one cause: %v", run.Errors)
	e := run.Errors[0]
	assert.Equal(t, "reply", e.Kind)
	assert.Equal(t, int64(2000), e.Count)
	assert.Contains(t, e.Message, "unknown command")
	assert.Contains(t, e.Message, "TR.GETBIT")
	assert.Contains(t, e.Example, "with args beginning with: 'foo'", "the example is verbatim")
	assert.Contains(t, res.out, "e.g. ERR unknown command")
}

func TestBatchErrorsAgreeWithTotals(t *testing.T) {
	r := testenv.StartRedis(t)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "-port", port(r), "-c", "1000", "-p", "2", "-batching", "10",
		"-command", "NOSUCH k-__RAND__", "-q", "--json", jsonPath)
	assert.Equal(t, ExitRunFailed, res.code)
	run := readResult(t, jsonPath)
	var grouped int64
	for _, e := range run.Errors {
		grouped += e.Count
	}
	assert.Equal(t, int64(1000), run.Totals.Errors)
	assert.Equal(t, run.Totals.Errors, grouped, "the errors table and the totals agree")
	assert.Equal(t, int64(100), run.Totals.Aborted)
}

func TestRoaringSuiteOnPlainRedisStopsAtOnce(t *testing.T) {
	r := testenv.StartRedis(t)
	res := runCLI(context.Background(), "roaring", "-port", port(r), "--duration-per-case", "1")
	assert.Equal(t, ExitError1, res.code)
	first := strings.SplitN(res.err, "\n", 2)[0]
	assert.Contains(t, first, "TR.SETBITS")
	assert.Contains(t, first, "not a Tair instance with the TairRoaring module")
	assert.Contains(t, first, "--embedded")
	assert.Empty(t, res.out, "no tables")
	assert.Zero(t, testenv.CommandCalls(t, r.Addr, "flushall"))
}

func TestJSONToStdoutIsOnlyJSON(t *testing.T) {
	r := testenv.StartRedis(t)
	res := runCLI(context.Background(), "redis", "-port", port(r), "-c", "100", "-p", "2", "-command", "PING", "-q", "--json", "-")
	require.Equal(t, 0, res.code, res.err)
	got, err := result.DecodeRun(strings.NewReader(res.out))
	require.NoError(t, err, "standard output is the JSON alone")
	assert.Equal(t, int64(100), got.Totals.Ops)
	assert.Contains(t, res.err, "throughput", "the summary went to standard error")
}

func TestVersionCommand(t *testing.T) {
	res := runCLI(context.Background(), "version")
	require.Equal(t, 0, res.code)
	assert.Contains(t, res.out, "tairbench version")
}

func TestSearchWriteToUnreachableElasticsearch(t *testing.T) {
	closed := testenv.FreePort(t)
	start := time.Now()
	res := runCLI(context.Background(), "search", "-t", "write", "-e", "elasticsearch", "-f", testenv.WikiFile(t, 100, 1), "-c", "2",
		"-a", "http://127.0.0.1:"+strconv.Itoa(closed), "--quiet")
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, ExitError1, res.code)
	assert.Contains(t, res.err, "connection refused")
}

// dyingElasticsearch answers like Elasticsearch until it has taken n
// writes, then stops listening; died receives the time it stopped.
func dyingElasticsearch(t *testing.T, n int64, died chan<- time.Time) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var writes atomic.Int64
	srv := &http.Server{}
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		if strings.Contains(r.URL.Path, "_doc") {
			if writes.Add(1) == n {
				go func() { _ = srv.Close(); died <- time.Now() }()
			}
			_, _ = w.Write([]byte(`{"result":"created"}`))
			return
		}
		_, _ = w.Write([]byte(`{"status":"green","acknowledged":true}`))
	})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

func TestSearchWriteStopsWhenElasticsearchDies(t *testing.T) {
	died := make(chan time.Time, 1)
	url := dyingElasticsearch(t, 200, died)
	jsonPath := filepath.Join(t.TempDir(), "w.json")
	res := runCLI(context.Background(), "search", "-t", "write", "-e", "elasticsearch", "-f", testenv.WikiFile(t, 20000, 1), "-n", "20000",
		"-c", "2", "-a", url, "--quiet", "--json", jsonPath)
	assert.Less(t, time.Since(<-died), 5*time.Second, "the run stops within 5 s of the engine's death")
	assert.Equal(t, ExitRunFailed, res.code, res.err)
	run := readResult(t, jsonPath)
	assert.Equal(t, result.StopUnreachable, run.StopReason)
	assert.Less(t, run.Totals.Ops, int64(20000))
	assert.Contains(t, res.out, "the run stopped early: the target stayed unreachable")
	require.NotEmpty(t, run.Errors)
	assert.Contains(t, run.Errors[0].Example, "connection refused")
}

func TestSearchCompareChecksBothEnginesFirst(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	defer srv.Close()
	closed := testenv.FreePort(t)
	res := runCLI(context.Background(), "search", "compare", "-f", testenv.WikiFile(t, 100, 1), "-c", "2", "--tair", srv.Addr(),
		"--es", "http://127.0.0.1:"+strconv.Itoa(closed), "--queries", "10")
	assert.Equal(t, ExitError1, res.code)
	assert.Contains(t, res.err, "connection refused")
	assert.Equal(t, "0", testenv.Do(t, srv.Addr(), "DBSIZE"), "nothing was written to TairSearch")
}

func TestSearchWriteToAFreshServer(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	defer srv.Close()
	res := runCLI(context.Background(), "search", "-t", "write", "-f", testenv.WikiFile(t, 500, 1), "-n", "500", "-c", "4",
		"-a", srv.Addr(), "--quiet")
	require.Equal(t, 0, res.code, res.out+res.err)
	assert.Equal(t, "500", testenv.Do(t, srv.Addr(), "TFT.DOCNUM", "wiki"))
	assert.Contains(t, res.out, "500 in 500 requests, 0 errors")
}

func TestSearchWriteRejectionsNamedByTheEngine(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	defer srv.Close()
	// An index whose mapping makes the abstracts' id field a long: "id" values
	// are strings of digits, so they parse; make title a long instead.
	testenv.Do(t, srv.Addr(), "TFT.CREATEINDEX", "wiki", `{"mappings":{"properties":{"title":{"type":"long"}}}}`)
	jsonPath := filepath.Join(t.TempDir(), "w.json")
	res := runCLI(context.Background(), "search", "-t", "write", "-f", testenv.WikiFile(t, 50, 1), "-n", "50", "-c", "2",
		"-a", srv.Addr(), "--quiet", "--keep-index", "--json", jsonPath)
	assert.Equal(t, ExitRunFailed, res.code)
	run := readResult(t, jsonPath)
	require.NotEmpty(t, run.Errors)
	assert.NotContains(t, run.Errors[0].Message, "document rejected")
	assert.Contains(t, run.Errors[0].Example, "ERR")
}
