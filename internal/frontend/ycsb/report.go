package ycsb

import (
	"fmt"
	"io"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// Report prints YCSB's end-of-run report: [OVERALL] and, per operation,
// its count, latencies in µs and return codes (OK, NOT_FOUND for a read
// that found nothing, ERROR).
func Report(w io.Writer, run *result.Run, ops []string) error {
	hist, err := run.LatencyHistogram()
	if err != nil {
		return fmt.Errorf("the run's latency: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[OVERALL], RunTime(ms), %.0f\n", run.DurationMS)
	fmt.Fprintf(&b, "[OVERALL], Throughput(ops/sec), %s\n", javaDouble(run.Totals.OpsPerSec))
	type part struct {
		name              string
		ops, errs, misses int64
		lat               result.Latency
		p95               float64
	}
	var parts []part
	if len(run.Operations) > 0 {
		for _, o := range run.Operations {
			p := part{name: o.Name, ops: o.Ops, errs: o.Errors, misses: o.Misses, lat: o.Latency}
			if h, err := hdr.Decode([]byte(o.Histogram)); err == nil && o.Histogram != "" {
				p.p95 = float64(h.ValueAtQuantile(95))
			}
			parts = append(parts, p)
		}
	} else if len(ops) > 0 {
		t := run.Totals
		p := part{name: ops[0], ops: t.Ops, errs: t.Errors, misses: t.Misses, lat: t.Latency}
		if hist != nil && hist.TotalCount() > 0 {
			p.p95 = float64(hist.ValueAtQuantile(95))
		}
		parts = append(parts, p)
	}
	for _, p := range parts {
		if p.ops == 0 && p.errs == 0 {
			continue
		}
		fmt.Fprintf(&b, "[%s], Operations, %d\n", p.name, p.ops)
		fmt.Fprintf(&b, "[%s], AverageLatency(us), %s\n", p.name, javaDouble(p.lat.Mean))
		fmt.Fprintf(&b, "[%s], MinLatency(us), %.0f\n", p.name, p.lat.Min)
		fmt.Fprintf(&b, "[%s], MaxLatency(us), %.0f\n", p.name, p.lat.Max)
		fmt.Fprintf(&b, "[%s], 95thPercentileLatency(us), %.0f\n", p.name, p.p95)
		fmt.Fprintf(&b, "[%s], 99thPercentileLatency(us), %.0f\n", p.name, p.lat.P99)
		if ok := p.ops - p.errs - p.misses; ok > 0 {
			fmt.Fprintf(&b, "[%s], Return=OK, %d\n", p.name, ok)
		}
		if p.misses > 0 {
			fmt.Fprintf(&b, "[%s], Return=NOT_FOUND, %d\n", p.name, p.misses)
		}
		if p.errs > 0 {
			fmt.Fprintf(&b, "[%s], Return=ERROR, %d\n", p.name, p.errs)
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// javaDouble prints a float as Java's Double.toString does for these
// magnitudes (no exponent, at least one decimal).
func javaDouble(v float64) string {
	s := fmt.Sprintf("%.15g", v)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// Status returns -s's printer: every 10 s, YCSB's status line with the
// operations so far and the current rate, per operation type.
func Status(w io.Writer, ops []string) func(stats.Progress) {
	counts := make([]int64, len(ops))
	var lastOps int64
	lastAt := time.Duration(0)
	return func(p stats.Progress) {
		for i, o := range p.Interval.Operations {
			if i < len(counts) {
				counts[i] += o.Ops
			}
		}
		if len(p.Interval.Operations) == 0 && len(counts) == 1 {
			counts[0] += p.Interval.Ops
		}
		secs := int(p.Elapsed.Seconds())
		if secs%10 != 0 {
			return
		}
		cur := float64(p.TotalOps-lastOps) / (p.Elapsed - lastAt).Seconds()
		lastOps, lastAt = p.TotalOps, p.Elapsed
		var b strings.Builder
		fmt.Fprintf(&b, "%s %d sec: %d operations; %s current ops/sec;", time.Now().Format("2006-01-02 15:04:05:000"), secs, p.TotalOps,
			fmt.Sprintf("%.2f", cur))
		for i, name := range ops {
			fmt.Fprintf(&b, " [%s: Count=%d]", name, counts[i])
		}
		fmt.Fprintln(w, b.String())
	}
}
