package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// readDoc reads any result document.
func readDoc(t *testing.T, path string) result.Document {
	t.Helper()
	doc, err := result.ReadFile(path)
	require.NoError(t, err)
	return doc
}

func readSuite(t *testing.T, path string) *result.WhitepaperSuite {
	s, ok := readDoc(t, path).(*result.WhitepaperSuite)
	require.True(t, ok)
	return s
}

func TestSuiteEnhancedAgainstEmbedded(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "e.json")
	res := runCLI(context.Background(), "suite", "enhanced", "--requests", "20000", "--sizes", "64", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "QPS published")
	assert.Contains(t, res.out, "scaled: -n 20000 per case instead of the published 3000000")
	assert.Contains(t, res.out, "tairbench's embedded server, not Tair (in this process)")
	assert.Regexp(t, `(?m)^0\.1\s+\d+\.\d\d \(0\.00\)`, res.out, "0.1 ms steps, published beside")
	s := readSuite(t, jsonPath)
	require.Len(t, s.Cases, 2)
	set, get := s.Cases[0], s.Cases[1]
	assert.Equal(t, "SET 64 B", set.Name)
	assert.Equal(t, "GET 64 B", get.Name)
	assert.InDelta(t, 218086.66, set.Reference.QPS, 0.01)
	assert.InDelta(t, 444115.47, get.Reference.QPS, 0.01)
	assert.Len(t, get.Reference.Cumulative, 7)
	assert.Len(t, get.Measured.Cumulative, 20)
	assert.InDelta(t, set.Measured.QPS/set.Reference.QPS, set.Ratio, 1e-9)
	assert.Equal(t, int64(20000), get.Run.Totals.Ops)
	assert.Zero(t, get.Run.Totals.Errors)
	assert.Less(t, get.Run.Totals.Misses, int64(20000), "GETs after the SETs find keys")
	assert.Equal(t, 256, get.Run.Config.Connections)
}

func TestSuiteClusterAgainstEmbedded(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "c.json")
	res := runCLI(context.Background(), "suite", "cluster", "--test-time", "2", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "16 GB cluster, 8 nodes")
	s := readSuite(t, jsonPath)
	require.Len(t, s.Cases, 1)
	r := s.Cases[0].Run
	assert.Zero(t, r.Totals.Errors, "%v", r.Errors)
	assert.True(t, r.Config.Target.Cluster)
	require.Len(t, r.Operations, 2)
	assert.InDelta(t, r.Operations[0].Ops, r.Operations[1].Ops, 200, "SET:GET 1:1, rotating on each of 200 connections")
	assert.Len(t, s.References, 10)
}

func TestSuitePMemAgainstRedisServer(t *testing.T) {
	testenv.Integration(t)
	jsonPath := filepath.Join(t.TempDir(), "p.json")
	res := runCLI(context.Background(), "suite", "pmem", "--records", "300", "--threads", "4", "--groups", "string,zset", "--sizes", "128,4096", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.err, "redis-server started on")
	assert.Contains(t, res.out, "Workload A, zset")
	s := readSuite(t, jsonPath)
	require.Len(t, s.Cases, 2*2*3, "load, C and A for 2 groups × 2 sizes")
	for _, c := range s.Cases {
		assert.Zero(t, c.Run.Totals.Errors, "%s %s: %v", c.Section, c.Name, c.Run.Errors)
		assert.Zero(t, c.Run.Totals.Misses, "%s %s: every record loaded", c.Section, c.Name)
		require.NotNil(t, c.Run.Server)
		require.NotNil(t, c.Run.Server.Reconciliation, "%s %s", c.Section, c.Name)
		assert.True(t, c.Run.Server.Reconciliation.Match, "%s %s: %+v", c.Section, c.Name, c.Run.Server.Reconciliation)
	}
	first := s.Cases[0]
	assert.Equal(t, "Load, string", first.Section)
	assert.InDelta(t, 134478, first.Reference.QPS, 0.5)
	require.Len(t, first.Reference.Latency, 1)
	assert.Equal(t, result.OpLatency{Op: "INSERT", AvgUS: 473, P99US: 687}, first.Reference.Latency[0])
	a := s.Cases[2]
	assert.Equal(t, "Workload A, string", a.Section)
	require.Len(t, a.Measured.Latency, 2)
	assert.Equal(t, "READ", a.Measured.Latency[0].Op)
	assert.Equal(t, "UPDATE", a.Measured.Latency[1].Op)
}

func TestSuiteESSDAgainstRedisServer(t *testing.T) {
	testenv.Integration(t)
	jsonPath := filepath.Join(t.TempDir(), "e.json")
	res := runCLI(context.Background(), "suite", "essd", "--records", "2000", "--threads", "4", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "Zipfian-Read (memory > data)")
	assert.Contains(t, res.out, `"data larger than memory" table needs an ESSD instance`)
	s := readSuite(t, jsonPath)
	require.Len(t, s.Cases, 4)
	assert.Equal(t, []string{"Load", "Uniform-Read", "Zipfian-Read", "Uniform-50%Read-50%Update"},
		[]string{s.Cases[0].Name, s.Cases[1].Name, s.Cases[2].Name, s.Cases[3].Name})
	assert.Len(t, s.References, 4*5)
	for _, c := range s.Cases {
		assert.Zero(t, c.Run.Totals.Errors)
		assert.Positive(t, c.Ratio)
	}
}

// TestSuiteCapacity runs the ESSD suite's run phases as capacity searches on
// the embedded server: the load runs as published (no search), each run
// phase's measured QPS is its search's answer, and the text lists them. The
// answer itself depends on the machine's load (a busy CI machine can miss
// 99% of the first rate in a half-second window, and the search then
// halves), so the test checks that text, JSON and search agree rather than
// one figure.
func TestSuiteCapacity(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "e.json")
	res := runCLI(context.Background(), "suite", "essd", "--embedded", "--records", "2000", "--threads", "4",
		"--slo", "p99<500ms", "--slo-window", "0.5", "--slo-warmup", "0.1", "--slo-start", "500", "--slo-max-steps", "4", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "capacity at p99<500ms")
	assert.Contains(t, res.out, "capacity searches (p99<500ms):")
	s := readSuite(t, jsonPath)
	assert.Equal(t, "p99<500ms", s.SLO)
	require.Len(t, s.Cases, 4)
	assert.Nil(t, s.Cases[0].Capacity, "the load is not searched")
	assert.Equal(t, int64(2000), s.Cases[0].Run.Totals.Ops)
	for _, c := range s.Cases[1:] {
		require.NotNil(t, c.Capacity, c.Name)
		assert.Equal(t, c.Capacity.HighestHeld, c.Measured.QPS, c.Name)
		assert.Equal(t, 500.0, c.Capacity.Steps[0].Rate, "%s: the search starts at --slo-start", c.Name)
		assert.LessOrEqual(t, len(c.Capacity.Steps), 4+1, "%s: steps within --slo-max-steps (plus a confirmation)", c.Name)
		assert.InDelta(t, c.Measured.QPS/c.Reference.QPS, c.Ratio, 1e-9)
		if c.Capacity.Unstable {
			// Half-second windows on a loaded machine: a rate held more
			// than 10 % above one that broke, and the search says so
			// rather than answer.
			assertNoStableAnswer(t, c.Capacity)
			assert.Contains(t, res.out, fmt.Sprintf("ESSD, %s: no stable answer", c.Name))
			continue
		}
		require.Positive(t, c.Capacity.HighestHeld, "%s: %s", c.Name, res.out)
		assert.Contains(t, res.out, fmt.Sprintf("ESSD, %s: held %.0f/s", c.Name, c.Capacity.HighestHeld))
	}
}
