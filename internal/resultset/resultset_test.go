package resultset

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

func TestMannWhitney(t *testing.T) {
	// Completely separated samples of 5: U = 0, z = (12.5 − 0.5) / 4.787.
	assert.InDelta(t, 0.0122, MannWhitney([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}), 0.0005)
	assert.InDelta(t, 1, MannWhitney([]float64{1, 2, 3}, []float64{1, 2, 3}), 0.2, "the same sample")
	assert.Equal(t, 1.0, MannWhitney([]float64{4, 4, 4}, []float64{4, 4, 4}), "all tied")
}

// fakeRun is a run of n seconds at qps commands per second, latency lat µs.
func fakeRun(t *testing.T, start time.Time, n int, qps []float64, lat int64, cmd string) *result.Run {
	h := stats.NewHistogram()
	r := &result.Run{Header: result.Header{Schema: result.SchemaRun, StartedAt: start}, Command: cmd,
		Config: result.RunConfig{Mode: "one command per round trip", Connections: 2}, DurationMS: float64(n) * 1000,
		Seeds: result.Seeds{Base: uint64(start.UnixNano()), Workers: []uint64{1, 2}}}
	for i := range n {
		q := qps[i%len(qps)]
		for range int(q) {
			require.NoError(t, h.RecordValue(lat))
		}
		mean, p := float64(lat), float64(lat)
		r.Series = append(r.Series, result.Interval{Second: i, Ops: int64(q), Requests: int64(q), OpsPerSec: q, MeanUS: &mean, P50US: &p, P99US: &p, MaxUS: &p})
		r.Totals.Ops += int64(q)
		r.Totals.Requests += int64(q)
	}
	r.Totals.OpsPerRequest = 1
	r.Totals.OpsPerSec = float64(r.Totals.Ops) / float64(n)
	r.Totals.Latency = result.Latency{Min: float64(lat), Mean: float64(lat), P50: float64(lat), P99: float64(lat), Max: float64(lat)}
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	require.NoError(t, err)
	r.Histogram = string(enc)
	return r
}

func TestMergeAlignsSecondsAndAddsExactly(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	a := fakeRun(t, t0, 4, []float64{100}, 200, "SET k v")
	b := fakeRun(t, t0.Add(time.Second), 4, []float64{50}, 400, "SET k v") // started one second later
	m, err := Merge([]*result.Run{a, b})
	require.NoError(t, err)
	assert.Equal(t, int64(600), m.Totals.Ops)
	assert.Equal(t, 5000.0, m.DurationMS, "from the first start to the last end")
	require.Len(t, m.Series, 5)
	assert.Equal(t, []int64{100, 150, 150, 150, 50}, []int64{m.Series[0].Ops, m.Series[1].Ops, m.Series[2].Ops, m.Series[3].Ops, m.Series[4].Ops})
	assert.InDelta(t, (100*200.0+50*400)/150, *m.Series[1].MeanUS, 1e-9, "a second's mean weighs each client's requests")
	for _, iv := range m.Series {
		assert.Zero(t, iv.SpanS, "whole seconds")
		assert.InDelta(t, float64(iv.Ops), iv.OpsPerSec, 1e-9)
	}
	b.DurationMS = 3500 // b ended half-way into its fourth second: the merged fifth is half a second
	m, err = Merge([]*result.Run{a, b})
	require.NoError(t, err)
	require.Len(t, m.Series, 5)
	assert.Equal(t, 0.5, m.Series[4].SpanS)
	assert.InDelta(t, 100, m.Series[4].OpsPerSec, 1e-9, "50 commands in half a second")
	assert.Equal(t, 400.0, m.Totals.Latency.Max)
	assert.InDelta(t, (400*200.0+200*400)/600, m.Totals.Latency.Mean, 1e-9)
	assert.Equal(t, 4, m.Config.Connections)
	assert.Len(t, m.Sources, 2)
	assert.Len(t, m.Seeds.Workers, 4)

	c := fakeRun(t, t0, 4, []float64{100}, 200, "GET k")
	_, err = Merge([]*result.Run{a, c})
	assert.ErrorContains(t, err, "only results of one workload merge")
	_, err = Merge([]*result.Run{a})
	assert.Error(t, err)
}

func TestCompareVerdicts(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	a := fakeRun(t, t0, 8, []float64{1000, 1100, 900, 1050, 950}, 100, "SET k v")
	same := fakeRun(t, t0, 8, []float64{1020, 980, 1080, 920, 1000}, 100, "SET k v")
	faster := fakeRun(t, t0, 8, []float64{5000, 5100, 4900}, 100, "SET k v")
	rows := Compare(a, same)
	assert.Equal(t, "within noise", rows[0].Verdict, "%+v", rows[0])
	rows = Compare(a, faster)
	assert.Equal(t, "significant", rows[0].Verdict, "%+v", rows[0])
	assert.InDelta(t, 4.0, rows[0].Change, 0.1)
	// A closed loop that drifted 60% in 6 seconds against an open loop at
	// 1/500 of it: the drift leaves the test few independent seconds, but
	// no drift explains the gap.
	drifting := fakeRun(t, t0, 6, []float64{80_000, 90_000, 100_000, 110_000, 120_000, 128_000}, 100, "SET k v")
	slow := fakeRun(t, t0, 6, []float64{200, 201, 199, 200, 202, 198}, 100, "SET k v")
	rows = Compare(drifting, slow)
	assert.Greater(t, rows[0].P, 0.01, "the drift alone leaves the test unsure: %+v", rows[0])
	assert.Equal(t, "significant (the series are apart by more than either one's range)", rows[0].Verdict, "%+v", rows[0])
	near := fakeRun(t, t0, 6, []float64{130_000, 135_000, 140_000, 150_000, 160_000, 170_000}, 100, "SET k v")
	assert.False(t, Apart(rows2series(drifting), rows2series(near)), "a gap narrower than the drift is not enough")
	short := fakeRun(t, t0, 3, []float64{1000}, 100, "SET k v")
	assert.Contains(t, Compare(short, faster)[0].Verdict, "too few seconds")
	assert.True(t, math.IsNaN(Compare(a, faster)[3].P), "p99.9 has no per-second series")
}

func TestMergeRefusesRunsThatDidNotOverlap(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	a := fakeRun(t, t0, 4, []float64{100}, 200, "SET k v")
	later := fakeRun(t, t0.Add(10*time.Second), 4, []float64{100}, 200, "SET k v")
	_, err := Merge([]*result.Run{a, later})
	require.ErrorContains(t, err, "did not overlap in time")
	assert.ErrorContains(t, err, "--allow-disjoint")
	m, err := MergeWith([]*result.Run{a, later}, MergeOptions{AllowDisjoint: true})
	require.NoError(t, err)
	assert.Equal(t, int64(800), m.Totals.Ops)
	assert.Contains(t, strings.Join(m.Warnings, "\n"), "no load any server saw at once")

	_, err = Merge([]*result.Run{a, a})
	assert.ErrorContains(t, err, "result 2 is result 1 again")

	b := fakeRun(t, t0.Add(time.Second), 4, []float64{100}, 200, "SET k v")
	a.Config.Target = &result.Target{Addr: "10.0.0.1:6379"}
	b.Config.Target = &result.Target{Addr: "10.0.0.2:6379"}
	m, err = Merge([]*result.Run{a, b})
	require.NoError(t, err)
	assert.Contains(t, strings.Join(m.Warnings, "\n"), "different targets (10.0.0.1:6379, 10.0.0.2:6379)")
}

func TestCompareMarksSetupDifferences(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	a := fakeRun(t, t0, 8, []float64{1000}, 100, "GET k")
	b := fakeRun(t, t0, 8, []float64{4600}, 100, "GET k")
	a.Config.Template = &result.TemplateConfig{Pipeline: 1}
	b.Config.Template = &result.TemplateConfig{Pipeline: 8}
	b.Config.Mode = "pipeline of 8"
	setup := Setup(a, b)
	assert.Equal(t, []string{"mode", "pipeline"}, SetupDiffers(setup))
	var out strings.Builder
	require.NoError(t, WriteCompare(&out, "a.json", "b.json", setup, Compare(a, b)))
	assert.Contains(t, out.String(), "the set-ups differ in mode, pipeline")
	assert.Contains(t, out.String(), "pipeline     none")
	assert.Regexp(t, `pipeline +none +8 +<- differs`, out.String())
}

// ar1 is an autocorrelated series around mean: each second keeps rho of
// the last one's deviation (a run whose speed drifts, as on a shared
// machine).
func ar1(rng *rand.Rand, n int, mean, rho, sd float64) []float64 {
	out := make([]float64, n)
	dev := 0.0
	for i := range out {
		dev = rho*dev + rng.NormFloat64()*sd
		out[i] = mean + dev
	}
	return out
}

// TestAutocorrelatedRunsAreNotCalledDifferent: two runs of one workload on
// a drifting machine (the same mean, seconds correlated at 0.95). The
// naive test, which takes each second as independent, calls most such
// pairs different; the corrected test calls them so about as often as
// its 1% level says.
func TestAutocorrelatedRunsAreNotCalledDifferent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const pairs = 200
	naive, blocks := 0, 0
	for range pairs {
		a, b := ar1(rng, 60, 1000, 0.95, 20), ar1(rng, 60, 1000, 0.95, 20)
		if MannWhitney(a, b) < 0.01 {
			naive++
		}
		if SecondsTest(a, b) < 0.01 {
			blocks++
		}
		assert.False(t, Apart(a, b), "runs of one process are never apart by more than their range")
	}
	t.Logf("called different at p < 0.01: naive %d of %d, corrected test %d of %d", naive, pairs, blocks, pairs)
	assert.Greater(t, naive, pairs/2, "the naive test is fooled by drift")
	assert.Less(t, blocks, pairs/10, "the corrected test is not")

	// And a real difference still shows: runs that drift less, 10% apart.
	found := 0
	for range 20 {
		a, b := ar1(rng, 60, 1000, 0.5, 20), ar1(rng, 60, 1100, 0.5, 20)
		if SecondsTest(a, b) < 0.01 {
			found++
		}
	}
	assert.Equal(t, 20, found, "a 10%% difference over 60 seconds is found every time")

	// And a huge one over a short run: open-loop at 2,000/s against a
	// pipelined closed loop at 465,000/s varying 10%, 7 whole seconds.
	for range 20 {
		a, b := ar1(rng, 7, 2000, 0.3, 1), ar1(rng, 7, 465_000, 0.3, 45_000)
		assert.Less(t, SecondsTest(a, b), 0.01, "%v against %v", a, b)
	}
}

func TestStudentTail(t *testing.T) {
	for _, c := range []struct{ t, df, twoSided float64 }{
		{2.228, 10, 0.05}, {3.169, 10, 0.01}, {1.96, 1e6, 0.05}, {12.706, 1, 0.05}, {0, 5, 1},
	} {
		assert.InDelta(t, c.twoSided, 2*studentTail(c.t, c.df), 5e-4, "t=%v df=%v", c.t, c.df)
	}
}

// rows2series is a run's per-second commands.
func rows2series(r *result.Run) []float64 {
	var out []float64
	for _, iv := range r.Series {
		out = append(out, float64(iv.Ops))
	}
	return out
}

// TestEmbeddedCPUIsNotSetAgainstAClients: a figure of the client and the
// embedded server together (one process) is named so, and is not compared
// with a client's alone: the row says why and a gate on it cannot pass.
func TestEmbeddedCPUIsNotSetAgainstAClients(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	cpu := func(rows []Row) Row {
		for _, r := range rows {
			if r.Key == "cpu" {
				return r
			}
		}
		t.Fatal("no cpu row")
		return Row{}
	}
	for _, tc := range []struct {
		name           string
		inA, inB       bool
		metric, reason string
	}{
		{"both clients", false, false, "client CPU per command (µs)", ""},
		{"both embedded", true, true, "client and embedded server CPU per command (µs)", ""},
		{"A embedded", true, false, "client CPU per command (µs)",
			"not comparable: A's figure is the client's and the embedded server's together (one process), B's the client's alone"},
		{"B embedded", false, true, "client CPU per command (µs)",
			"not comparable: B's figure is the client's and the embedded server's together (one process), A's the client's alone"},
	} {
		a := fakeRun(t, t0, 8, []float64{1000}, 100, "GET k")
		b := fakeRun(t, t0, 8, []float64{1000}, 100, "GET k")
		a.Client = result.Client{CPUPerOpUS: 30, InProcessServer: tc.inA}
		b.Client = result.Client{CPUPerOpUS: 5, InProcessServer: tc.inB}
		r := cpu(Compare(a, b))
		assert.Equal(t, tc.metric, r.Metric, tc.name)
		assert.Equal(t, tc.reason, r.Incomparable, tc.name)
		gate, err := ParseFailOn("cpu<-50%")
		require.NoError(t, err)
		v := gate.Check(Compare(a, b))
		if tc.reason != "" {
			assert.False(t, v.Pass, "%s: a gate cannot pass on figures that measure different things", tc.name)
			assert.Contains(t, v.Note, tc.reason, tc.name)
		}
	}
}

// TestMergeHasNoFalseLastSecond: runs whose seconds start off the wall
// clock's leave the merged span's last, partial second without any of
// their seconds; it is left out, not drawn as 0 commands/s.
func TestMergeHasNoFalseLastSecond(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	a := fakeRun(t, t0, 4, []float64{100}, 200, "SET k v")
	b := fakeRun(t, t0.Add(600*time.Millisecond), 4, []float64{50}, 400, "SET k v")
	m, err := Merge([]*result.Run{a, b})
	require.NoError(t, err)
	assert.Equal(t, int64(600), m.Totals.Ops)
	require.Len(t, m.Series, 4, "no trailing second that no run's seconds fell in")
	var sum int64
	for _, iv := range m.Series {
		sum += iv.Ops
		assert.Positive(t, iv.OpsPerSec, "second %d", iv.Second)
	}
	assert.Equal(t, m.Totals.Ops, sum, "the series adds up to the totals")
}

// TestMergeKeepsEachOperationsLatencyFromTheIntendedStart: two open-loop
// shards of a mixed run merge each operation's histogram from the
// intended start too, so the merged operation still leads with it.
func TestMergeKeepsEachOperationsLatencyFromTheIntendedStart(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	shard := func(start time.Time, corr int64) *result.Run {
		r := fakeRun(t, start, 3, []float64{100}, 200, "GET k")
		h := stats.NewHistogram()
		for range 300 {
			require.NoError(t, h.RecordValue(corr))
		}
		c := result.Latency{Mean: float64(corr), P99: float64(corr)}
		r.Totals.CorrectedLatency, r.HistogramCorrected = &c, result.EncodeHistogram(h)
		r.Operations = []result.Operation{{Name: "get", Ops: 300, Latency: r.Totals.Latency, Histogram: r.Histogram,
			CorrectedLatency: &c, HistogramCorrected: result.EncodeHistogram(h)}}
		return r
	}
	m, err := Merge([]*result.Run{shard(t0, 1000), shard(t0.Add(time.Millisecond), 3000)})
	require.NoError(t, err)
	require.Len(t, m.Operations, 1)
	op := m.Operations[0]
	require.NotNil(t, op.CorrectedLatency, "the merged operation keeps its latency from the intended start")
	assert.InDelta(t, 2000, op.CorrectedLatency.Mean, 1e-9)
	assert.InDelta(t, 3000, op.CorrectedLatency.P99, 3000*0.001)
	assert.NotEmpty(t, op.HistogramCorrected)
	l, measure := m.Totals.Headline()
	assert.Equal(t, result.FromIntendedStart, measure)
	assert.Equal(t, l.P99, m.Totals.CorrectedLatency.P99)
}
