package history

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/store"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// nightlyRun is a run of day d: ten whole seconds of GET or SET against
// redis, its throughput drifting with the day.
func nightlyRun(d int, cmd string) *result.Run {
	r := &result.Run{Header: result.Header{Schema: result.SchemaRun, Version: "v1", StartedAt: time.Now().UTC().Add(-time.Duration(d) * time.Hour)},
		Command: cmd, DurationMS: 10_000, Config: result.RunConfig{Connections: 50, Target: &result.Target{Addr: "10.0.0.5:6379",
			Server: &result.ServerIdentity{Name: "redis", Version: "7.0.15"}}}}
	n := int64(100_000 + d%13)
	for i := range 10 {
		p := 200.0 + float64(d%7)
		r.Series = append(r.Series, result.Interval{Second: i, Ops: n, Requests: n, P50US: &p, P99US: &p})
	}
	r.Totals = result.Totals{Ops: 10 * n, OpsPerSec: float64(n), Latency: result.Latency{P50: 100, P99: 200 + float64(d%7)},
		HeadlineLatency: result.FromSend}
	r.Operations = []result.Operation{{Name: "GET", Ops: 10 * n, Histogram: "HISTFAAAA"}}
	return r
}

// bigStore writes a store of 10,000 runs (two workloads, two branches)
// in dir.
func bigStore(b *testing.B, dir string) string {
	path := filepath.Join(dir, "results.db")
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	require.NoError(b, err)
	defer st.Close()
	for i := range 10_000 {
		cmd, branch := "GET k-__RAND__", "main"
		if i%2 == 1 {
			cmd = "SET k-__RAND__ v"
		}
		if i%5 == 0 {
			branch = "dev"
		}
		_, err := st.Put(ctx, nightlyRun(i, cmd), map[string]string{"branch": branch})
		require.NoError(b, err)
	}
	return path
}

// BenchmarkHistoryOver10000Runs lists a store of 10,000 runs: all of them,
// and those of one branch in the last 30 days (#56's bar: under 200 ms).
func BenchmarkHistoryOver10000Runs(b *testing.B) {
	path := bigStore(b, b.TempDir())
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"all", Options{Store: path}},
		{"main-30d", Options{Store: path, Tags: []string{"branch=main"}, Since: "30d"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				require.NoError(b, History(context.Background(), c.o, harness.IO{Out: io.Discard, Err: io.Discard}))
			}
		})
	}
}

// TestTrends: one trend per workload and target kind, oldest first,
// shards left out; the terminal's table is golden; bad input is refused.
func TestTrends(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	st, err := store.Open(ctx, path)
	require.NoError(t, err)
	t0 := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	for day := range 9 {
		for _, cmd := range []string{"GET k-__RAND__", "SET k-__RAND__ v"} {
			r := nightlyRun(0, cmd)
			r.StartedAt = t0.AddDate(0, 0, day)
			if day == 8 && cmd == "GET k-__RAND__" {
				for i := range r.Series {
					r.Series[i].Ops = 80_000 + int64(i%2)
				}
				r.Totals.OpsPerSec = 80_000
			}
			_, err := st.Put(ctx, r, map[string]string{"branch": "main"})
			require.NoError(t, err)
		}
	}
	part := nightlyRun(0, "GET k-__RAND__")
	part.Config.Shard = "0/2"
	_, err = st.Put(ctx, part, nil)
	require.NoError(t, err)
	require.NoError(t, st.Close())

	trends, err := Trends(ctx, Options{Store: path, Tags: []string{"branch=main"}}, TrendOptions{Metric: "qps", Window: 7})
	require.NoError(t, err)
	require.Len(t, trends, 2)
	assert.Equal(t, `"GET k-__RAND__" against redis`, trends[0].Title)
	assert.Len(t, trends[0].Points, 9)
	assert.True(t, trends[0].Points[8].ChangePoint)
	var out bytes.Buffer
	require.NoError(t, WriteTrends(ctx, Options{Store: path, Workload: "GET"}, TrendOptions{Metric: "qps", Window: 7},
		harness.IO{Out: &out, Err: io.Discard}))
	testenv.Golden(t, "trend.txt", out.Bytes())

	for _, c := range []struct {
		o    Options
		t    TrendOptions
		want string
	}{
		{Options{Store: path}, TrendOptions{Metric: "p98", Window: 7}, `--trend "p98": want one or more of qps, p50, p99, each alone or after an operation's name (GET:p99)`},
		{Options{Store: path}, TrendOptions{Metric: "qps,p99", Window: 7}, `--trend "qps,p99": want one figure (qps, p50 or p99)`},
		{Options{Store: path}, TrendOptions{Metric: "qps"}, "--window 0: want 1 or more earlier runs"},
		{Options{Store: path, Kind: "bitmap"}, TrendOptions{Metric: "qps", Window: 7}, "--kind bitmap: a trend follows benchmark runs (kind run)"},
		{Options{Store: path, Tags: []string{"branch=nope"}}, TrendOptions{Metric: "qps", Window: 7}, "no stored run matches in " + path},
	} {
		_, err := Trends(ctx, c.o, c.t)
		assert.EqualError(t, err, c.want)
	}
}
