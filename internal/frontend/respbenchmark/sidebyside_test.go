package respbenchmark

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/testenv"
)

// serverView is what one run left on the server: the calls of the
// command it sent, and the keys.
type serverView struct {
	calls int64
	keys  []string
}

// look reads the server after a run, then empties it for the next.
func look(t *testing.T, addr, command string) serverView {
	raw := strings.Trim(testenv.Do(t, addr, "KEYS", "*"), "[]")
	v := serverView{calls: testenv.CommandCalls(t, addr, command), keys: strings.Fields(raw)}
	sort.Strings(v.keys)
	testenv.Do(t, addr, "FLUSHALL")
	testenv.Do(t, addr, "CONFIG", "RESETSTAT")
	return v
}

// keyNumbers reads the numbers of keys named as re says (its one group).
func keyNumbers(t *testing.T, re *regexp.Regexp, keys []string) []int {
	var out []int
	for _, k := range keys {
		m := re.FindStringSubmatch(k)
		require.NotNil(t, m, "key %q is not named as %s", k, re)
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// TestSideBySideWithRespBenchmark runs each line through PyPI's
// resp-benchmark and through 'tairbench resp-benchmark' against one
// redis-server: the server counts the same commands, and the keys written
// are the same set (sequences) or from the same range.
func TestSideBySideWithRespBenchmark(t *testing.T) {
	peer, pythonPath := testenv.RespBenchmark(t)
	r := testenv.StartRedis(t)
	port := strconv.Itoa(r.Port)
	cases := []struct {
		name, command string
		args          []string
		lo, hi        int  // the key numbers allowed
		exact         bool // the same keys on both sides
		keys          string
	}{
		{"load sequence", "set", []string{"--load", "-c", "4", "-n", "5000", "SET {key sequence 1000} {value 16}"}, 0, 999, true, ""},
		{"uniform", "set", []string{"-c", "4", "-n", "20000", "SET {key uniform 300} {value 8}"}, 0, 299, false, ""},
		{"zipfian", "incr", []string{"-c", "2", "-n", "20000", "INCR {key zipfian 100}"}, 1, 100, false, ""},
		{"pipeline", "hset", []string{"-c", "2", "-n", "3000", "-P", "10", "HSET {key uniform 10} {key uniform 50} {value 8}"}, 0, 9, false, ""},
		{"text around a key", "set", []string{"--load", "-c", "2", "-n", "500", "SET user:{key sequence 500}:name {value 8}"}, 0, 499, true,
			`^user:key_(\d{10}):name$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"-p", port}, c.args...)
			cmd := exec.Command(peer[0], append(peer[1:], args...)...)
			cmd.Env = append(os.Environ(), "PYTHONPATH="+pythonPath)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			theirs := look(t, r.Addr, c.command)

			o, err := Parse(append([]string{"-q", "--no-server-stats"}, args...))
			require.NoError(t, err)
			var stdout, stderr bytes.Buffer
			_, err = Run(context.Background(), o, args, harness.IO{Out: &stdout, Err: &stderr, In: strings.NewReader(""), Version: "test"})
			require.NoError(t, err, "%s%s", stdout.String(), stderr.String())
			ours := look(t, r.Addr, c.command)

			assert.Equal(t, theirs.calls, ours.calls, "the server's count of %s", strings.ToUpper(c.command))
			if c.exact {
				assert.Equal(t, theirs.keys, ours.keys, "the same keys")
			}
			re := regexp.MustCompile(`^key_(\d{10})$`)
			if c.keys != "" {
				re = regexp.MustCompile(c.keys)
			}
			for side, v := range map[string]serverView{"resp-benchmark": theirs, "tairbench": ours} {
				nums := keyNumbers(t, re, v.keys)
				require.NotEmpty(t, nums, side)
				assert.GreaterOrEqual(t, slicesMin(nums), c.lo, side)
				assert.LessOrEqual(t, slicesMax(nums), c.hi, side)
			}
			assert.InDelta(t, len(theirs.keys), len(ours.keys), float64(len(theirs.keys))/10+2, "about as many keys")
		})
	}
}

func slicesMin(xs []int) int {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func slicesMax(xs []int) int {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// TestRunAgainstTheEmbeddedServer: the report's shape, the JSON document
// and the connection search, with no outside server.
func TestRunAgainstTheEmbeddedServer(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--embedded", "-c", "2", "-n", "3000", "--json", dir + "/r.json", "SET {key uniform 100} {value 8}"}
	o, err := Parse(args)
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	doc, err := Run(context.Background(), o, args, harness.IO{Out: &stdout, Err: &stderr, In: strings.NewReader(""), Version: "test"})
	require.NoError(t, err, stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "command: SET {key uniform 100} {value 8}\nconnections: 2\ncount: 3000\ntarget: unlimited\n")
	assert.Regexp(t, `qps: \d+, conn: 2, cnt: 3000, avg: [0-9.<]+ms, p99: [0-9.<]+ms\n`, out)
	assert.Contains(t, out, "tairbench: bench: 3000 commands", "tairbench's own line")
	assert.Contains(t, out, "embedded server, not Tair", "the target named")
	require.Len(t, doc.Tests, 1)
	assert.Equal(t, "resp-benchmark", doc.Tool)
	assert.Equal(t, int64(3000), doc.Tests[0].Run.Totals.Ops)
	_, err = os.Stat(dir + "/r.json")
	require.NoError(t, err)

	args = []string{"--embedded", "-n", "20000", "SET {key uniform 100} {value 8}"}
	o, err = Parse(args)
	require.NoError(t, err)
	stdout.Reset()
	stderr.Reset()
	doc, err = Run(context.Background(), o, args, harness.IO{Out: &stdout, Err: io.Discard, In: strings.NewReader(""), Version: "test"})
	require.NoError(t, err)
	assert.Contains(t, stdout.String(), "connections: auto\n")
	run := doc.Tests[0].Run
	assert.Positive(t, run.Config.Connections)
	assert.LessOrEqual(t, run.Totals.Ops, int64(20000), "the connection search's commands count toward -n, as resp-benchmark's")

	// -t: an open loop at that rate in all.
	args = []string{"--embedded", "-c", "2", "-s", "2", "-t", "500", "-q", "SET {key uniform 100} {value 8}"}
	o, err = Parse(args)
	require.NoError(t, err)
	hio, report, _ := harness.Captured("test")
	doc, err = Run(context.Background(), o, args, hio)
	require.NoError(t, err)
	assert.Contains(t, report.String(), "from the intended start (what users waited): avg: ", "an open loop names both latencies")
	run = doc.Tests[0].Run
	require.NotNil(t, run.Totals.Schedule, "an open loop")
	assert.Equal(t, 500.0, run.Totals.Schedule.Rate)
	assert.InDelta(t, 1000, run.Totals.Ops, 100)
}
