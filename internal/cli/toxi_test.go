package cli

import (
	"context"
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

// Network faults between real processes: Toxiproxy between tairbench and a
// real redis-server (this kernel has no netem). Each cell injects one
// fault, runs INCR, logs what it injected and what the report said, and
// checks that the report stays true and the counts exact: the server ran
// every command counted, plus at most those whose replies were lost.
func TestNetworkFaultsThroughToxiproxy(t *testing.T) {
	cells := []struct {
		name    string
		inject  func(t *testing.T, x *testenv.Toxi) // at 1 s into the run
		command string                              // default INCR c
		args    []string
		check   func(t *testing.T, run *result.Run, out string)
	}{
		{name: "latency 20 ms with 10 ms jitter",
			inject: func(t *testing.T, x *testenv.Toxi) { x.Add(t, "latency", `"latency":20,"jitter":10`) },
			check: func(t *testing.T, run *result.Run, _ string) {
				assert.Zero(t, run.Totals.Errors)
				last := run.Series[len(run.Series)-1]
				require.NotNil(t, last.P50US)
				assert.GreaterOrEqual(t, *last.P50US, 10e3, "the delay shows in the latency (µs)")
				assert.True(t, run.Server.Reconciliation.Match, "%+v", run.Server.Reconciliation)
			}},
		{name: "bandwidth 32 KB/s a connection",
			inject:  func(t *testing.T, x *testenv.Toxi) { x.Add(t, "bandwidth", `"rate":32`) },
			command: "GET big",
			check: func(t *testing.T, run *result.Run, _ string) {
				assert.Zero(t, run.Totals.Errors)
				last := run.Series[len(run.Series)-1]
				assert.LessOrEqual(t, float64(last.Ops), 4*32*1024/4096*1.5, "4 KB replies at 32 KB/s on each of 4 connections: about 32 a second")
				assert.Greater(t, last.Ops, int64(0))
				assert.True(t, run.Server.Reconciliation.Match, "%+v", run.Server.Reconciliation)
			}},
		{name: "connection reset mid-pipeline",
			inject: func(t *testing.T, x *testenv.Toxi) {
				name := x.Add(t, "reset_peer", `"timeout":200`)
				time.AfterFunc(time.Second, func() { x.Remove(t, name) })
			},
			args: []string{"-P", "16"},
			check: func(t *testing.T, run *result.Run, out string) {
				assert.Greater(t, run.Totals.LostOps, int64(0), "the reset lost the requests in flight")
				assert.Contains(t, out, "were lost on their connection")
				assert.Greater(t, run.Series[len(run.Series)-1].Ops, int64(0), "the run recovered")
				rc := run.Server.Reconciliation
				assert.True(t, rc.Match || rc.Explained, "the server ran the counted commands and some lost ones: %+v", rc)
			}},
		{name: "black hole for 2 s",
			inject: func(t *testing.T, x *testenv.Toxi) {
				name := x.Add(t, "timeout", `"timeout":0`)
				time.AfterFunc(2*time.Second, func() { x.Remove(t, name) })
			},
			check: func(t *testing.T, run *result.Run, out string) {
				assert.Greater(t, run.Totals.LostOps, int64(0), "requests timed out")
				require.NotEmpty(t, run.Errors)
				assert.Equal(t, "read: timeout: no reply in 1s", run.Errors[0].Message, "given up at --timeout")
				assert.Less(t, run.Totals.Latency.Max, 1.1e6, "no answered request waited past --timeout")
				assert.Zero(t, run.Availability.UnreachableMS, "the proxy accepted connections: not unreachable")
				assert.GreaterOrEqual(t, run.Availability.UnresponsiveS, 1.0)
				assert.Contains(t, out, "the connections were up and the server did not answer")
				assert.Greater(t, run.Series[len(run.Series)-1].Ops, int64(0), "the run recovered")
				rc := run.Server.Reconciliation
				assert.True(t, rc.Match || rc.Explained, "%+v", rc)
			}},
	}
	for _, c := range cells {
		t.Run(c.name, func(t *testing.T) {
			r := testenv.StartRedis(t)
			testenv.Do(t, r.Addr, "SET", "big", strings.Repeat("x", 4096))
			x := testenv.StartToxiproxy(t, r.Addr)
			_, proxyPort, _ := strings.Cut(x.Addr, ":")
			time.AfterFunc(time.Second, func() { c.inject(t, x) })
			jsonPath := filepath.Join(t.TempDir(), "r.json")
			command := c.command
			if command == "" {
				command = "INCR c"
			}
			args := append([]string{"redis", "-port", proxyPort, "-d", "5", "-p", "4", "--timeout", "1s", "-command", command,
				"--json", jsonPath, "--allow-errors"}, c.args...)
			res := runCLI(context.Background(), args...)
			require.Equal(t, 0, res.code, res.err)
			run := readResult(t, jsonPath)
			var said []string
			seen := map[string]bool{}
			for _, l := range strings.Split(res.out, "\n") {
				if (strings.HasPrefix(l, "!! WARNING") || strings.HasPrefix(l, "availability") || strings.HasPrefix(l, "reconcile")) && !seen[l] {
					seen[l] = true
					said = append(said, strings.TrimSpace(l))
				}
			}
			t.Logf("injected %s at 1 s of a 5 s run; the report said:\n  %s", c.name, strings.Join(said, "\n  "))
			c.check(t, run, res.out)
			if c.command != "" {
				return
			}
			n, err := strconv.ParseInt(testenv.Do(t, r.Addr, "GET", "c"), 10, 64)
			require.NoError(t, err)
			assertReconciles(t, run, n)
		})
	}
}

// TestReconnectsAreConnectionsAccepted: while Toxiproxy resets every
// connection 100 ms after accepting it, each connection made again counts
// as a reconnect, whether or not a reply came on it: the run's reconnects
// are the server's connections less the run's first ones.
func TestReconnectsAreConnectionsAccepted(t *testing.T) {
	r := testenv.StartRedis(t)
	x := testenv.StartToxiproxy(t, r.Addr)
	_, proxyPort, _ := strings.Cut(x.Addr, ":")
	before := testenv.InfoField(t, r.Addr, "stats", "total_connections_received")
	time.AfterFunc(500*time.Millisecond, func() {
		name := x.Add(t, "reset_peer", `"timeout":100`)
		time.AfterFunc(1500*time.Millisecond, func() { x.Remove(t, name) })
	})
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "-port", proxyPort, "-d", "3", "-p", "4", "--timeout", "1s",
		"-command", "INCR c", "-P", "16", "--no-server-stats", "--json", jsonPath, "--allow-errors", "-q")
	require.Equal(t, 0, res.code, res.err)
	run := readResult(t, jsonPath)
	after := testenv.InfoField(t, r.Addr, "stats", "total_connections_received")
	b, err := strconv.Atoi(before)
	require.NoError(t, err)
	a, err := strconv.Atoi(after)
	require.NoError(t, err)
	accepted := a - b - 1 // less this reading's own
	first := 1 + 4        // the identification's and the 4 workers' first
	assert.Greater(t, run.Availability.Reconnects, int64(4), "the resets made the workers connect again and again")
	assert.Equal(t, int64(accepted-first), run.Availability.Reconnects, "every connection made again is a reconnect")
	assert.Contains(t, res.out, strconv.FormatInt(run.Availability.Reconnects, 10)+" reconnects")
	t.Logf("%d connections accepted, %d reconnects", accepted, run.Availability.Reconnects)
}
