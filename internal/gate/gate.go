// Package gate judges one run against a baseline of past runs of the same
// workload: a regression, a change within the noise, an improvement, or
// "unstable, cannot tell". Its defaults are redis-benchmarks-specification's
// (a regression beyond 5 % of the baseline's median, a 3 % noise line,
// unstable when a side's coefficient of variation passes 10 %); a
// regression must also be established by compare's autocorrelation-aware
// test of the per-second series.
package gate

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tairbench/tairbench/internal/resultset"
	"github.com/tairbench/tairbench/pkg/result"
)

// Policy is what a change must pass to count.
type Policy struct {
	// Regression is the change (a fraction of the baseline's median) in
	// the worse direction beyond which a run regressed; Noise the change
	// either way within which it did not move; Unstable the coefficient
	// of variation beyond which a side cannot tell.
	Regression, Noise, Unstable float64
	// Significance is the p-value below which the per-second test
	// establishes a difference.
	Significance float64
}

// Defaults are redis-benchmarks-specification's lines.
var Defaults = Policy{Regression: 0.05, Noise: 0.03, Unstable: 0.10, Significance: 0.01}

// Check refuses a policy whose lines are out of order or out of range.
func (p Policy) Check() error {
	switch {
	case p.Noise < 0 || p.Regression <= 0 || p.Unstable <= 0:
		return fmt.Errorf("gate: the regression (%g %%), noise (%g %%) and unstable (%g %%) lines must be positive", 100*p.Regression, 100*p.Noise, 100*p.Unstable)
	case p.Noise > p.Regression:
		return fmt.Errorf("gate: the noise line (%g %%) is above the regression line (%g %%)", 100*p.Noise, 100*p.Regression)
	case p.Significance <= 0 || p.Significance >= 1:
		return fmt.Errorf("gate: significance %g: want a p-value between 0 and 1", p.Significance)
	}
	return nil
}

// Metric is one figure a gate judges.
type Metric struct {
	// Key is how --metric names it, as compare's --fail-on and the
	// thresholds do (qps, p50, p99).
	Key string
	// Op, when set, is the operation of a mixed run whose own figure is
	// judged ("GET" of "GET:p99"); "" judges the whole run.
	Op string
	// HigherIsBetter: throughput; latency is better lower.
	HigherIsBetter bool
	// latency quantile (0 for throughput).
	quantile float64
}

// Metrics are the figures a gate can judge, in the order it prints them.
var Metrics = []Metric{
	{Key: "qps", HigherIsBetter: true},
	{Key: "p50", quantile: 50},
	{Key: "p99", quantile: 99},
}

// ParseMetrics reads a comma-separated list of metric keys given as flag;
// "OP:KEY" (GET:p99) names one operation of a mixed run.
func ParseMetrics(flag, s string) ([]Metric, error) {
	var out []Metric
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		op, key, hasOp := strings.Cut(k, ":")
		if !hasOp {
			op, key = "", k
		}
		found := false
		for _, m := range Metrics {
			if m.Key == key && (!hasOp || strings.TrimSpace(op) != "") {
				m.Op = strings.TrimSpace(op)
				out, found = append(out, m), true
			}
		}
		if !found {
			return nil, fmt.Errorf("%s %q: want one or more of %s, each alone or after an operation's name (GET:p99)", flag, k, keys())
		}
	}
	return out, nil
}

func keys() string {
	ks := make([]string, len(Metrics))
	for i, m := range Metrics {
		ks[i] = m.Key
	}
	return strings.Join(ks, ", ")
}

// measure is the latency the metric reads, given the one its runs share:
// an operation's seconds are timed from the send only, so its latency is
// read from the send.
func (m Metric) measure(common result.LatencyMeasure) result.LatencyMeasure {
	if m.Op != "" {
		return result.FromSend
	}
	return common
}

// Label names the metric as every surface does (resultset.MetricLabel),
// an operation's own figure with its name.
func (m Metric) Label(measure result.LatencyMeasure) string {
	s := resultset.MetricLabel(m.Key, m.measure(measure))
	if m.Op != "" {
		s = m.Op + " " + s
	}
	return s
}

// value is the run's whole-run figure (0 when it has none).
func (m Metric) value(r *result.Run, measure result.LatencyMeasure) float64 {
	ops, l := r.Totals.OpsPerSec, r.Totals.Of(m.measure(measure))
	if m.Op != "" {
		o, ok := operation(r, m.Op)
		if !ok {
			return 0
		}
		ops, l = o.OpsPerSec, o.Latency
	}
	switch m.quantile {
	case 0:
		return ops
	case 50:
		return l.P50
	default:
		return l.P99
	}
}

func operation(r *result.Run, name string) (result.Operation, bool) {
	for _, o := range r.Operations {
		if strings.EqualFold(o.Name, name) {
			return o, true
		}
	}
	return result.Operation{}, false
}

// seconds is the run's figure in each whole second.
func (m Metric) seconds(r *result.Run, measure result.LatencyMeasure) []float64 {
	measure = m.measure(measure)
	return resultset.PerSecond(r, func(iv result.Interval) (float64, bool) {
		ops, p50, p99 := float64(iv.Ops), iv.P50Of(measure), iv.P99Of(measure)
		if iv.Requests == 0 {
			ops = math.NaN()
		}
		if m.Op != "" {
			ops, p50, p99 = math.NaN(), nil, nil
			for _, o := range iv.Operations {
				if strings.EqualFold(o.Name, m.Op) {
					ops, p50, p99 = float64(o.Ops), o.P50US, o.P99US
				}
			}
		}
		p := p99
		switch m.quantile {
		case 0:
			return ops, !math.IsNaN(ops)
		case 50:
			p = p50
		}
		if p == nil {
			return 0, false
		}
		return *p, true
	})
}

// Outcome is a verdict's kind.
type Outcome string

// Outcomes, worst first.
const (
	Regression  Outcome = "regression"
	Unstable    Outcome = "unstable, cannot tell"
	Watch       Outcome = "within the allowance"
	NoChange    Outcome = "within noise"
	Improvement Outcome = "improvement"
)

// Verdict is one metric's judgment.
type Verdict struct {
	Metric Metric
	// Label is the metric as printed (with its latency measure named).
	Label string
	// Value is the run's figure; Median the baseline's median; Change
	// (Value − Median) / Median.
	Value, Median, Change float64
	// BaselineCV is the spread of the baseline's figures across its runs;
	// RunCV the spread of the run's per-second figures (its drift).
	BaselineCV, RunCV float64
	// P is the per-second test's p-value (NaN when not run).
	P       float64
	Outcome Outcome
	// Reason says why, in one sentence.
	Reason string
}

// sample is one run's figure and its whole seconds' figures, read once.
type sample struct {
	value float64
	secs  []float64
}

func (m Metric) sample(r *result.Run, measure result.LatencyMeasure) sample {
	return sample{value: m.value(r, measure), secs: m.seconds(r, measure)}
}

func (m Metric) samples(runs []*result.Run, measure result.LatencyMeasure) []sample {
	out := make([]sample, len(runs))
	for i, r := range runs {
		out[i] = m.sample(r, measure)
	}
	return out
}

// Judge judges run against baseline (the past runs of its workload) on
// each metric. Latency is judged as all the runs measured it alike
// (resultset.CommonMeasure), or from the send when they did not.
func Judge(run *result.Run, baseline []*result.Run, metrics []Metric, p Policy) []Verdict {
	measure := resultset.CommonMeasure(append([]*result.Run{run}, baseline...)...)
	out := make([]Verdict, 0, len(metrics))
	for _, m := range metrics {
		out = append(out, m.judge(m.sample(run, measure), m.samples(baseline, measure), measure, p))
	}
	return out
}

// Point is one run of a trend: its figure, the spread of its whole
// seconds, and its verdict against the runs before it (nil for the
// first).
type Point struct {
	Value, Lo, Hi float64
	Verdict       *Verdict
}

// ChangePoint says the run moved from the runs before it: beyond the
// regression line either way, established by the per-second test, on
// sides steady enough to tell.
func (v *Verdict) ChangePoint(p Policy) bool {
	return v != nil && v.Outcome != Unstable && math.Abs(v.Change) > p.Regression && v.P < p.Significance
}

// Trend follows one metric over runs of one workload, oldest first: each
// run judged against up to window runs before it. Latency is read as all
// the runs measured it (resultset.CommonMeasure); the label says which.
func Trend(runs []*result.Run, m Metric, p Policy, window int) (string, []Point) {
	if len(runs) == 0 {
		return m.Label(result.FromSend), nil
	}
	measure := resultset.CommonMeasure(runs...)
	all := m.samples(runs, measure)
	out := make([]Point, len(runs))
	for i, s := range all {
		pt := Point{Value: s.value}
		if len(s.secs) > 0 {
			pt.Lo, pt.Hi = slices.Min(s.secs), slices.Max(s.secs)
		}
		if i > 0 {
			v := m.judge(s, all[max(0, i-window):i], measure, p)
			pt.Verdict = &v
		}
		out[i] = pt
	}
	return m.Label(measure), out
}

// judge is run's verdict against baseline on m.
func (m Metric) judge(run sample, baseline []sample, measure result.LatencyMeasure, p Policy) Verdict {
	v := Verdict{Metric: m, Label: m.Label(measure), Value: run.value, P: math.NaN()}
	values := make([]float64, len(baseline))
	var pooled []float64
	for i, b := range baseline {
		values[i] = b.value
		pooled = append(pooled, b.secs...)
	}
	v.Median, v.BaselineCV = median(values), resultset.CV(values)
	secs := run.secs
	v.RunCV = resultset.CV(secs)
	if v.Median != 0 {
		v.Change = (v.Value - v.Median) / v.Median
	}
	worse := v.Change
	if m.HigherIsBetter {
		worse = -worse
	}
	if len(secs) >= 3 && len(pooled) >= 3 {
		v.P = resultset.SecondsTest(secs, pooled)
	}
	pct := func(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }
	switch {
	case v.Median == 0 || v.Value == 0:
		v.Outcome, v.Reason = Unstable, "no figure to compare: a side measured none"
		if m.Op != "" {
			v.Reason = fmt.Sprintf("no figure to compare: a side has no operation %s", m.Op)
		}
	case len(baseline) >= 2 && v.BaselineCV > p.Unstable:
		v.Outcome, v.Reason = Unstable, fmt.Sprintf("the baseline's runs vary by %s (CV), beyond the %s line", pct(v.BaselineCV), pct(p.Unstable))
	case v.RunCV > p.Unstable:
		v.Outcome, v.Reason = Unstable, fmt.Sprintf("the run's seconds vary by %s (CV), beyond the %s line", pct(v.RunCV), pct(p.Unstable))
	case math.Abs(v.Change) <= p.Noise:
		v.Outcome, v.Reason = NoChange, fmt.Sprintf("%s from the baseline's median, within the %s noise line", signed(v.Change), pct(p.Noise))
	case worse > p.Regression && math.IsNaN(v.P):
		v.Outcome, v.Reason = Unstable, fmt.Sprintf("%s worse, but too few whole seconds to test it", pct(worse))
	case worse > p.Regression && v.P >= p.Significance:
		v.Outcome, v.Reason = Unstable, fmt.Sprintf("%s worse, but the seconds do not establish it (p = %.3g; %.2g needed)", pct(worse), v.P, p.Significance)
	case worse > p.Regression:
		v.Outcome, v.Reason = Regression, fmt.Sprintf("%s worse than the baseline's median, beyond the %s line (p = %.2g)", pct(worse), pct(p.Regression), v.P)
	case worse > 0:
		v.Outcome, v.Reason = Watch, fmt.Sprintf("%s worse: beyond the %s noise line, within the %s regression line", pct(worse), pct(p.Noise), pct(p.Regression))
	default:
		v.Outcome, v.Reason = Improvement, fmt.Sprintf("%s better than the baseline's median", pct(-worse))
	}
	return v
}

func signed(x float64) string { return fmt.Sprintf("%+.1f %%", 100*x) }

// Worst is the worst outcome among verdicts: a regression, else unstable,
// else a pass.
func Worst(vs []Verdict) Outcome {
	worst := Improvement
	rank := map[Outcome]int{Regression: 0, Unstable: 1, Watch: 2, NoChange: 3, Improvement: 4}
	for _, v := range vs {
		if rank[v.Outcome] < rank[worst] {
			worst = v.Outcome
		}
	}
	return worst
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
