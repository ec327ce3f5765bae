package cli

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// TestMixedWorkloadPerOperation: two templates drawn 1:3; the server's
// command statistics equal each operation's count exactly, the draw follows
// the ratio, and the per-operation figures add up to the totals, every second.
func TestMixedWorkloadPerOperation(t *testing.T) {
	r := testenv.StartRedis(t)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	const n = 20000
	res := runCLI(context.Background(), "redis", "-port", port(r), "-c", "20000", "-p", "4", "-r", "2000",
		"-command", "SET k__RAND__ __DATA__", "-command", "GET k__RAND__", "--ratio", "1:3", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	run := readResult(t, jsonPath)
	require.Len(t, run.Operations, 2)
	set, get := run.Operations[0], run.Operations[1]
	assert.Equal(t, "SET", set.Name)
	assert.Equal(t, "GET", get.Name)
	assert.Equal(t, 1, set.Weight)
	assert.Equal(t, 3, get.Weight)
	assert.Equal(t, "GET k__RAND__", get.Command)
	assert.Equal(t, int64(n), run.Totals.Ops)
	assert.Equal(t, run.Totals.Ops, set.Ops+get.Ops)
	assert.Equal(t, testenv.CommandCalls(t, r.Addr, "set"), set.Ops, "exact, per operation")
	assert.Equal(t, testenv.CommandCalls(t, r.Addr, "get"), get.Ops)
	assert.InDelta(t, 0.25, float64(set.Ops)/n, 0.015, "the ratio")
	// GETs of keys not written yet find nothing; SETs never miss.
	assert.Zero(t, set.Misses)
	assert.Positive(t, get.Misses)
	assert.Less(t, get.Misses, get.Ops)
	assert.Equal(t, run.Totals.Misses, get.Misses)
	assert.NotEmpty(t, set.Histogram)
	assert.Positive(t, get.Latency.P99)
	for _, iv := range run.Series {
		require.Len(t, iv.Operations, 2, "second %d", iv.Second)
		assert.Equal(t, iv.Ops, iv.Operations[0].Ops+iv.Operations[1].Ops, "second %d", iv.Second)
	}
	require.NotNil(t, run.Server)
	require.NotNil(t, run.Server.Reconciliation)
	assert.True(t, run.Server.Reconciliation.Match, "%+v", run.Server.Reconciliation)
	assert.Contains(t, res.out, "operations   by type")
	assert.Regexp(t, `(?m)^  GET\s+3\s+\d+`, res.out)
}

func TestMixedWorkloadBadRatio(t *testing.T) {
	for _, args := range [][]string{
		{"-command", "GET a", "-command", "GET b", "--ratio", "1:2:3"},
		{"-command", "GET a", "-command", "GET b", "--ratio", "1:x"},
		{"-command", "GET a", "-command", "GET b", "--ratio", "0:0"},
	} {
		res := runCLI(context.Background(), append([]string{"redis", "--embedded", "-c", "10"}, args...)...)
		assert.Equal(t, 1, res.code, "%v: %s", args, res.err)
		assert.Contains(t, res.err, "ratio", "%v", args)
	}
}
