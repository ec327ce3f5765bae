// Package report renders results: the text summary, JSON, CSV and the
// HdrHistogram percentile (.hgrm) format, plus the warnings that must not be
// missed.
package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/pkg/result"
)

// FailureThreshold is the error rate above which a run is reported as failed.
const FailureThreshold = 0.5

// Failed reports whether most commands of the run failed.
func Failed(r *result.Run) bool {
	t := r.Totals
	return t.Ops+t.TransportErrors == 0 || t.ErrorRate >= FailureThreshold
}

// Warnings lists what makes the run's figures misleading.
func Warnings(r *result.Run) []string {
	var w []string
	t := r.Totals
	switch {
	case t.Ops+t.TransportErrors == 0:
		w = append(w, "no command completed: there is nothing to measure")
	case t.ErrorRate >= FailureThreshold:
		w = append(w, fmt.Sprintf("%.1f%% of commands failed: the throughput measures error replies, not the command", 100*t.ErrorRate))
	case t.Errors > 0:
		w = append(w, fmt.Sprintf("%d commands failed (%.2f%%): see the errors below", t.Errors, 100*t.ErrorRate))
	}
	if t.Aborted > 0 {
		w = append(w, fmt.Sprintf("%d MULTI/EXEC batches were aborted: none of their commands ran", t.Aborted))
	}
	if t.TransportErrors > 0 {
		w = append(w, fmt.Sprintf("%d requests failed on the connection (timeouts, resets, refused connections)", t.TransportErrors))
	}
	if t.Overflow > 0 {
		w = append(w, fmt.Sprintf("%d latencies exceeded the histogram's %s range and were recorded at its top: max and high percentiles are understated",
			t.Overflow, fmtMS(float64(t.HistogramRangeUS))))
	}
	if r.Client.Saturated {
		if r.Client.InProcessServer {
			w = append(w, fmt.Sprintf("this process used %.2f of %d cores, and it also runs the embedded server: client and server compete for CPU",
				r.Client.CPUUtil, r.Client.Cores))
		} else {
			w = append(w, fmt.Sprintf("the client used %.2f of %d cores: the figures may measure this client rather than the server",
				r.Client.CPUUtil, r.Client.Cores))
		}
	}
	if r.StopReason == "interrupted" {
		w = append(w, "the run was interrupted: these are partial results")
	}
	if r.StopReason == "max-errors" {
		w = append(w, "the run stopped early at --max-errors")
	}
	return w
}

func fmtMS(us float64) string {
	ms := us / 1000
	switch {
	case ms >= 1000:
		return strconv.FormatFloat(ms/1000, 'f', -1, 64) + " s"
	default:
		return strconv.FormatFloat(ms, 'f', 3, 64) + " ms"
	}
}

// WriteWarnings writes one "!! WARNING:" line per warning.
func WriteWarnings(b *strings.Builder, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(b, "!! WARNING: %s\n", s)
	}
}

// ms formats microseconds as milliseconds with three decimals.
func ms(us float64) string { return strconv.FormatFloat(us/1000, 'f', 3, 64) }

// Text writes the human-readable summary.
func Text(w io.Writer, r *result.Run, hist *hdr.Histogram) error {
	var b strings.Builder
	t := r.Totals
	warn := r.Warnings
	WriteWarnings(&b, warn)
	if r.Command != "" {
		fmt.Fprintf(&b, "command      %s\n", r.Command)
	}
	if r.Config.Mode != "" {
		fmt.Fprintf(&b, "mode         %s, %d connections\n", r.Config.Mode, r.Config.Connections)
	}
	fmt.Fprintf(&b, "duration     %.2f s (stopped by %s), warm-up %.2f s\n", r.DurationMS/1000, r.StopReason, r.WarmupMS/1000)
	fmt.Fprintf(&b, "commands     %d in %d requests, %d errors (%.2f%%)\n", t.Ops, t.Requests, t.Errors, 100*t.ErrorRate)
	if t.OpsPerRequest > 1 {
		per := "requests"
		if mode := r.Config.Mode; strings.HasPrefix(mode, "MULTI/EXEC") {
			per = "batches"
		} else if strings.HasPrefix(mode, "pipeline") {
			per = "pipelines"
		}
		fmt.Fprintf(&b, "throughput   QPS %.0f commands/s, %.0f %s/s\n", t.OpsPerSec, t.RequestsPerSec, per)
	} else {
		fmt.Fprintf(&b, "throughput   QPS %.0f\n", t.OpsPerSec)
	}
	unit := "per command"
	if t.OpsPerRequest > 1 {
		unit = fmt.Sprintf("per request of %d commands", t.OpsPerRequest)
	}
	l := t.Latency
	fmt.Fprintf(&b, "latency ms   avg %s  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (%s)\n",
		ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P99), ms(l.P999), ms(l.Max), unit)
	if len(r.Errors) > 0 {
		b.WriteString("errors\n")
		for i, e := range r.Errors {
			if i == 5 {
				fmt.Fprintf(&b, "  … %d more distinct messages (see --json)\n", len(r.Errors)-5)
				break
			}
			fmt.Fprintf(&b, "  %10d  %s\n", e.Count, e.Message)
		}
	}
	if r.Client.CPUPerOpUS > 0 {
		fmt.Fprintf(&b, "client       %.2f µs CPU per command, %.2f of %d cores\n", r.Client.CPUPerOpUS, r.Client.CPUUtil, r.Client.Cores)
	}
	if hist != nil && hist.TotalCount() > 0 {
		b.WriteString("latency histogram\n")
		writeBars(&b, hist)
	}
	WriteWarnings(&b, warn)
	_, err := io.WriteString(w, b.String())
	return err
}

// bounds are the upper edges (µs) of the text histogram's rows.
var bounds = []int64{50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000,
	1_000_000, 2_000_000, 5_000_000, 10_000_000, 60_000_000}

func writeBars(b *strings.Builder, h *hdr.Histogram) {
	counts := make([]int64, len(bounds))
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		v := bar.To
		i := 0
		for i < len(bounds)-1 && v > bounds[i] {
			i++
		}
		counts[i] += bar.Count
	}
	first, last := -1, -1
	for i, c := range counts {
		if c > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	total := float64(h.TotalCount())
	for i := first; i >= 0 && i <= last; i++ {
		pct := 100 * float64(counts[i]) / total
		fmt.Fprintf(b, "  <= %9s ms %6.2f%% %s\n", ms(float64(bounds[i])), pct, strings.Repeat("#", int(math.Round(pct/2))))
	}
}

// JSON writes the result in the versioned schema.
func JSON(w io.Writer, r *result.Run) error { return result.EncodeJSON(w, r) }

// CSV writes the per-interval series and a final total row.
func CSV(w io.Writer, r *result.Run) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"second", "ops", "requests", "errors", "ops_per_sec", "mean_us", "p50_us", "p99_us", "max_us"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	for _, s := range r.Series {
		_ = cw.Write([]string{strconv.Itoa(s.Second), strconv.FormatInt(s.Ops, 10), strconv.FormatInt(s.Requests, 10),
			strconv.FormatInt(s.Errors, 10), f(s.OpsPerSec), f(s.MeanUS), f(s.P50US), f(s.P99US), f(s.MaxUS)})
	}
	t := r.Totals
	_ = cw.Write([]string{"total", strconv.FormatInt(t.Ops, 10), strconv.FormatInt(t.Requests, 10), strconv.FormatInt(t.Errors, 10),
		f(t.OpsPerSec), f(t.Latency.Mean), f(t.Latency.P50), f(t.Latency.P99), f(t.Latency.Max)})
	cw.Flush()
	return cw.Error()
}

// HGRM writes the latency percentile distribution in HdrHistogram's text
// format, in milliseconds.
func HGRM(w io.Writer, h *hdr.Histogram) error {
	_, err := h.PercentilesPrint(w, 5, 1000)
	return err
}

// MiB formats a byte count in mebibytes ("-" when unknown or zero).
func MiB(b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
