//go:build unix

package cli

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// Elasticsearch paused (SIGSTOP) for 5 s under --timeout 2s: the writes in
// flight time out and are counted, no latency exceeds the timeout, the
// pause is reported as unresponsive time (not unreachable), and the run
// goes on to write every document once the node is continued.
func TestElasticsearchPausedTimesOut(t *testing.T) {
	es := testenv.StartElasticsearch(t)
	dump := filepath.Join(t.TempDir(), "w.xml")
	require.Equal(t, 0, runCLI(context.Background(), "wiki", "gen", "--docs", "8000", "--out", dump).code)
	paused := make(chan time.Duration, 1)
	go func() {
		// Pause once the run is writing: the index has taken 200 documents
		// (on a loaded machine the run's set-up can take over a second).
		for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline) && indexed(t, es.URL) < 200; {
			time.Sleep(20 * time.Millisecond)
		}
		p, _ := os.FindProcess(es.PID)
		t0 := time.Now()
		_ = p.Signal(syscall.SIGSTOP)
		time.Sleep(5 * time.Second)
		_ = p.Signal(syscall.SIGCONT)
		paused <- time.Since(t0)
	}()
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "search", "-t", "write", "-e", "elasticsearch", "-a", es.URL, "-f", dump,
		"-n", "3000", "-c", "4", "--timeout", "2s", "--allow-errors", "--quiet", "--json", jsonPath)
	require.GreaterOrEqual(t, <-paused, 5*time.Second)
	require.Equal(t, 0, res.code, res.err)
	r := readResult(t, jsonPath)
	var timeouts int64
	for _, e := range r.Errors {
		assert.Contains(t, e.Message, "timeout", "only timeouts: %+v", r.Errors)
		timeouts += e.Count
	}
	assert.GreaterOrEqual(t, timeouts, int64(4), "each of the 4 connections timed out at least once")
	assert.Equal(t, timeouts, r.Totals.LostOps, "every timed-out write is counted lost")
	assert.Equal(t, int64(3000), r.Totals.Ops+r.Totals.LostOps, "every document is accounted for")
	assert.Equal(t, "input-exhausted", r.StopReason, "a 5 s pause does not end the run")
	assert.LessOrEqual(t, r.Totals.Latency.Max, 3e6, "max latency ≤ the 2 s timeout plus scheduling (µs)")
	assert.Zero(t, r.Availability.UnreachableMS, "the node accepted connections: not unreachable")
	assert.GreaterOrEqual(t, r.Availability.UnresponsiveS, 2.0, "the pause is unresponsive time")
	assert.Contains(t, res.out, "the connections were up and the server did not answer")

	// Paused again mid-run, under --timeout 60s: an interruption 2 s into
	// the pause abandons the writes in flight at once instead of waiting
	// out the timeout.
	base := indexed(t, es.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelledAt := make(chan time.Time, 1)
	continued := make(chan struct{})
	defer func() { <-continued }() // the node runs again before it is stopped
	go func() {
		defer close(continued)
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && indexed(t, es.URL) < base+100; {
			time.Sleep(20 * time.Millisecond)
		}
		p, _ := os.FindProcess(es.PID)
		_ = p.Signal(syscall.SIGSTOP)
		time.Sleep(2 * time.Second)
		cancelledAt <- time.Now()
		cancel()
		time.Sleep(time.Second)
		_ = p.Signal(syscall.SIGCONT)
	}()
	res = runCLI(ctx, "search", "-t", "write", "-e", "elasticsearch", "-a", es.URL, "-f", dump, "--keep-index",
		"-n", "8000", "-c", "4", "--timeout", "60s", "--quiet", "--json", jsonPath)
	var cancelled time.Time
	select {
	case cancelled = <-cancelledAt:
	default:
		require.Fail(t, "the run ended before the pause", res.out)
	}
	assert.Less(t, time.Since(cancelled), 5*time.Second, "the interrupted run ended at once, not after its 60 s timeout: %s", res.err)
	r = readResult(t, jsonPath)
	assert.Equal(t, result.StopInterrupted, r.StopReason)
}
