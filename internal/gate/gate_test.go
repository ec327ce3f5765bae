package gate

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/pkg/result"
)

// mk is a closed-loop run whose whole seconds did perSecond commands
// each, with p99 its latency.
func mk(p99 float64, perSecond ...int64) *result.Run {
	r := &result.Run{DurationMS: float64(len(perSecond))*1000 + 100}
	var total int64
	for i, n := range perSecond {
		v := p99
		r.Series = append(r.Series, result.Interval{Second: i, Ops: n, Requests: n, P50US: &v, P99US: &v})
		total += n
	}
	r.Totals = result.Totals{Ops: total, OpsPerSec: float64(total) / float64(len(perSecond)), Latency: result.Latency{P50: p99, P99: p99},
		HeadlineLatency: result.FromSend}
	return r
}

func steady(n int64) []int64 { return []int64{n, n + 1, n - 1, n, n + 2, n - 2} }

func TestJudge(t *testing.T) {
	base := func(n int64) []*result.Run {
		var out []*result.Run
		for i := 0; i < 7; i++ {
			out = append(out, mk(100, steady(n+int64(i%3))...))
		}
		return out
	}
	noisyBase := []*result.Run{mk(100, steady(1000)...), mk(100, steady(1300)...), mk(100, steady(1000)...), mk(100, steady(700)...)}
	cases := []struct {
		name     string
		run      *result.Run
		baseline []*result.Run
		metric   Metric
		want     Outcome
		reason   string
	}{
		{"the same", mk(100, steady(1001)...), base(1000), Metrics[0], NoChange, "within the 3.0 % noise line"},
		{"20 % slower", mk(100, steady(800)...), base(1000), Metrics[0], Regression, "% worse than the baseline's median, beyond the 5.0 % line"},
		{"4 % slower", mk(100, steady(960)...), base(1000), Metrics[0], Watch, "within the 5.0 % regression line"},
		{"10 % faster", mk(100, steady(1100)...), base(1000), Metrics[0], Improvement, "better"},
		{"p99 30 % higher", mk(130, steady(1000)...), base(1000), Metrics[2], Regression, "30.0 % worse"},
		{"p99 30 % lower", mk(70, steady(1000)...), base(1000), Metrics[2], Improvement, "30.0 % better"},
		{"a baseline that varies", mk(100, steady(1000)...), noisyBase, Metrics[0], Unstable, "the baseline's runs vary by"},
		{"a run that drifts", mk(100, 1000, 600, 1400, 1000, 700, 1300), base(1000), Metrics[0], Unstable, "the run's seconds vary by"},
		{"too few seconds", mk(100, 800, 800), base(1000), Metrics[0], Unstable, "too few whole seconds"},
		{"a change the seconds do not establish", mk(100, 900, 1000, 850, 1020, 880, 950), []*result.Run{mk(100, 1000, 1080, 930, 1050, 960, 990)},
			Metrics[0], Unstable, "do not establish it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := Judge(c.run, c.baseline, []Metric{c.metric}, Defaults)
			require.Len(t, vs, 1)
			assert.Equal(t, c.want, vs[0].Outcome, vs[0].Reason)
			assert.Contains(t, vs[0].Reason, c.reason)
			assert.Equal(t, c.want, Worst(vs))
		})
	}
}

// TestJudgeNamesTheLatencyItReads: an open loop's latency is read from
// the intended start when the whole baseline is open too, and from the
// send when it is not.
func TestJudgeNamesTheLatencyItReads(t *testing.T) {
	open := func() *result.Run {
		r := mk(100, steady(1000)...)
		r.Totals.HeadlineLatency = result.FromIntendedStart
		r.Totals.CorrectedLatency = &result.Latency{P50: 150, P99: 150}
		return r
	}
	vs := Judge(open(), []*result.Run{open(), open()}, []Metric{Metrics[2]}, Defaults)
	assert.Equal(t, "p99 latency from the intended start (µs)", vs[0].Label)
	assert.Equal(t, 150.0, vs[0].Value)
	vs = Judge(open(), []*result.Run{open(), mk(100, steady(1000)...)}, []Metric{Metrics[2]}, Defaults)
	assert.Equal(t, "p99 latency from the send (µs)", vs[0].Label)
	assert.Equal(t, 100.0, vs[0].Value)
}

func TestPolicyAndMetrics(t *testing.T) {
	assert.NoError(t, Defaults.Check())
	for _, bad := range []Policy{{Regression: 0.05, Noise: 0.06, Unstable: 0.1, Significance: 0.01},
		{Regression: 0, Noise: 0, Unstable: 0.1, Significance: 0.01}, {Regression: 0.05, Noise: 0.03, Unstable: 0.1, Significance: 1}} {
		assert.Error(t, bad.Check(), "%+v", bad)
	}
	ms, err := ParseMetrics("--metric", "qps, p99")
	require.NoError(t, err)
	assert.Equal(t, []string{"qps", "p99"}, []string{ms[0].Key, ms[1].Key})
	_, err = ParseMetrics("--metric", "p98")
	assert.EqualError(t, err, `--metric "p98": want one or more of qps, p50, p99, each alone or after an operation's name (GET:p99)`)
	assert.True(t, math.IsNaN(Judge(mk(1, 1), []*result.Run{mk(1, 1)}, Metrics[:1], Defaults)[0].P))
}

// TestTrendMarksTheChange: nightly runs steady at 1,000 commands/s, then
// at 800: the first slower night is the change point; the next ones are
// judged against windows that mix both levels (unstable), then against
// slower nights only (no change).
func TestTrendMarksTheChange(t *testing.T) {
	var runs []*result.Run
	for i := 0; i < 6; i++ {
		runs = append(runs, mk(100, steady(1000+int64(i%2))...))
	}
	for i := 0; i < 6; i++ {
		runs = append(runs, mk(100, steady(800+int64(i%2))...))
	}
	label, pts := Trend(runs, Metrics[0], Defaults, 3)
	assert.Equal(t, "QPS (commands/s)", label)
	require.Len(t, pts, 12)
	assert.Nil(t, pts[0].Verdict)
	assert.InDelta(t, 998, pts[0].Lo, 1)
	assert.InDelta(t, 1002, pts[0].Hi, 1)
	var changes []int
	for i, p := range pts {
		if p.Verdict.ChangePoint(Defaults) {
			changes = append(changes, i)
		}
	}
	assert.Equal(t, []int{6}, changes, "the first slower night only")
	assert.Equal(t, Regression, pts[6].Verdict.Outcome)
	assert.Equal(t, Unstable, pts[7].Verdict.Outcome, "a window of both levels varies beyond the unstable line")
	assert.Equal(t, NoChange, pts[9].Verdict.Outcome, "a window of slower nights only")
}

// mixed is mk with two operations: GET doing getPerSecond commands a
// second at getP99, SET the rest at 100 µs.
func mixed(getPerSecond int64, getP99 float64, perSecond ...int64) *result.Run {
	r := mk(100, perSecond...)
	var total int64
	for i := range r.Series {
		g, s, set := getP99, 100.0, r.Series[i].Ops-getPerSecond
		r.Series[i].Operations = []result.IntervalOperation{{Name: "GET", Ops: getPerSecond, P50US: &g, P99US: &g},
			{Name: "SET", Ops: set, P50US: &s, P99US: &s}}
		total += getPerSecond
	}
	secs := float64(len(perSecond))
	r.Operations = []result.Operation{{Name: "GET", Ops: total, OpsPerSec: float64(total) / secs, Latency: result.Latency{P50: getP99, P99: getP99}},
		{Name: "SET", OpsPerSec: r.Totals.OpsPerSec - float64(total)/secs, Latency: result.Latency{P50: 100, P99: 100}}}
	return r
}

// TestJudgeAnOperation: GET:p99 judges the GET commands of a mixed run
// alone (from the send: an operation's seconds are timed so), while the
// whole run's p99 hides their change; an operation the runs lack cannot
// be judged.
func TestJudgeAnOperation(t *testing.T) {
	var base []*result.Run
	for i := 0; i < 5; i++ {
		base = append(base, mixed(100, 200, steady(1000+int64(i%2))...))
	}
	run := mixed(100, 300, steady(1000)...)
	ms, err := ParseMetrics("--metric", "GET:p99,p99,HSET:qps")
	require.NoError(t, err)
	vs := Judge(run, base, ms, Defaults)
	require.Len(t, vs, 3)
	assert.Equal(t, "GET p99 latency from the send (µs)", vs[0].Label)
	assert.Equal(t, Regression, vs[0].Outcome, vs[0].Reason)
	assert.InDelta(t, 0.5, vs[0].Change, 1e-9)
	assert.Equal(t, NoChange, vs[1].Outcome, "the whole run's p99 (mk's 100 µs) does not move")
	assert.Equal(t, "HSET QPS (commands/s)", vs[2].Label)
	assert.Equal(t, Unstable, vs[2].Outcome)
	assert.Equal(t, "no figure to compare: a side has no operation HSET", vs[2].Reason)
	_, err = ParseMetrics("--metric", ":p99")
	assert.Error(t, err)
}
