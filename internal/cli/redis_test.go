package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

type runOut struct {
	code     int
	out, err string
}

func runCLI(ctx context.Context, args ...string) runOut {
	var out, errb bytes.Buffer
	code := Execute(ctx, args, Streams{Out: &out, Err: &errb})
	return runOut{code, out.String(), errb.String()}
}

func port(r *testenv.Redis) string { return strconv.Itoa(r.Port) }

func TestRandomSpreadReachesServer(t *testing.T) {
	r := testenv.StartRedis(t)
	const n = 3000
	res := runCLI(context.Background(), "redis", "-port", port(r), "-c", strconv.Itoa(n), "-p", "4", "-r", "1000",
		"-command", "SET k-__RAND__ v", "-q")
	require.Equal(t, 0, res.code, res.err)
	dbsize, err := strconv.Atoi(testenv.Do(t, r.Addr, "DBSIZE"))
	require.NoError(t, err)
	want := 1000 * (1 - math.Pow(1-1.0/1000, n)) // expected distinct keys ≈ 950
	assert.InDelta(t, want, float64(dbsize), 0.03*want, "distinct keys")
	assert.Equal(t, int64(n), testenv.CommandCalls(t, r.Addr, "set"))
}

func TestBatchingSendsMultiExec(t *testing.T) {
	r := testenv.StartRedis(t)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "-port", port(r), "-c", "1000", "-p", "3", "-batching", "10",
		"-command", "SET k-__RAND__ __DATA__", "-q", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	assert.Equal(t, int64(100), testenv.CommandCalls(t, r.Addr, "exec"))
	assert.Equal(t, int64(100), testenv.CommandCalls(t, r.Addr, "multi"))
	assert.Equal(t, int64(1000), testenv.CommandCalls(t, r.Addr, "set"))
	run := readResult(t, jsonPath)
	assert.Equal(t, int64(1000), run.Totals.Ops)
	assert.Equal(t, int64(100), run.Totals.Requests)
	assert.Contains(t, res.out, "batches/s")
}

func TestBatchingCountsExecAbort(t *testing.T) {
	r := testenv.StartRedis(t)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	// GET with a missing argument is rejected while queued, so EXEC aborts.
	res := runCLI(context.Background(), "redis", "-port", port(r), "-c", "50", "-p", "1", "-batching", "5",
		"-command", "GET", "-q", "--json", jsonPath)
	assert.Equal(t, ExitRunFailed, res.code)
	run := readResult(t, jsonPath)
	assert.Equal(t, int64(10), run.Totals.Aborted)
	assert.Equal(t, int64(50), run.Totals.Errors)
	assert.Contains(t, res.out, "WARNING: 10 MULTI/EXEC batches were aborted")
	assert.Contains(t, res.out, "wrong number of arguments")
}

func TestPipelining(t *testing.T) {
	r := testenv.StartRedis(t)
	before, _ := strconv.ParseInt(testenv.InfoField(t, r.Addr, "stats", "total_reads_processed"), 10, 64)
	res := runCLI(context.Background(), "redis", "-port", port(r), "-c", "16000", "-p", "1", "-P", "16",
		"-command", "INCR counter", "-q")
	require.Equal(t, 0, res.code, res.err)
	after, _ := strconv.ParseInt(testenv.InfoField(t, r.Addr, "stats", "total_reads_processed"), 10, 64)
	assert.Equal(t, "16000", testenv.Do(t, r.Addr, "GET", "counter"))
	assert.Zero(t, testenv.CommandCalls(t, r.Addr, "multi"), "pipelining sends no MULTI")
	assert.Less(t, after-before, int64(16000/4), "the server read many commands per read: they were pipelined")
}

func TestACLUserColonPassword(t *testing.T) {
	r := testenv.StartRedis(t)
	assert.Equal(t, "OK", testenv.Do(t, r.Addr, "ACL", "SETUSER", "bench", "on", ">s3cret", "~*", "+@all"))
	res := runCLI(context.Background(), "redis", "-port", port(r), "-a", "bench:s3cret", "-c", "100", "-p", "2",
		"-command", "SET k __DATA__", "-q")
	require.Equal(t, 0, res.code, res.err)
	assert.Equal(t, int64(100), testenv.CommandCalls(t, r.Addr, "set"))
}

func TestBadInputFailsCleanly(t *testing.T) {
	r := testenv.StartRedis(t, "--requirepass", "right")
	closed := testenv.FreePort(t)
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"wrong password", []string{"-port", port(r), "-a", "wrong"}, "authentication to 127.0.0.1:" + port(r) + " failed: WRONGPASS"},
		{"closed port", []string{"-port", strconv.Itoa(closed)}, "cannot connect to 127.0.0.1:" + strconv.Itoa(closed) + ": connection refused"},
		{"bad template", []string{"-command", `SET "x`}, `bad -command "SET \"x": unterminated double quote`},
		{"unknown placeholder", []string{"-command", "GET __RAND1__"}, "unknown placeholder"},
		{"bad range", []string{"--rand", "3=0"}, "range \"0\""},
		{"unknown flag", []string{"--nope"}, "unknown flag: --nope"},
		{"batching and pipeline", []string{"-batching", "2", "-P", "2"}, "cannot be combined"},
		{"window and pipeline", []string{"-window", "4", "-P", "2"}, "cannot be combined with -P or -batching"},
		{"window on a send grid", []string{"-window", "4", "--rate", "100", "--send-grid", "250us"}, "leave --send-grid out"},
		{"bad resp", []string{"--resp", "4"}, "--resp must be 2 or 3"},
		{"tls to plain server", []string{"-port", port(r), "--tls", "--tls-insecure", "--timeout", "2s"}, "TLS handshake with"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runCLI(context.Background(), append([]string{"redis", "-c", "10", "-q"}, tc.args...)...)
			assert.Equal(t, ExitError1, res.code)
			lines := strings.Split(strings.TrimSpace(res.err), "\n")
			last := lines[len(lines)-1]
			assert.Contains(t, last, tc.msg)
			assert.True(t, strings.HasPrefix(last, "tairbench: "), last)
		})
	}
}

func TestWhitepaperLineRunsAndShowsErrors(t *testing.T) {
	r := testenv.StartRedis(t)
	// The whitepaper's own line: "bar-N" is not an offset, so every reply is an
	// error (and plain Redis has no TR.* at all). The run must say so loudly.
	res := runCLI(context.Background(), "redis", "-h", "127.0.0.1", "-port", port(r), "-d", "1", "-r", "100000",
		"-r2", "10000000", "-command", "TR.SETBIT foo-__RAND__ bar-__RAND2__", "-p", "2", "-c", "200")
	assert.Equal(t, ExitRunFailed, res.code)
	assert.Contains(t, res.err, "-c (total commands) wins")
	assert.Contains(t, res.out, "!! WARNING: 100.0% of commands failed")
	assert.Contains(t, res.out, "unknown command")
	res = runCLI(context.Background(), "redis", "-port", port(r), "-command", "PING", "-p", "20", "-c", "1", "-q")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.err, "warning: -c 1 is smaller than -p 20: only 1 command(s) will run")
	assert.Contains(t, res.out, "commands     1 in 1 requests")
}

func TestInterruptPrintsPartialResult(t *testing.T) {
	r := testenv.StartRedis(t)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	res := runCLI(ctx, "redis", "-port", port(r), "-d", "60", "-p", "2", "-command", "PING", "-q", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	run := readResult(t, jsonPath)
	assert.Equal(t, "interrupted", run.StopReason)
	assert.Greater(t, run.Totals.Ops, int64(0))
	assert.Contains(t, res.out, "partial results")
}

func readResult(t *testing.T, path string) *result.Run {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := result.DecodeRun(f)
	require.NoError(t, err)
	return r
}

// normalize replaces the values that vary between runs so that the JSON's
// shape and stable values can be compared with a golden file.
func normalize(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e, k)
		}
		return x
	case []any:
		if key == "series" || key == "workers" || key == "samples" {
			// Their length and values depend on timing: keep one element
			// with every element's keys (only the last second of a series
			// has span_s, and a slow run's first is whole).
			if len(x) == 0 {
				return x
			}
			if _, ok := x[0].(map[string]any); ok {
				shape := map[string]any{}
				for _, e := range x {
					for k := range e.(map[string]any) {
						shape[k] = "<number>"
					}
				}
				return []any{shape}
			}
			return []any{"<number>"}
		}
		for i, e := range x {
			x[i] = normalize(e, key)
		}
		return x
	case float64:
		switch key {
		case "ops", "requests", "errors", "transport_errors", "aborted", "latency_overflow", "ops_per_request",
			"connections", "count", "data_size", "batching", "pipeline", "max_errors", "histogram_max_us", "warmup_ops",
			"db", "resp", "timeout_ms", "duration_s", "warmup_s", "base", "after_deadline_ops", "lost_ops", "connect_failures", "rejected", "failed",
			"connections_lost", "unreachable_ms", "unreachable_fraction", "downtime_ms", "reconnects":
			return x
		}
		return "<number>"
	case bool:
		if key == "saturated" {
			return "<bool>"
		}
		return x
	case string:
		switch key {
		case "started_at", "histogram_hdr", "tool_version", "host", "run_id":
			return "<" + key + ">"
		case "addr":
			return "<addr>"
		case "version": // the server's own (config.target.server.version)
			return "<version>"
		}
		return x
	}
	return v
}

func TestJSONGolden(t *testing.T) {
	r := testenv.StartRedis(t)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "-port", port(r), "-c", "2000", "-p", "2", "-r", "100",
		"-command", "SET k-__RAND__ __DATA__", "--data-size", "16", "--seed", "7", "-q", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var doc any
	require.NoError(t, json.Unmarshal(raw, &doc))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(normalize(doc, "")))
	testenv.Golden(t, "redis-run.json", buf.Bytes())
}

func TestPasswordRedactedInJSON(t *testing.T) {
	r := testenv.StartRedis(t, "--requirepass", "topsecret")
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "-port", port(r), "-a", "topsecret", "-c", "10", "-p", "1",
		"-command", "PING", "-q", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "topsecret")
	assert.Contains(t, string(raw), `"auth": "***"`)
}
