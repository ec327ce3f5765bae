package redisbenchmark

import (
	"fmt"
	"io"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// HostConfig is what redis-benchmark prints of the server's configuration
// (absent when the server does not answer CONFIG GET).
type HostConfig struct {
	Save, AppendOnly *string
}

// CSVHeader is redis-benchmark's --csv header line.
const CSVHeader = `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"`

// Report prints one test the way redis-benchmark does: the full report,
// the -q line, or the --csv row. Latencies are per request: with -P every
// command of a pipeline is counted at its pipeline's latency, as
// redis-benchmark counts them.
func Report(w io.Writer, o Options, name string, run *result.Run, hc HostConfig) error {
	h, err := run.LatencyHistogram()
	if err != nil {
		return fmt.Errorf("the run's latency: %w", err)
	}
	t := run.Totals
	perReq := int64(max(t.OpsPerRequest, 1))
	prec := max(3, o.Precision)
	msf := func(us float64) string { return fmt.Sprintf("%.*f", prec, us/1000) }
	l := t.Latency
	var b strings.Builder
	switch {
	case o.CSV:
		fmt.Fprintf(&b, "%q,\"%.2f\",\"%s\",\"%s\",\"%s\",\"%s\",\"%s\",\"%s\"\n", name, t.OpsPerSec,
			msf(l.Mean), msf(l.Min), msf(l.P50), msf(pct(h, 95)), msf(l.P99), msf(l.Max))
	case o.Quiet:
		fmt.Fprintf(&b, "%s: %.2f requests per second, p50=%s msec\n", name, t.OpsPerSec, msf(l.P50))
	default:
		fmt.Fprintf(&b, "====== %s ======\n", name)
		fmt.Fprintf(&b, "  %d requests completed in %.2f seconds\n", t.Ops, run.DurationMS/1000)
		fmt.Fprintf(&b, "  %d parallel clients\n", o.Clients)
		fmt.Fprintf(&b, "  %d bytes payload\n", o.DataSize)
		b.WriteString("  keep alive: 1\n")
		if hc.Save != nil {
			fmt.Fprintf(&b, "  host configuration \"save\": %s\n", *hc.Save)
		}
		if hc.AppendOnly != nil {
			fmt.Fprintf(&b, "  host configuration \"appendonly\": %s\n", *hc.AppendOnly)
		}
		if o.Threads > 0 {
			fmt.Fprintf(&b, "  multi-thread: yes\n  threads: %d\n", o.Threads)
		} else {
			b.WriteString("  multi-thread: no\n")
		}
		if h != nil && h.TotalCount() > 0 {
			total := h.TotalCount()
			b.WriteString("\nLatency by percentile distribution:\n")
			for _, st := range report.HalvingPercentiles(h) {
				fmt.Fprintf(&b, "%.3f%% <= %s milliseconds (cumulative count %d)\n", st.Percent, msf(float64(st.Value)), st.Count*perReq)
			}
			fmt.Fprintf(&b, "100.000%% <= %s milliseconds (cumulative count %d)\n", msf(float64(h.Max())), total*perReq)
			b.WriteString("\nCumulative distribution of latencies:\n")
			// 0.1 ms steps below 1 ms (the whitepaper's tables), 1 ms steps
			// below 100 ms, then 100 ms steps; a line where the count grew.
			var last int64 = -1
			for step := int64(100); ; {
				c := report.CountAtOrBelow(h, step)
				if c != last {
					fmt.Fprintf(&b, "%.3f%% <= %s milliseconds (cumulative count %d)\n", 100*float64(c)/float64(total), msf(float64(step)), c*perReq)
					last = c
				}
				if c >= total {
					break
				}
				switch {
				case step < 1000:
					step += 100
				case step < 100_000:
					step += 1000
				default:
					step += 100_000
				}
			}
		}
		b.WriteString("\nSummary:\n")
		fmt.Fprintf(&b, "  throughput summary: %.2f requests per second\n", t.OpsPerSec)
		b.WriteString("  latency summary (msec):\n")
		fmt.Fprintf(&b, "        %9s %9s %9s %9s %9s %9s\n", "avg", "min", "p50", "p95", "p99", "max")
		fmt.Fprintf(&b, "        %9s %9s %9s %9s %9s %9s\n", msf(l.Mean), msf(l.Min), msf(l.P50), msf(pct(h, 95)), msf(l.P99), msf(l.Max))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

func pct(h *hdr.Histogram, q float64) float64 {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	return float64(h.ValueAtQuantile(q))
}
