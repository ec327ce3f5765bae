package cli

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// timeoutModes are the ways a RESP run sends: one command per round trip,
// a pipeline, an open loop, a window of commands in flight, MULTI/EXEC.
var timeoutModes = [][]string{nil, {"-P", "16"}, {"--rate", "2000"}, {"--window", "8"}, {"--batching", "4"}}

// TestTimeoutBoundsEveryRequest: through a 1.2 s CLIENT PAUSE (and, in
// closed loop, a 1.2 s DEBUG SLEEP), --timeout 300ms gives up every
// request that waits longer, in every mode: no answered request took
// longer, the rest are lost with the timeout named, each second's live
// line holds the JSON's second, and the server's count lies between the
// client's successes and those plus the lost commands.
func TestTimeoutBoundsEveryRequest(t *testing.T) {
	type stall struct {
		name   string
		server []string
		args   []string
	}
	var stalls []stall
	for _, extra := range timeoutModes {
		stalls = append(stalls, stall{"CLIENT PAUSE", nil, extra})
	}
	stalls = append(stalls, stall{"DEBUG SLEEP", []string{"--enable-debug-command", "yes"}, nil})
	for _, st := range stalls {
		t.Run(strings.Join(append([]string{st.name}, st.args...), " "), func(t *testing.T) {
			r := testenv.StartRedis(t, st.server...)
			js := filepath.Join(t.TempDir(), "r.json")
			cmd := []string{"CLIENT", "PAUSE", "1200", "ALL"}
			if st.name == "DEBUG SLEEP" {
				cmd = []string{"DEBUG", "SLEEP", "1.2"}
			}
			pause := time.AfterFunc(800*time.Millisecond, func() { testenv.Do(t, r.Addr, cmd...) })
			defer pause.Stop()
			// Whether a whole second went without a reply (exit 3) depends on
			// when the run started against the stall: errors are allowed.
			args := append([]string{"redis", "-port", port(r), "-d", "3", "-p", "4", "-command", "INCR c", "--timeout", "300ms",
				"--json", js, "--allow-errors"}, st.args...)
			res := runCLI(context.Background(), args...)
			assert.Equal(t, 0, res.code, res.err)
			run := readResult(t, js)
			assert.Less(t, run.Totals.Latency.Max, 500e3, "no answered request waited much past the timeout (a busy machine's scheduling aside)")
			assert.Positive(t, run.Totals.LostOps)
			require.NotEmpty(t, run.Errors)
			assert.Equal(t, "read: timeout: no reply in 300ms", run.Errors[0].Message)
			assertReconciles(t, run, counter(t, r))
			assertLiveLinesAreTheSeries(t, res.err, run)
		})
	}
}

// TestSilentServerEndsAtTheTimeout: against a server that accepts and
// never answers, a run ends within its duration and --timeout twice (the
// identification's wait and the last request's), in every mode, every
// request given up at the timeout, each second's errors on its live line.
func TestSilentServerEndsAtTheTimeout(t *testing.T) {
	for _, extra := range timeoutModes {
		t.Run(strings.Join(append([]string{"mode"}, extra...), " "), func(t *testing.T) {
			t.Parallel()
			p := blackHole(t)
			js := filepath.Join(t.TempDir(), "r.json")
			start := time.Now()
			args := append([]string{"redis", "-port", p, "-command", "INCR c", "-d", "2", "-p", "2", "--timeout", "500ms",
				"--json", js}, extra...)
			res := runCLI(context.Background(), args...)
			took := time.Since(start)
			assert.Equal(t, ExitRunFailed, res.code, res.err)
			assert.Less(t, took, 4*time.Second, "2 s, the identification's 0.5 s and the last request's 0.5 s (and 1 s for a busy machine)")
			run := readResult(t, js)
			require.NotEmpty(t, run.Errors)
			assert.Equal(t, "read: timeout: no reply in 500ms", run.Errors[0].Message)
			assert.GreaterOrEqual(t, run.Totals.LostOps, int64(2*4*run.Totals.OpsPerRequest), "each connection's 4 requests")
			assert.Contains(t, res.err, "server statistics unavailable (identification: read: timeout: no reply in 500ms)")
			assertLiveLinesAreTheSeries(t, res.err, run)
			assert.InDelta(t, 2.0, run.Availability.UnresponsiveS, 0.001, "no reply in the whole run")
			assert.Contains(t, res.out, "most of them lost with their connection (no reply)", "not called error replies")
			if sc := run.Totals.Schedule; sc != nil { // 2000/s for 2 s
				assert.Equal(t, int64(4000), sc.Sent+sc.NotSent, "every scheduled request sent or counted as not sent")
				assert.Contains(t, res.out, "4000 requests scheduled in the measured time")
			}
		})
	}
}

// blackHole listens on a loopback port and holds every connection open
// without answering; it returns the port.
func blackHole(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	return p
}

// TestWorkersGoOnAfterTheirConnectionsAreKilled: after CLIENT KILL takes
// every connection, each worker dials again and goes on: no request waits
// out its timeout or is abandoned at the run's end (before, a worker whose
// request fell due as a second ended dropped it unsent and waited for its
// reply until --timeout), and the server ran what the client counted.
func TestWorkersGoOnAfterTheirConnectionsAreKilled(t *testing.T) {
	r := testenv.StartRedis(t)
	kill := time.AfterFunc(1500*time.Millisecond, func() { testenv.Do(t, r.Addr, "CLIENT", "KILL", "TYPE", "normal") })
	defer kill.Stop()
	js := filepath.Join(t.TempDir(), "r.json")
	start := time.Now()
	res := runCLI(context.Background(), "redis", "-port", port(r), "-d", "4", "-p", "8", "-command", "INCR c", "--json", js,
		"--allow-errors", "-q")
	took := time.Since(start)
	require.Equal(t, 0, res.code, res.err)
	run := readResult(t, js)
	for _, e := range run.Errors {
		assert.NotContains(t, e.Message, "timeout", "no request waited out its timeout")
		assert.NotContains(t, e.Message, "abandoned", "none was left unanswered at the end")
	}
	assert.LessOrEqual(t, run.Totals.LostOps, int64(8), "at most the requests in flight at the kill")
	assert.Less(t, took, 6*time.Second, "no wait for replies that cannot come (4 s, and 2 s for a busy machine)")
	assertReconciles(t, run, counter(t, r))
}
