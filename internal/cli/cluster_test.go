package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tairbench/tairbench/pkg/result"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

func TestClusterRouting(t *testing.T) {
	cl := testenv.StartCluster(t, 3)
	seed := cl.Nodes[0]
	res := runCLI(context.Background(), "redis", "--cluster", "-port", port(seed), "-c", "3000", "-p", "4", "-r", "1000",
		"-command", "SET k-__RAND__ v", "-q")
	require.Equal(t, 0, res.code, res.out+res.err)
	total := 0
	for _, n := range cl.Nodes {
		size, err := strconv.Atoi(testenv.Do(t, n.Addr, "DBSIZE"))
		require.NoError(t, err)
		assert.Greater(t, size, 200, "every node owns part of the keys")
		total += size
	}
	assert.InDelta(t, 950, total, 30)

	// MULTI/EXEC batches whose keys share a hash tag stay on one node.
	res = runCLI(context.Background(), "redis", "--cluster", "-port", port(seed), "-c", "500", "-p", "2", "-batching", "10",
		"-command", "INCR {tag}c-__RAND__", "-r", "10", "-q")
	require.Equal(t, 0, res.code, res.out+res.err)
	var execs int64
	for _, n := range cl.Nodes {
		execs += testenv.CommandCalls(t, n.Addr, "exec")
	}
	assert.Equal(t, int64(50), execs)

	// A GET of a missing key is a miss, not a lost request.
	jsonPath := filepath.Join(t.TempDir(), "g.json")
	res = runCLI(context.Background(), "redis", "--cluster", "-port", port(seed), "-c", "400", "-p", "2",
		"-command", "GET missing-__RAND__", "-q", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.out+res.err)
	r := readResult(t, jsonPath)
	assert.Zero(t, r.Totals.Errors)
	assert.Equal(t, int64(400), r.Totals.Misses)
	require.NotNil(t, r.Cluster, "a cluster run says what its routing followed")
	assert.Equal(t, 3, r.Cluster.Nodes)
	assert.Equal(t, int64(1), r.Cluster.MapLoads)
	assert.Zero(t, r.Cluster.Moved+r.Cluster.Asked+r.Cluster.TryAgain)
	assert.Positive(t, r.Totals.BytesIn, "bytes are counted on the cluster path too")

	// YCSB on the slot-aware path (redis.cluster=true): every record on
	// its node, read back with no NOT_FOUND, bytes counted and the routing
	// reported as for every other cluster run.
	for _, phase := range []string{"load", "run"} {
		jsonPath := filepath.Join(t.TempDir(), phase+".json")
		res = runCLI(context.Background(), "ycsb", phase, "redis", "-P", "workloads/workloada", "-p", "redis.port="+port(seed),
			"-p", "redis.cluster=true", "-p", "recordcount=500", "-p", "operationcount=1000", "-p", "redis.command_group=hash",
			"-p", "fieldlengthdistribution=zipfian", "-threads", "4", "--json", jsonPath)
		require.Equal(t, 0, res.code, res.out+res.err)
		assert.NotContains(t, res.out, "NOT_FOUND")
		assert.NotContains(t, res.out, "Return=ERROR")
		var doc result.Compat
		raw, err := os.ReadFile(jsonPath)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &doc))
		require.Len(t, doc.Tests, 1)
		r := doc.Tests[0].Run
		assert.Positive(t, r.Totals.BytesIn, phase)
		assert.Positive(t, r.Totals.BytesOut, phase)
		require.NotNil(t, r.Cluster, phase)
		assert.Equal(t, 3, r.Cluster.Nodes, phase)
	}
	keys := 0
	for _, n := range cl.Nodes {
		k, err := strconv.Atoi(testenv.Do(t, n.Addr, "EVAL", "return #redis.call('KEYS', 'user*')", "0"))
		require.NoError(t, err)
		assert.Positive(t, k, "every node holds records")
		keys += k
	}
	assert.Equal(t, 500, keys)
}
