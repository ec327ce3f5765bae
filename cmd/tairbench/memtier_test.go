package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// The whitepaper's cluster line, after the program name, with the host and
// password changed to a local redis-server (--test-time=1800 is kept: the
// test interrupts the run, which then prints its partial table).
const whitepaperMemtier = "-s 127.0.0.1 -p PORT -a PASSWORD -c 20 -d 32 --threads=10 --ratio=1:1 --test-time=1800 --select-db=10"

func TestWhitepaperMemtierLine(t *testing.T) {
	r := testenv.StartRedis(t, "--requirepass", "wp-pass")
	line := strings.NewReplacer("PORT", strconv.Itoa(r.Port), "PASSWORD", "wp-pass").Replace(whitepaperMemtier)
	var out bytes.Buffer
	cmd := exec.Command(binary(t), append([]string{"memtier"}, strings.Fields(line)...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	time.Sleep(4 * time.Second)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	var ee *exec.ExitError
	require.ErrorAs(t, cmd.Wait(), &ee, out.String())
	assert.Equal(t, 130, ee.ExitCode(), "interrupted: 130, as shells report SIGINT")
	s := out.String()
	assert.Contains(t, s, "10 threads × 20 connections")
	assert.Regexp(t, `(?m)^\[RUN #1 0%, 1 secs\] 10 threads: \d+ ops`, s, "memtier's progress line, every second")
	for _, typ := range []string{"Sets", "Gets", "Totals"} {
		assert.Regexp(t, `(?m)^`+typ+`\s+\d+\.\d\d\s`, s)
	}
	assert.Contains(t, s, "p99.9 Latency")
	assert.Contains(t, s, "the run was interrupted: these are partial results")
	dbsize, err := exec.Command("redis-cli", "-p", strconv.Itoa(r.Port), "--no-auth-warning", "-a", "wp-pass", "-n", "10", "DBSIZE").Output()
	require.NoError(t, err)
	n, _ := strconv.Atoi(strings.TrimSpace(string(dbsize)))
	assert.Positive(t, n, "--select-db=10: the keys are in db 10")
}

// peerMemtier builds memtier_benchmark from the peer source archive
// (../shared/peers beside the checkout, or $TAIRBENCH_PEERS) into
// .cache/peers once, and returns its path.
func peerMemtier(t *testing.T) string {
	testenv.Integration(t)
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	bin := filepath.Join(root, ".cache", "peers", "memtier_benchmark")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	var script string
	for _, dir := range []string{os.Getenv("TAIRBENCH_PEERS"), filepath.Join(root, "..", "shared", "peers")} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "build-memtier.sh")); err == nil {
			script = filepath.Join(dir, "build-memtier.sh")
			break
		}
	}
	if script == "" {
		// An external input this checkout cannot fetch: said loudly, in the test output and on stderr.
		msg := "memtier_benchmark's source (build-memtier.sh and its archive) is not beside the checkout (../shared/peers) nor in $TAIRBENCH_PEERS: the side-by-side test with the real memtier cannot run"
		fmt.Fprintln(os.Stderr, "SKIP: "+msg)
		t.Skip(msg)
	}
	out, err := exec.Command("bash", script, filepath.Dir(bin)).CombinedOutput()
	require.NoError(t, err, "build memtier_benchmark: %s", out)
	return bin
}

// TestSideBySideWithMemtier runs memtier_benchmark and tairbench's
// front-end with the same command line against one redis-server: the same
// number of SETs and GETs reach the server, in the same key range.
func TestSideBySideWithMemtier(t *testing.T) {
	peer := peerMemtier(t)
	r := testenv.StartRedis(t)
	args := []string{"-s", "127.0.0.1", "-p", strconv.Itoa(r.Port), "-c", "5", "-t", "2", "-n", "3000", "-d", "16", "--ratio=1:2",
		"--key-minimum=1000", "--key-maximum=1999", "--select-db=3", "--hide-histogram"}
	type view struct {
		set, get, db3 int64
		lo, hi        int
	}
	look := func() view {
		v := view{set: testenv.CommandCalls(t, r.Addr, "set"), get: testenv.CommandCalls(t, r.Addr, "get"), lo: 1 << 30}
		keys := testenv.Do(t, r.Addr, "EVAL", `redis.call('SELECT', 3) return table.concat(redis.call('KEYS', '*'), ' ')`, "0")
		re := regexp.MustCompile(`^memtier-(\d+)$`)
		for _, k := range strings.Fields(keys) {
			m := re.FindStringSubmatch(k)
			require.NotNil(t, m, "key %q", k)
			n, _ := strconv.Atoi(m[1])
			v.lo, v.hi = min(v.lo, n), max(v.hi, n)
			v.db3++
		}
		return v
	}
	run := func(bin string, prefix ...string) view {
		testenv.Do(t, r.Addr, "FLUSHALL")
		testenv.Do(t, r.Addr, "CONFIG", "RESETSTAT")
		out, err := exec.Command(bin, append(prefix, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
		return look()
	}
	theirs := run(peer)
	ours := run(binary(t), "memtier")
	t.Logf("memtier: %+v; tairbench: %+v", theirs, ours)
	assert.Equal(t, int64(10000), theirs.set, "3000 requests × 10 connections, 1:2")
	assert.Equal(t, theirs.set, ours.set, "SET calls")
	assert.Equal(t, theirs.get, ours.get, "GET calls")
	assert.GreaterOrEqual(t, ours.lo, 1000)
	assert.LessOrEqual(t, ours.hi, 1999)
	assert.GreaterOrEqual(t, theirs.lo, 1000)
	assert.LessOrEqual(t, theirs.hi, 1999)
	// By default every memtier connection draws the same keys: 1,000
	// random SETs over 1,000 keys, repeated by the 10 connections, leave
	// about 632 distinct keys (1000 × (1 − (1 − 1/1000)^1000)).
	assert.InDelta(t, 632, theirs.db3, 40)
	assert.InDelta(t, 632, ours.db3, 40, "the same keys on every connection, as memtier's")

	// The other key patterns: P gives each connection its own slice, walked
	// in order (10 slices of 100 keys: every key is written); G draws around
	// the middle of the range. Value sizes vary with --data-size-range.
	base := args
	for _, pattern := range []string{"P:P", "G:G"} {
		args = []string{"-s", "127.0.0.1", "-p", strconv.Itoa(r.Port), "-c", "5", "-t", "2", "-n", "3000", "--data-size-range=8-64",
			"--ratio=1:2", "--key-minimum=1000", "--key-maximum=1999", "--select-db=3", "--hide-histogram", "--key-pattern=" + pattern}
		theirs, ours := run(peer), run(binary(t), "memtier")
		t.Logf("%s: memtier %+v; tairbench %+v", pattern, theirs, ours)
		assert.Equal(t, theirs.set, ours.set, pattern)
		assert.Equal(t, theirs.get, ours.get, pattern)
		assert.GreaterOrEqual(t, ours.lo, 1000, pattern)
		assert.LessOrEqual(t, ours.hi, 1999, pattern)
		if pattern == "P:P" {
			assert.Equal(t, int64(1000), theirs.db3)
			assert.Equal(t, int64(1000), ours.db3, "every slice walked")
		} else {
			assert.InEpsilon(t, theirs.db3, ours.db3, 0.15, "about as many distinct keys around the middle")
		}
	}

	// -n allkeys, also with --pipeline (a window): as many SETs as
	// memtier's (--key-maximum − --key-minimum a connection; over P:P a
	// slice a connection, plus one), and over P:P every key written.
	for _, extra := range [][]string{{"--key-pattern=R:R"}, {"--key-pattern=P:P"}, {"--key-pattern=P:P", "--pipeline=4"}} {
		args = append([]string{"-s", "127.0.0.1", "-p", strconv.Itoa(r.Port), "-c", "5", "-t", "2", "-n", "allkeys", "-d", "16",
			"--ratio=1:0", "--key-minimum=1000", "--key-maximum=1999", "--select-db=3", "--hide-histogram"}, extra...)
		theirs, ours := run(peer), run(binary(t), "memtier")
		t.Logf("allkeys %v: memtier %+v; tairbench %+v", extra, theirs, ours)
		assert.Equal(t, theirs.set, ours.set, extra)
		if extra[0] == "--key-pattern=P:P" {
			assert.Equal(t, int64(1000), theirs.set, "100 a connection")
			assert.Equal(t, theirs.db3, ours.db3, extra)
			assert.Equal(t, int64(1000), ours.db3, "every key written")
		} else {
			assert.Equal(t, int64(9990), theirs.set, "999 a connection")
		}
	}
	args = base

	// KB/sec by type, also with --pipeline (a window, whose writes carry
	// several commands and whose reads bring several replies): each type's
	// bytes a command are memtier's. Every key is there before the run,
	// with a value of the run's size, so every GET hits and each type has
	// one size. (Whether a GET hits otherwise depends on how far apart the
	// connections, which draw the same keys, run: on a busy machine a late
	// one finds keys the others set ahead of it.)
	for _, pipeline := range []string{"1", "8"} {
		perOp := func(bin string, prefix ...string) (set, get float64) {
			path := filepath.Join(t.TempDir(), "kb.json")
			a := append(prefix, "-s", "127.0.0.1", "-p", strconv.Itoa(r.Port), "-c", "5", "-t", "2", "-n", "3000", "-d", "16",
				"--ratio=1:3", "--key-minimum=1000", "--key-maximum=1999", "--hide-histogram", "--pipeline="+pipeline, "--json-out-file", path)
			testenv.Do(t, r.Addr, "FLUSHALL")
			testenv.Do(t, r.Addr, "EVAL", `for i = 1000, 1999 do redis.call('SET', 'memtier-' .. i, string.rep('x', 16)) end`, "0")
			out, err := exec.Command(bin, a...).CombinedOutput()
			require.NoError(t, err, string(out))
			var doc map[string]map[string]any
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &doc))
			b := func(typ string) float64 {
				row := doc["ALL STATS"][typ].(map[string]any)
				kb, _ := row["KB/sec"].(float64)
				return kb * 1024 / row["Ops/sec"].(float64)
			}
			return b("Sets"), b("Gets")
		}
		theirSet, theirGet := perOp(peer)
		ourSet, ourGet := perOp(binary(t), "memtier")
		t.Logf("--pipeline=%s bytes a command: memtier SET %.2f GET %.2f; tairbench SET %.2f GET %.2f", pipeline, theirSet, theirGet, ourSet, ourGet)
		assert.InEpsilon(t, theirSet, ourSet, 0.01, "SET bytes a command, --pipeline=%s", pipeline)
		assert.InEpsilon(t, theirGet, ourGet, 0.01, "GET bytes a command, --pipeline=%s", pipeline)
		assert.InDelta(t, 32+23, ourGet, 0.01, "GET memtier-NNNN, 32 bytes; a 16-byte value, 23")
	}

	// memtier-shaped JSON.
	jsonPath := filepath.Join(t.TempDir(), "m.json")
	out, err := exec.Command(binary(t), append([]string{"memtier", "--json-out-file", jsonPath}, args...)...).CombinedOutput()
	require.NoError(t, err, string(out))
	var doc map[string]map[string]any
	data, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	sets := doc["ALL STATS"]["Sets"].(map[string]any)
	assert.Equal(t, float64(10000), sets["Count"])
	assert.Contains(t, sets, "Percentile Latencies")
}
