package cli

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

func TestServerTimelineAndReconciliation(t *testing.T) {
	r := testenv.StartRedis(t)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "-port", port(r), "-d", "3", "-p", "4", "--warmup", "1",
		"-command", "SET k-__RAND__ v", "-r", "1000", "-q", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	got := readResult(t, jsonPath)
	require.NotNil(t, got.Server)
	assert.Equal(t, "INFO", got.Server.Source)
	require.Len(t, got.Server.Samples, 3, "one sample per second")
	sampled, withWorkers := 0, 0
	for _, s := range got.Server.Samples {
		if s.OpsPerSec != nil {
			sampled++
			assert.Greater(t, *s.OpsPerSec, 1000.0)
			require.NotNil(t, s.UsedMemory)
			require.NotNil(t, s.CPUCores)
			require.NotNil(t, s.ConnectedClients)
			if *s.ConnectedClients >= 5 {
				withWorkers++
			}
		}
	}
	assert.GreaterOrEqual(t, sampled, 2)
	// A sample taken late on a busy machine may find the workers gone; the
	// others see the 4 workers and the sampler.
	assert.Positive(t, withWorkers, "a sample with the 4 workers and the sampler connected")
	assert.Empty(t, got.Server.Missing)
	rc := got.Server.Reconciliation
	require.NotNil(t, rc)
	assert.Equal(t, []string{"set"}, rc.Commands)
	assert.Equal(t, testenv.CommandCalls(t, r.Addr, "set"), rc.Server, "the server's whole count")
	assert.True(t, rc.Match, "client %d, server %d", rc.Client, rc.Server)
	assert.Equal(t, got.Totals.Ops+got.Totals.WarmupOps+got.Totals.AfterDeadlineOps, rc.Client)
	assert.Contains(t, res.out, "reconcile    SET:")
	assert.Contains(t, res.out, ": match")

	res = runCLI(context.Background(), "redis", "-port", port(r), "-c", "100", "-p", "1", "-command", "PING", "-q",
		"--json", jsonPath, "--no-server-stats")
	require.Equal(t, 0, res.code, res.err)
	assert.Nil(t, readResult(t, jsonPath).Server)
}

func TestMissingServerFiguresAreNull(t *testing.T) {
	// The embedded server gives no CPU figures: they are reported missing, not 0.
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "redis", "--embedded", "-d", "2", "-p", "2", "-command", "TR.SETBIT k __RAND__ 1",
		"-q", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	got := readResult(t, jsonPath)
	require.NotNil(t, got.Server)
	assert.Contains(t, got.Server.Missing, "cpu_seconds")
	for _, s := range got.Server.Samples {
		assert.Nil(t, s.CPUCores)
	}
	assert.True(t, got.Server.Reconciliation.Match)
	assert.Contains(t, res.out, "not given by the server (null, not 0): cpu_seconds")
}

// TestOpenLoopWithPipelinesAndBatches: with -P or -batching a pipeline or
// a MULTI/EXEC batch is one request with one intended start.
func TestOpenLoopWithPipelinesAndBatches(t *testing.T) {
	r := testenv.StartRedis(t)
	for _, mode := range [][]string{{"-P", "8"}, {"-batching", "5"}} {
		jsonPath := filepath.Join(t.TempDir(), "r.json")
		args := append([]string{"redis", "-port", port(r), "-d", "2", "-p", "4", "--rate", "500",
			"-command", "SET k-__RAND__ v", "-r", "1000", "-q", "--json", jsonPath}, mode...)
		res := runCLI(context.Background(), args...)
		require.Equal(t, 0, res.code, res.err)
		got := readResult(t, jsonPath)
		n := int64(8)
		if mode[0] == "-batching" {
			n = 5
		}
		assert.InDelta(t, 1000, got.Totals.Requests, 10, "%v: 500 requests/s for 2 s", mode)
		assert.Equal(t, got.Totals.Requests*n, got.Totals.Ops, "%v", mode)
		require.NotNil(t, got.Totals.CorrectedLatency, "%v", mode)
		assert.True(t, got.Server.Reconciliation.Match, "%v", mode)
	}
}
