package resultset

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/tairbench/tairbench/pkg/result"
)

// Row is one compared figure.
type Row struct {
	// Key is what --fail-on names it (qps, p50, p99, p99.9, max, errors,
	// cpu); Metric how the table does.
	Key    string
	Metric string
	A, B   float64
	// Change is (B − A) / A.
	Change float64
	// P is the two-sided p-value that the per-second series' means differ,
	// corrected for the seconds' autocorrelation (SecondsTest; NaN when the
	// figure has no per-second series, or too few independent seconds).
	P float64
	// Noise is the larger per-second coefficient of variation of A and B.
	Noise float64
	// Verdict is "significant", "within noise" or why it cannot tell.
	Verdict string
	// Incomparable, when set, says why A's and B's figures measure
	// different things (a gate on the row cannot pass).
	Incomparable string
}

// MinSeconds is the fewest whole seconds per run for a test.
const MinSeconds = 5

// Compare sets B's figures against A's. A difference is significant when
// the change is larger than the run-to-run noise of the per-second series
// and either the series differ (SecondsTest, p < 0.01) or they are Apart.
// The latency rows compare like with like (CommonMeasure), and say which.
func Compare(a, b *result.Run) []Row {
	m := CommonMeasure(a, b)
	qps := func(r *result.Run) []float64 {
		return PerSecond(r, func(iv result.Interval) (float64, bool) { return float64(iv.Ops), iv.Requests > 0 })
	}
	p50 := func(r *result.Run) []float64 {
		return PerSecond(r, func(iv result.Interval) (float64, bool) { p := iv.P50Of(m); return deref(p), p != nil })
	}
	p99 := func(r *result.Run) []float64 {
		return PerSecond(r, func(iv result.Interval) (float64, bool) { p := iv.P99Of(m); return deref(p), p != nil })
	}
	la, lb := a.Totals.Of(m), b.Totals.Of(m)
	lat := func(q string) string { return MetricLabel(q, m) }
	ta, tb := a.Totals, b.Totals
	rows := []Row{
		row("qps", MetricLabel("qps", m), ta.OpsPerSec, tb.OpsPerSec, qps(a), qps(b)),
		row("p50", lat("p50"), la.P50, lb.P50, p50(a), p50(b)),
		row("p99", lat("p99"), la.P99, lb.P99, p99(a), p99(b)),
		row("p99.9", lat("p99.9"), la.P999, lb.P999, nil, nil),
		row("max", lat("max"), la.Max, lb.Max, nil, nil),
		row("errors", "errors", float64(ta.Errors), float64(tb.Errors), nil, nil),
		cpuRow(a, b),
	}
	return rows
}

// cpuRow compares client CPU per command. Under --embedded the client and
// the server are one process, whose CPU cannot be split: such a figure is
// named as both, and is not set against a client's alone.
func cpuRow(a, b *result.Run) Row {
	ia, ib := a.Client.InProcessServer, b.Client.InProcessServer
	name := "client CPU per command (µs)"
	if ia && ib {
		name = "client and embedded server CPU per command (µs)"
	}
	r := row("cpu", name, a.Client.CPUPerOpUS, b.Client.CPUPerOpUS, nil, nil)
	if ia != ib {
		both, alone := "A", "B"
		if ib {
			both, alone = "B", "A"
		}
		r.Incomparable = fmt.Sprintf("not comparable: %s's figure is the client's and the embedded server's together (one process), %s's the client's alone", both, alone)
		r.Verdict = r.Incomparable
	}
	return r
}

// CommonMeasure is the latency runs are compared on: their headline when
// they all share it, and from the send when some are open loops and some
// closed (the only latency all have).
func CommonMeasure(runs ...*result.Run) result.LatencyMeasure {
	m := runs[0].Totals.Measure()
	for _, r := range runs[1:] {
		if r.Totals.Measure() != m {
			return result.FromSend
		}
	}
	return m
}

// MetricLabel is how every comparison names a figure (compare, gate,
// trend): "QPS (commands/s)" for qps, "p99 latency from the send (µs)" for
// a latency key read as m.
func MetricLabel(key string, m result.LatencyMeasure) string {
	if key == "qps" {
		return "QPS (commands/s)"
	}
	return key + " " + m.Label() + " (µs)"
}

// MeasureNote says, when one run is an open loop and the other a closed
// one, that their headline latencies measure different things and what
// the table compares instead; "" when they share their headline.
func MeasureNote(a, b *result.Run) string {
	ma, mb := a.Totals.Measure(), b.Totals.Measure()
	if ma == mb {
		return ""
	}
	open, name, other := a, "A", "B"
	if mb == result.FromIntendedStart {
		open, name, other = b, "B", "A"
	}
	l, m := open.Totals.Headline()
	return fmt.Sprintf("A leads with %s, B with %s: they measure different things. The latency rows compare both runs' %s "+
		"(%s's service time); %s's %s, p99 %s, has no counterpart in %s.",
		ma.Label(), mb.Label(), result.FromSend.Label(), name, name, m.Label(), msOrNone(l.P99, l.Empty()), other)
}

// msOrNone is microseconds as milliseconds, or "none" for no reply.
func msOrNone(us float64, none bool) string {
	if none {
		return "none"
	}
	return fmt.Sprintf("%.3f ms", us/1000)
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// PerSecond is a figure of every whole second of the run (the last,
// partial one left out) that has it.
func PerSecond(r *result.Run, f func(result.Interval) (float64, bool)) []float64 {
	var out []float64
	whole := int(r.DurationMS / 1000)
	for _, iv := range r.Series {
		if iv.Second >= whole {
			break
		}
		if v, ok := f(iv); ok {
			out = append(out, v)
		}
	}
	return out
}

func row(key, name string, a, b float64, sa, sb []float64) Row {
	r := Row{Key: key, Metric: name, A: a, B: b, P: math.NaN()}
	if a != 0 {
		r.Change = (b - a) / a
	}
	switch {
	case sa == nil:
		r.Verdict = "no per-second series to test"
	case len(sa) < MinSeconds || len(sb) < MinSeconds:
		r.Verdict = fmt.Sprintf("too few seconds to tell (%d and %d; %d needed)", len(sa), len(sb), MinSeconds)
	default:
		r.P = SecondsTest(sa, sb)
		r.Noise = math.Max(CV(sa), CV(sb))
		switch {
		case r.P < 0.01 && math.Abs(r.Change) > r.Noise:
			r.Verdict = "significant"
		case Apart(sa, sb) && math.Abs(r.Change) > r.Noise:
			// A run's drift can mislead the test (few independent seconds),
			// but not move every second beyond the other run's whole span.
			r.Verdict = "significant (the series are apart by more than either one's range)"
		case r.P < 0.01:
			r.Verdict = "within noise (the series differ, by less than their own variation)"
		default:
			r.Verdict = "within noise"
		}
	}
	return r
}

// CV is the coefficient of variation (standard deviation over mean).
func CV(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	if mean == 0 || len(xs) < 2 {
		return 0
	}
	return math.Sqrt(sq/float64(len(xs)-1)) / math.Abs(mean)
}

// MannWhitney returns the two-sided p-value of the Mann-Whitney U test of
// two samples (normal approximation with tie correction and continuity).
func MannWhitney(a, b []float64) float64 {
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, len(a)+len(b))
	for _, v := range a {
		all = append(all, obs{v, true})
	}
	for _, v := range b {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	n1, n2 := float64(len(a)), float64(len(b))
	n := n1 + n2
	var r1, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // average rank of the tie group (1-based)
		t := float64(j - i)
		ties += t*t*t - t
		for k := i; k < j; k++ {
			if all[k].first {
				r1 += rank
			}
		}
		i = j
	}
	u := r1 - n1*(n1+1)/2
	mu := n1 * n2 / 2
	sigma := math.Sqrt(n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1))))
	if sigma == 0 {
		return 1
	}
	z := (math.Abs(u-mu) - 0.5) / sigma
	if z < 0 {
		z = 0
	}
	return math.Erfc(z / math.Sqrt2)
}

// WriteCompare prints both runs' set-ups, marking what differs, and the
// comparison table.
func WriteCompare(w io.Writer, nameA, nameB string, setup []SetupRow, rows []Row, notes ...string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s\nB: %s\n\n", nameA, nameB)
	writeSetup(&b, setup)
	for _, n := range notes {
		if n != "" {
			fmt.Fprintf(&b, "note: %s\n", n)
		}
	}
	fmt.Fprintf(&b, "%-44s %14s %14s %9s %9s %7s  %s\n", "figure", "A", "B", "B vs A", "p", "noise", "verdict")
	for _, r := range rows {
		p, noise := "-", "-"
		if !math.IsNaN(r.P) {
			p, noise = fmt.Sprintf("%.4f", r.P), fmt.Sprintf("%.1f%%", 100*r.Noise)
		}
		fmt.Fprintf(&b, "%-44s %14.2f %14.2f %+8.1f%% %9s %7s  %s\n", r.Metric, r.A, r.B, 100*r.Change, p, noise, r.Verdict)
	}
	b.WriteString("\np: Welch's t on the per-second series' means (whole seconds), each mean's variance inflated by the seconds'\n" +
		"autocorrelation, so that a run's drift counts as noise; noise: the larger per-second coefficient of variation.\n")
	b.WriteString("A difference is significant when it is larger than the noise and p < 0.01, or every second of one run\n" +
		"lies beyond the other's by more than either run's range (max − min), which no drift within them explains.\n")
	_, err := io.WriteString(w, b.String())
	return err
}
