package whitepaper

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/testenv"
)

// TestPublishedFiguresAreWellFormed: every published row is a figure the
// tables can stand beside (a QPS above 0, cumulative shares rising to at
// most 100 %, latencies whose p99 is no lower than their mean), and each
// enhanced row is found by its operation and size.
func TestPublishedFiguresAreWellFormed(t *testing.T) {
	for _, r := range enhancedRefs {
		assert.Positive(t, r.qps, "%s %d", r.op, r.valueSize)
		prev := 0.0
		for i, p := range r.cum {
			assert.GreaterOrEqual(t, p, prev, "%s %d step %d", r.op, r.valueSize, i)
			assert.LessOrEqual(t, p, 100.0)
			prev = p
		}
		assert.Equal(t, r.qps, findRef(r.op, r.valueSize).qps)
		f := r.figures()
		require.Len(t, f.Cumulative, len(r.cum))
		assert.InDelta(t, 0.1, f.Cumulative[0].LEms, 1e-9)
	}
	none := findRef("get", 3)
	assert.Zero(t, none.qps, "a size the whitepaper did not publish has no figure")
	for _, r := range pmemRefs {
		assert.Positive(t, r.qps, "%s %s %d", r.phase, r.group, r.size)
		for _, o := range r.ops {
			assert.GreaterOrEqual(t, o.p99, o.avg, "%s %s %d %s", r.phase, r.group, r.size, o.op)
		}
		assert.Len(t, latencies(r.ops), len(r.ops))
	}
	for _, table := range essdRefs {
		for _, inst := range table {
			assert.Positive(t, inst.records, inst.name)
			for _, row := range inst.rows {
				assert.Positive(t, row.qps, "%s %s", inst.name, row.workload)
			}
		}
	}
	for _, r := range clusterRefs {
		assert.Positive(t, r.QPS, r.Name)
	}
}

// TestDryRunGolden holds each suite's dry run (its cases, loads, target
// and the time they take) to a golden file: what a user sees before
// committing an hour to it.
func TestDryRunGolden(t *testing.T) {
	for _, suite := range Suites {
		t.Run(suite, func(t *testing.T) {
			io, out, _ := harness.Captured("test")
			ro := RunOptions{Suite: suite, DryRun: true,
				YCSBOptions: YCSBOptions{Options: Options{Requests: 1000, TestTime: 5 * time.Second, Sizes: []int{64, 1024}, Seed: 1},
					Records: 1000, Operations: 2000, Threads: 4, Groups: []string{"string", "zset"}}}
			require.NoError(t, Main(context.Background(), ro, server, output.Sinks{}, io))
			testenv.Golden(t, "dry-run-"+suite+".golden", out.Bytes())
		})
	}
}

// TestOptionDefaults: the enhanced suite's published request count and
// a 30 s cluster test when none is given; given values stand.
func TestOptionDefaults(t *testing.T) {
	var o Options
	o.defaults()
	assert.Equal(t, int64(300_000), o.Requests)
	assert.Equal(t, 30*time.Second, o.TestTime)
	assert.NotNil(t, o.Log, "a suite without a log writes to none, not to a nil writer")
	o = Options{Requests: 10, TestTime: time.Second}
	o.defaults()
	assert.Equal(t, []any{int64(10), time.Second}, []any{o.Requests, o.TestTime})
}

// TestMainWords: tairbench's own options reach the suite (a dry run sends
// nothing, --seed fixes what it prints), and a request count below one is
// refused.
func TestMainWords(t *testing.T) {
	w := Words{Options: common.Defaults(), Suite: "enhanced", Server: server, Requests: 1000, TestTime: 5 * time.Second, Sizes: []int{64, 1024}}
	w.DryRun, w.Seed = true, 1
	io, out, _ := harness.Captured("test")
	require.NoError(t, MainWords(context.Background(), w, io))
	testenv.Golden(t, "dry-run-enhanced.golden", out.Bytes())
	w.Requests = 0
	assert.ErrorContains(t, MainWords(context.Background(), w, io), "--requests must be at least 1")
}
