package replay

import (
	"cmp"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/fit"
	"github.com/tairbench/tairbench/internal/frontend/capture"
	"github.com/tairbench/tairbench/internal/frontend/common"
	fitfront "github.com/tairbench/tairbench/internal/frontend/fit"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	redisfront "github.com/tairbench/tairbench/internal/frontend/redis"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/keyshape"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/internal/workload"
)

// knownWorkload is a workload of known shape: 70 % GETs of 1,000 carts
// drawn by Zipf 0.99, 20 % SETs of 500 sessions drawn uniformly with
// values of 100 to 300 bytes and TTLs of 60 to 600 s, 10 % SETs of log
// entries in sequence; 5,000 commands a second on 8 connections.
const knownWorkload = "testdata/known.yaml" // make bench-replay runs it too

// tgt is a target on addr's port.
func tgt(t *testing.T, port int) endpoint.Target {
	tg, err := target.Options{Host: "127.0.0.1", Port: port, Protocol: 2, Timeout: 5 * time.Second}.Build()
	require.NoError(t, err)
	return tg
}

// TestRoundTrip: a known workload sent to one redis-server is captured
// through MONITOR, fitted (the patterns, their shares, the Zipf exponent,
// the value sizes and TTLs come back), replayed to another (its command
// counts are the capture's), and the fitted workload run and captured
// again fits as the first did.
func TestRoundTrip(t *testing.T) {
	a, b := testenv.StartRedis(t), testenv.StartRedis(t)
	dir := t.TempDir()
	known, captured, fitted := filepath.Join(dir, "known.yaml"), filepath.Join(dir, "a.tbt"), filepath.Join(dir, "fitted.yaml")
	data, err := os.ReadFile(knownWorkload)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(known, data, 0o644))

	captureRun(t, a.Port, known, captured)
	census, err := scan(captured)
	require.NoError(t, err)
	require.NoError(t, fitfront.Main(fitfront.Options{Trace: captured, Out: fitted}, quiet()))
	pats := patterns(t, fitted)
	cart, session, log := pats["user:{id}:cart"], pats["session:{id}"], pats["log:{id}"]
	total := float64(cart.Commands + session.Commands + log.Commands)
	assert.InDelta(t, 0.70, float64(cart.Commands)/total, 0.01, "the mix within a point")
	assert.InDelta(t, 0.20, float64(session.Commands)/total, 0.01)
	assert.InDelta(t, 0.10, float64(log.Commands)/total, 0.01)
	assert.Equal(t, "zipf", cart.Popularity.Dist)
	assert.InDelta(t, 0.99, cart.Popularity.Zipf, 0.05)
	assert.Equal(t, "uniform", session.Popularity.Dist)
	assert.Equal(t, "sequential", log.Popularity.Dist)
	require.NotNil(t, session.ValueBytes)
	assert.InEpsilon(t, 200, session.ValueBytes.P50, 0.1, "value sizes within 10 %%")
	assert.InEpsilon(t, 280, session.ValueBytes.P90, 0.1)
	require.NotNil(t, session.TTLSeconds)
	assert.InEpsilon(t, 330, session.TTLSeconds.P50, 0.1)

	hio, _, errb := harness.Captured("test")
	o := options(t, b.Addr, captured)
	o.Out.Quiet = true
	_, err = Run(context.Background(), o, hio)
	require.NoError(t, err, errb.String())
	for _, c := range census.Names {
		if c.Name == "GET" || c.Name == "SET" {
			assert.InEpsilon(t, c.N, testenv.CommandCalls(t, b.Addr, strings.ToLower(c.Name)), 0.02,
				"%s: the server's count of the replay, against the capture's", c.Name)
		}
	}

	// The fitted workload, run and captured, fits as the first did.
	again := filepath.Join(dir, "b.tbt")
	captureRun(t, b.Port, fitted, again)
	refit := filepath.Join(dir, "refit.yaml")
	require.NoError(t, fitfront.Main(fitfront.Options{Trace: again, Out: refit}, quiet()))
	pats2 := patterns(t, refit)
	assert.InDelta(t, cart.Popularity.Zipf, pats2["user:{id}:cart"].Popularity.Zipf, 0.05)
	first, second := popularity(t, captured), popularity(t, again)
	for _, p := range []string{"user:{id}:cart", "session:{id}"} {
		t.Logf("%s: KS %.4f", p, ks(first[p], second[p]))
		assert.Less(t, ks(first[p], second[p]), 0.05, "%s: the keys' use, by rank, in the fitted workload's run against the capture's", p)
	}
	assert.Equal(t, "uniform", pats2["session:{id}"].Popularity.Dist)
	assert.Equal(t, "sequential", pats2["log:{id}"].Popularity.Dist)
}

// captureRun runs the workload file against the server on port for 5 s
// while capturing it into path.
func captureRun(t *testing.T, port int, wl, path string) {
	t.Helper()
	tg := tgt(t, port)
	done := make(chan error, 1)
	go func() {
		done <- capture.Main(context.Background(), capture.Options{Out: path, Live: &capture.Live{Target: tg, Duration: 7 * time.Second}}, quiet())
	}()
	time.Sleep(1500 * time.Millisecond) // the capture measures the server for a second first
	ro := redisfront.Options{Options: common.Options{NoServerStats: true}, Target: tg, Workload: wl, RateTimes: 1,
		Duration: 5 * time.Second, DurationGiven: true, R1: 1, R2: 1, Arrivals: redisfront.ArrivalsPoisson,
		Out: output.Outputs{Quiet: true}}
	hio, _, errb := harness.Captured("test")
	_, err := redisfront.Run(context.Background(), ro, hio)
	require.NoError(t, err, errb.String())
	require.NoError(t, <-done)
}

// popularity is, per pattern, the keys' counts in the trace, most first.
func popularity(t *testing.T, path string) map[string][]int64 {
	_, recs := testenv.ReadTrace(t, path)
	counts := map[string]map[string]int64{}
	for _, r := range recs {
		if len(r.Args) < 2 || strings.ToUpper(string(r.Args[0])) == "INFO" {
			continue
		}
		p, _ := keyshape.Pattern(string(r.Args[1]))
		if counts[p] == nil {
			counts[p] = map[string]int64{}
		}
		counts[p][string(r.Args[1])]++
	}
	out := map[string][]int64{}
	for p, m := range counts {
		for _, n := range m {
			out[p] = append(out[p], n)
		}
		slices.SortFunc(out[p], func(a, b int64) int { return cmp.Compare(b, a) })
	}
	return out
}

// ks is the Kolmogorov-Smirnov distance between two rank-share
// distributions: the largest gap between their cumulative shares by rank.
func ks(a, b []int64) float64 {
	cum := func(c []int64) []float64 {
		var total float64
		for _, n := range c {
			total += float64(n)
		}
		out, run := make([]float64, len(c)), 0.0
		for i, n := range c {
			run += float64(n) / total
			out[i] = run
		}
		return out
	}
	ca, cb := cum(a), cum(b)
	d := 0.0
	for i := range max(len(ca), len(cb)) {
		x, y := 1.0, 1.0
		if i < len(ca) {
			x = ca[i]
		}
		if i < len(cb) {
			y = cb[i]
		}
		d = math.Max(d, math.Abs(x-y))
	}
	return d
}

// quiet is an IO that keeps what it is told.
func quiet() harness.IO {
	hio, _, _ := harness.Captured("test")
	return hio
}

// patterns reads a workload file's fitted patterns, by pattern.
func patterns(t *testing.T, path string) map[string]fit.PatternModel {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	w, err := workload.Read(f)
	require.NoError(t, err)
	require.NotNil(t, w.Fitted)
	var m fit.Model
	require.NoError(t, w.Fitted.Node.Decode(&m))
	out := map[string]fit.PatternModel{}
	for _, p := range m.Patterns {
		out[p.Pattern] = p
	}
	return out
}
