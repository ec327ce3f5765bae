// Package capacity answers the sizing question: the highest open-loop
// rate at which a target still meets a latency and error target (an SLO).
// It ramps the rate, then bisects between the last rate that held and the
// first that did not; each step is a full, fixed-rate run.
package capacity

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/pkg/result"
)

// Bound is one term of an SLO: a latency percentile (or max, or mean)
// below a duration, or the error rate below a fraction.
type Bound struct {
	// Metric is "p50", "p90", "p99", "p99.9", "max", "mean" or "errors".
	Metric string
	// Latency is the bound of a latency metric.
	Latency time.Duration
	// Errors is the bound of the error rate (0.001 for 0.1%).
	Errors float64
}

// SLO is every bound a step must meet.
type SLO []Bound

// ErrEmptySLO is ParseSLO's error for a target with no term.
var ErrEmptySLO = errors.New("the SLO is empty")

// ParseSLO reads "p99<2ms", "p99.9<10ms,errors<0.1%", "max<50ms". Its
// errors quote the term at fault; the caller names its option.
func ParseSLO(s string) (SLO, error) {
	var out SLO
	for _, term := range strings.Split(s, ",") {
		term = strings.TrimSpace(term)
		if term == "" {
			continue
		}
		k, v, ok := strings.Cut(term, "<")
		if !ok {
			return nil, fmt.Errorf("%q: want METRIC<BOUND, such as p99<2ms or errors<0.1%%", term)
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		switch k {
		case "errors":
			pct, ok := strings.CutSuffix(v, "%")
			f, err := strconv.ParseFloat(pct, 64)
			if !ok || err != nil || f < 0 || f > 100 {
				return nil, fmt.Errorf("%q: the error bound is a percentage such as 0.1%%", term)
			}
			out = append(out, Bound{Metric: k, Errors: f / 100})
		case "p50", "p90", "p99", "p99.9", "max", "mean":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("%q: the latency bound is a duration such as 2ms", term)
			}
			out = append(out, Bound{Metric: k, Latency: d})
		default:
			return nil, fmt.Errorf("%q: unknown metric %q (p50, p90, p99, p99.9, max, mean, errors)", term, k)
		}
	}
	if len(out) == 0 {
		return nil, ErrEmptySLO
	}
	return out, nil
}

// String writes the SLO back in its own syntax.
func (s SLO) String() string {
	parts := make([]string, len(s))
	for i, b := range s {
		if b.Metric == "errors" {
			parts[i] = fmt.Sprintf("errors<%g%%", b.Errors*100)
		} else {
			parts[i] = fmt.Sprintf("%s<%s", b.Metric, b.Latency)
		}
	}
	return strings.Join(parts, ",")
}

// latencyOf picks a metric from the run's headline latency: from the
// intended start (what users waited) in the open-loop steps.
func latencyOf(r *result.Run, metric string) time.Duration {
	l, _ := r.Totals.Headline()
	var us float64
	switch metric {
	case "p50":
		us = l.P50
	case "p90":
		us = l.P90
	case "p99":
		us = l.P99
	case "p99.9":
		us = l.P999
	case "max":
		us = l.Max
	case "mean":
		us = l.Mean
	}
	return time.Duration(us * float64(time.Microsecond))
}

// Check returns what broke the SLO in r (nil when it held). A run that
// could not send its rate (below 99%) did not hold either.
func (s SLO) Check(r *result.Run, rate float64) []string {
	var why []string
	for _, b := range s {
		if b.Metric == "errors" {
			if r.Totals.ErrorRate >= b.Errors {
				why = append(why, fmt.Sprintf("errors %.3f%% >= %g%%", 100*r.Totals.ErrorRate, 100*b.Errors))
			}
			continue
		}
		if got := latencyOf(r, b.Metric); got >= b.Latency {
			why = append(why, fmt.Sprintf("%s %s >= %s", b.Metric, round(got), b.Latency))
		}
	}
	if rate > 0 && r.Totals.RequestsPerSec < 0.99*rate {
		why = append(why, fmt.Sprintf("sent %.0f/s of %.0f/s", r.Totals.RequestsPerSec, rate))
	}
	return why
}

// HoldsIn says whether one stretch of a run (a second), its latency h
// (µs) and its error rate, met every bound.
func (s SLO) HoldsIn(h *hdr.Histogram, errorRate float64) bool {
	for _, b := range s {
		var us float64
		switch b.Metric {
		case "errors":
			if errorRate >= b.Errors {
				return false
			}
			continue
		case "max":
			us = float64(h.Max())
		case "mean":
			us = h.Mean()
		default:
			q, _ := strconv.ParseFloat(strings.TrimPrefix(b.Metric, "p"), 64)
			us = float64(h.ValueAtQuantile(q))
		}
		if time.Duration(us*float64(time.Microsecond)) >= b.Latency {
			return false
		}
	}
	return true
}

// margin is the worst bound's measured value over the bound (below 1 held).
func (s SLO) margin(r *result.Run) float64 {
	worst := 0.0
	for _, b := range s {
		var m float64
		if b.Metric == "errors" {
			if b.Errors > 0 {
				m = r.Totals.ErrorRate / b.Errors
			}
		} else {
			m = float64(latencyOf(r, b.Metric)) / float64(b.Latency)
		}
		worst = max(worst, m)
	}
	return worst
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
