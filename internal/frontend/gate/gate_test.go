package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

var t0 = time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)

// stored is a closed-loop GET run against redis 7.0.15 whose six whole
// seconds did about n commands each.
func stored(day int, n int64, workload string) *result.Run {
	r := &result.Run{Header: result.Header{Schema: result.SchemaRun, Version: "v1", StartedAt: t0.AddDate(0, 0, day)}, Command: workload,
		DurationMS: 6100, Config: result.RunConfig{Connections: 4, Target: &result.Target{Addr: "10.0.0.5:6379",
			Server: &result.ServerIdentity{Name: "redis", Version: "7.0.15"}}}}
	var total int64
	for i, d := range []int64{0, 1, -1, 2, -2, 0} {
		p := 200.0
		r.Series = append(r.Series, result.Interval{Second: i, Ops: n + d, Requests: n + d, P50US: &p, P99US: &p})
		total += n + d
	}
	r.Totals = result.Totals{Ops: total, OpsPerSec: float64(total) / 6, Latency: result.Latency{P50: 200, P99: 200}, HeadlineLatency: result.FromSend}
	return r
}

// nightly is a store of seven nightly runs on main, then one on a branch
// at perSecond commands a second.
func nightly(t *testing.T, perSecond int64) string {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	st, err := store.Open(ctx, path)
	require.NoError(t, err)
	defer st.Close()
	for day := 0; day < 7; day++ {
		_, err := st.Put(ctx, stored(day, 1000+int64(day%3), "GET k-__RAND__"), map[string]string{"branch": "main"})
		require.NoError(t, err)
	}
	_, err = st.Put(ctx, stored(3, 5000, "SET k-__RAND__ v"), map[string]string{"branch": "main"})
	require.NoError(t, err)
	_, err = st.Put(ctx, &result.BitmapComparison{Header: result.Header{Schema: result.SchemaBitmap, StartedAt: t0}}, nil)
	require.NoError(t, err)
	_, err = st.Put(ctx, stored(7, perSecond, "GET k-__RAND__"), map[string]string{"branch": "pr-1"})
	require.NoError(t, err)
	part := stored(8, perSecond, "GET k-__RAND__")
	part.Config.Shard = "1/2"
	_, err = st.Put(ctx, part, nil) // a shard, the newest: not the latest whole run
	require.NoError(t, err)
	return path
}

func opts(path string) Options {
	return Options{Store: path, Run: "latest", Baseline: "last 7 where tag.branch=main", Metrics: "qps,p99", Regression: 5, Noise: 3, Unstable: 10}
}

func gate(t *testing.T, o Options) (string, int) {
	var out, errOut bytes.Buffer
	err := Gate(context.Background(), o, harness.IO{Out: &out, Err: &errOut})
	var ee *harness.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.Code
	}
	return err.Error(), 1
}

// TestGateOutputs: a run 20 % slower than its seven nightly runs fails
// with 99 and says so in the terminal, Markdown and JUnit alike; one
// like them passes with 0.
func TestGateOutputs(t *testing.T) {
	path := nightly(t, 800)
	dir := t.TempDir()
	o := opts(path)
	o.Markdown, o.JUnit = filepath.Join(dir, "gate.md"), filepath.Join(dir, "gate.xml")
	out, code := gate(t, o)
	assert.Equal(t, 99, code)
	testenv.Golden(t, "regression.txt", []byte(out))
	testenv.GoldenFile(t, "regression.md", o.Markdown)
	testenv.GoldenFile(t, "regression.xml", o.JUnit)

	out, code = gate(t, opts(nightly(t, 1001)))
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "within noise: +0.0 % from the baseline's median")
	assert.Contains(t, out, "gate: passed (exit 0)")
}

// TestGateRefusals: each bad input is one line and exit 1, before
// anything is judged.
func TestGateRefusals(t *testing.T) {
	path := nightly(t, 800)
	cases := []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.Baseline = "last 7 where tag.branch=nope" }, `baseline "last 7 where tag.branch=nope" matches no run in ` + path},
		{func(o *Options) { o.Run = "1" }, `baseline "last 7 where tag.branch=main" matches 6 runs of run 1's workload against redis, all started after it: a baseline is made of earlier runs`},
		{func(o *Options) { o.Baseline = "where tag.branch=pr-1" }, `baseline "where tag.branch=pr-1" matches only run 10 itself: nothing to judge it against`},
		{func(o *Options) { o.Run = "8" }, `baseline "last 7 where tag.branch=main" matches 8 runs, none an earlier run of run 8's workload ("SET k-__RAND__ v") against the same kind of target (redis): 1: run "GET k-__RAND__" against redis; 2: run "GET k-__RAND__" against redis; 3: run "GET k-__RAND__" against redis; …`},
		{func(o *Options) { o.Run = "9" }, `run 9 is a bitmap result: a gate judges benchmark runs (tairbench.run)`},
		{func(o *Options) { o.Run = "42" }, "store " + path + ": no run 42"},
		{func(o *Options) { o.Run = "11" }, "run 11 is shard 1/2 of a run: gate the run its shards merged into (tairbench history lists it)"},
		{func(o *Options) { o.Run = "newest" }, `--run "newest": want latest or a run id from 'tairbench history'`},
		{func(o *Options) { o.Metrics = "p98" }, `--metric "p98": want one or more of qps, p50, p99, each alone or after an operation's name (GET:p99)`},
		{func(o *Options) { o.Noise = 8 }, "gate: the noise line (8 %) is above the regression line (5 %)"},
		{func(o *Options) { o.Store = filepath.Join(t.TempDir(), "none.db") }, "no such file or directory"},
		{func(o *Options) { o.Markdown = filepath.Join(t.TempDir(), "no", "gate.md") }, "the folder"},
	}
	for _, c := range cases {
		o := opts(path)
		c.change(&o)
		out, code := gate(t, o)
		assert.Equal(t, 1, code, out)
		assert.Contains(t, out, c.want)
	}
}

func TestParseBaseline(t *testing.T) {
	cases := []struct {
		in    string
		last  int
		conds int
	}{
		{"last 7", 7, 0},
		{"LAST 3 where tag.branch=main", 3, 1},
		{"last 7 where tag.branch=main and target.version=7.0.15", 7, 2},
		{"where target.kind=redis", 0, 1},
	}
	for _, c := range cases {
		last, conds, err := ParseBaseline(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.last, last, c.in)
		assert.Len(t, conds, c.conds, c.in)
	}
	for _, bad := range []string{"", "last", "last 0", "last seven", "first 7", "last 7 where", "last 7 tag.branch=main", "where branch=main"} {
		_, _, err := ParseBaseline(bad)
		assert.Error(t, err, fmt.Sprintf("%q", bad))
	}
}
