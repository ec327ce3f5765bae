package respbenchmark

import (
	"fmt"
	"io"
	"strconv"

	"github.com/tairbench/tairbench/pkg/result"
)

// Report writes resp-benchmark's report of the run: the settings, then
// its closing line (or, for --load, its loading line). Its figures are
// tairbench's exact ones, in resp-benchmark's units.
func Report(w io.Writer, o Options, r *result.Run) {
	header(w, o)
	t := r.Totals
	if o.Load {
		fmt.Fprintf(w, "Data loaded, qps: %.0f, time elapsed: %.2fs\n\n", t.OpsPerSec, r.DurationMS/1000)
		return
	}
	if t.Latency.Empty() {
		fmt.Fprintf(w, "qps: %.0f, conn: %d, no data\n\n", t.OpsPerSec, r.Config.Connections)
		return
	}
	fmt.Fprintf(w, "qps: %.0f, conn: %d, cnt: %d, avg: %s, p99: %s\n", t.OpsPerSec, r.Config.Connections, t.Ops,
		humanize(t.Latency.Mean), humanize(t.Latency.P99))
	if c := t.CorrectedLatency; c != nil && !c.Empty() { // -t: an open loop
		fmt.Fprintf(w, "from the intended start (what users waited): avg: %s, p99: %s; the line above is service time, as resp-benchmark's -t reports it\n",
			humanize(c.Mean), humanize(c.P99))
	}
	fmt.Fprintln(w)
}

// header writes the settings resp-benchmark prints first.
func header(w io.Writer, o Options) {
	conns := strconv.Itoa(o.Connections)
	if o.Connections == 0 {
		conns = "auto"
	}
	target := "unlimited"
	if o.Target > 0 {
		target = strconv.Itoa(o.Target)
	}
	fmt.Fprintf(w, "command: %s\nconnections: %s\ncount: %d\ntarget: %s\nseconds: %d\npipeline: %d\nshort_connection: false\ndbids: [%d]\n",
		o.Command, conns, o.Requests, target, o.Seconds, o.Pipeline, o.DB)
}

// humanize writes a latency as resp-benchmark does: two decimals of a
// millisecond below 1 ms, one below 10 ms, none below 100 ms, then seconds.
func humanize(us float64) string {
	switch {
	case us < 10:
		return "<0.01ms"
	case us < 1_000:
		return fmt.Sprintf("%.2fms", us/1_000)
	case us < 10_000:
		return fmt.Sprintf("%.1fms", us/1_000)
	case us < 100_000:
		return fmt.Sprintf("%.0fms", us/1_000)
	case us < 1_000_000:
		return fmt.Sprintf("%.2fs", us/1_000_000)
	case us < 10_000_000:
		return fmt.Sprintf("%.1fs", us/1_000_000)
	}
	return ">10s"
}
