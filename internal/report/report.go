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

// ClientLagThreshold is the share of scheduled sends woken late by the
// client itself from which an open-loop run is said to be bounded by the client.
const ClientLagThreshold = 0.01

// UnreachableThreshold is the share of the measured time without a usable
// connection from which a run is reported as failed.
const UnreachableThreshold = 0.1

// Failed reports whether the run failed: nothing completed, most commands
// failed, the target was unreachable for UnreachableThreshold of the run
// or more, or a whole second had no reply.
func Failed(r *result.Run) bool { return FailureReason(r) != "" }

// FailureReason says why the run failed ("" when it did not).
func FailureReason(r *result.Run) string {
	t, a := r.Totals, r.Availability
	switch {
	case t.Ops+t.LostOps == 0:
		return "no command completed"
	case t.ErrorRate >= FailureThreshold:
		return fmt.Sprintf("%.1f%% of commands failed", 100*t.ErrorRate)
	case a.UnreachableFraction >= UnreachableThreshold:
		return fmt.Sprintf("the target was unreachable for %.1f%% of the run", 100*a.UnreachableFraction)
	case len(a.SilentSeconds) > 0:
		return fmt.Sprintf("no reply in %d whole second(s) of the run", len(a.SilentSeconds))
	}
	return ""
}

// seconds lists interval numbers compactly: "3, 4, 5" or "3 … 9 (7)".
// seconds names the seconds s (Series' numbering: second N runs from N s
// to N+1 s) as the spans of the run they cover, as the live lines label
// them: [3 4 7] is "3-5 s, 7-8 s".
func seconds(s []int) string {
	var parts []string
	for k := 0; k < len(s); {
		j := k
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		parts = append(parts, fmt.Sprintf("%d-%d s", s[k], s[j]+1))
		k = j + 1
	}
	if len(parts) > 6 {
		return fmt.Sprintf("%s … %s (%d seconds in all)", parts[0], parts[len(parts)-1], len(s))
	}
	return strings.Join(parts, ", ")
}

// Warnings lists what makes the run's figures misleading.
func Warnings(r *result.Run) []string {
	var w []string
	t := r.Totals
	a := r.Availability
	if l := r.Ledger; l != nil && l.LostAcknowledged > 0 {
		w = append(w, fmt.Sprintf("LOST WRITES: %d acknowledged writes are not on the server (write ledger: %d acknowledged of %d sent)",
			l.LostAcknowledged, l.Acknowledged, l.Sent))
	}
	if l := r.Ledger; l != nil && l.ReadError != "" {
		w = append(w, "the write ledger's counters could not be read back: "+l.ReadError)
	}
	switch {
	case t.Ops+t.LostOps == 0:
		w = append(w, "no command completed: there is nothing to measure")
	case t.ErrorRate >= FailureThreshold && t.Errors-t.LostOps > t.LostOps:
		w = append(w, fmt.Sprintf("%.1f%% of commands failed: the throughput measures error replies, not the command", 100*t.ErrorRate))
	case t.ErrorRate >= FailureThreshold:
		// Most failures got no reply: there are few error replies to measure.
		w = append(w, fmt.Sprintf("%.1f%% of commands failed, most of them lost with their connection (no reply): the throughput counts only the replies that came", 100*t.ErrorRate))
	case t.Errors > 0:
		w = append(w, fmt.Sprintf("%d commands failed (%.2f%%): see the errors below", t.Errors, 100*t.ErrorRate))
	}
	if t.Aborted > 0 {
		w = append(w, fmt.Sprintf("%d MULTI/EXEC batches were aborted: none of their commands ran", t.Aborted))
	}
	if a.UnreachableFraction >= UnreachableThreshold {
		w = append(w, fmt.Sprintf("target unreachable %.1f s of %.1f s (%.1f%%), %d/%d connections lost: the throughput is averaged over time the target could not be measured",
			a.UnreachableMS/1000, r.DurationMS/1000, 100*a.UnreachableFraction, a.ConnectionsLost, a.Connections))
	} else if a.ConnectionsLost > 0 {
		w = append(w, fmt.Sprintf("%d/%d connections were lost during the run (%.1f s without a connection in all)",
			a.ConnectionsLost, a.Connections, a.DowntimeMS/1000))
	}
	if len(a.SilentSeconds) > 0 {
		why := "the target stalled or was unreachable"
		switch {
		case a.UnresponsiveS > 0 && a.UnreachableMS == 0:
			why = fmt.Sprintf("the connections were up and the server did not answer (unresponsive %.3f s: a stall, a pause or a black hole)", a.UnresponsiveS)
		case a.UnresponsiveS > 0:
			why = fmt.Sprintf("the target was unreachable %.3f s and unresponsive %.3f s (connections up, no reply)", a.UnreachableMS/1000, a.UnresponsiveS)
		case a.UnreachableMS > 0:
			why = "the target was unreachable"
		}
		w = append(w, fmt.Sprintf("no reply at all in %s of the run: %s", seconds(a.SilentSeconds), why))
	}
	if t.TransportErrors > 0 {
		w = append(w, fmt.Sprintf("%d requests (%d commands) were lost on their connection (timeouts, resets, closed connections)",
			t.TransportErrors, t.LostOps))
	}
	if t.ConnectFailures > 0 {
		w = append(w, fmt.Sprintf("%d attempts to connect failed (not counted as commands)", t.ConnectFailures))
	}
	if t.Overflow > 0 {
		w = append(w, fmt.Sprintf("%d latencies exceeded the histogram's %s range and were recorded at its top: max and high percentiles are understated",
			t.Overflow, fmtMS(float64(t.HistogramRangeUS))))
	}
	if c := r.Cluster; c != nil && c.TryAgain > 0 {
		w = append(w, fmt.Sprintf("%d transactions were sent again after TRYAGAIN (their keys were split by a slot migration): their latency includes the waits",
			c.TryAgain))
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
	if sc := t.Schedule; sc != nil && sc.NotSent > 0 {
		w = append(w, fmt.Sprintf("%d of the %d requests scheduled were never sent (%d for want of a connection, %d held back waiting for replies): the latency figures do not include them",
			sc.NotSent, sc.Sent+sc.NotSent, sc.NotSentNoConnection, sc.NotSent-sc.NotSentNoConnection))
	}
	if sc := t.Schedule; sc != nil && t.Requests > 0 {
		if float64(sc.ClientLags) > ClientLagThreshold*float64(t.Requests) {
			w = append(w, fmt.Sprintf("%d scheduled sends (%.1f%%) started more than 1 ms late with no reply outstanding (up to %.1f ms): the client, not the server, fell behind; the figures are bounded by the client",
				sc.ClientLags, 100*float64(sc.ClientLags)/float64(t.Requests), sc.ClientLagMaxMS))
		}
		short := sc.AchievedRate < 0.99*sc.Rate && r.StopReason == result.StopDuration
		if short && (t.ConnectFailures > 0 || r.Availability.UnreachableMS > 0) {
			// Each failed attempt to connect took a scheduled request's place.
			w = append(w, fmt.Sprintf("the run sent %.0f requests/s of the %.0f asked for, with the target unreachable %.1f s: each of the %d failed attempts to connect took a scheduled request's place",
				sc.AchievedRate, sc.Rate, r.Availability.UnreachableMS/1000, t.ConnectFailures))
		} else if short {
			w = append(w, fmt.Sprintf("the run sent %.0f requests/s of the %.0f asked for: the connections could not keep the schedule (more connections, or a lower rate)",
				sc.AchievedRate, sc.Rate))
		}
	}
	if sv := r.Server; sv != nil && sv.Reconciliation != nil && !sv.Reconciliation.Match {
		rc := sv.Reconciliation
		what := "differs from"
		switch {
		case !rc.Complete:
			what = "cannot be checked against"
		case rc.Explained:
			what = "is above"
		}
		w = append(w, fmt.Sprintf("the server's count of %s %s the client's: %s; observed: %s",
			strings.ToUpper(strings.Join(rc.Commands, ", ")), what, rc.Note, strings.Join(rc.Causes, "; ")))
	}
	if sv := r.Server; sv != nil && len(sv.Restarts) > 0 && sv.Reconciliation == nil {
		w = append(w, fmt.Sprintf("the server restarted during the run (a new run_id or lower uptime at %s s): no rate spans the restart",
			joinFloats(sv.Restarts)))
	}
	if r.StopReason == result.StopInterrupted {
		w = append(w, "the run was interrupted: these are partial results")
	}
	if r.StopReason == result.StopMaxErrors {
		w = append(w, "the run stopped early: its error budget was spent")
	}
	if r.StopReason == result.StopUnreachable {
		w = append(w, "the run stopped early: the target stayed unreachable")
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

// Routing says what a cluster run's routing followed: its nodes, slot map
// reads and redirections.
func Routing(c *result.ClusterRouting) string {
	return fmt.Sprintf("%d nodes; slot map read %d time(s); %d MOVED, %d ASK and %d TRYAGAIN followed",
		c.Nodes, c.MapLoads, c.Moved, c.Asked, c.TryAgain)
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
	if r.Config.Target != nil {
		fmt.Fprintf(&b, "target       %s\n", TargetLine(r.Config.Target))
	}
	if r.Config.Mode != "" {
		fmt.Fprintf(&b, "mode         %s, %d connections, %s\n", r.Config.Mode, r.Config.Connections, Loop(r))
	}
	fmt.Fprintf(&b, "duration     %.2f s (stopped by %s), warm-up %.2f s\n", r.DurationMS/1000, r.StopReason, r.WarmupMS/1000)
	if t.LostOps > 0 { // the lost commands are errors but got no reply: both counts show, and add up
		fmt.Fprintf(&b, "commands     %d answered in %d requests, %d lost with their connection: %d errors (%.2f%% of %d)\n",
			t.Ops, t.Requests, t.LostOps, t.Errors, 100*t.ErrorRate, t.Ops+t.LostOps)
	} else {
		fmt.Fprintf(&b, "commands     %d in %d requests, %d errors (%.2f%%)\n", t.Ops, t.Requests, t.Errors, 100*t.ErrorRate)
	}
	if a := r.Availability; a.ConnectionsLost > 0 || len(a.SilentSeconds) > 0 || t.ConnectFailures > 0 {
		fmt.Fprintf(&b, "availability target unreachable %.1f s of %.1f s (%.1f%%), %d/%d connections lost, %d reconnects, %d failed connect attempts\n",
			a.UnreachableMS/1000, r.DurationMS/1000, 100*a.UnreachableFraction, a.ConnectionsLost, a.Connections, a.Reconnects, t.ConnectFailures)
		if len(a.SilentSeconds) > 0 {
			fmt.Fprintf(&b, "             no reply in %s of the run", seconds(a.SilentSeconds))
			if a.UnresponsiveS > 0 {
				fmt.Fprintf(&b, "; unresponsive %.3f s (connections up, no reply)", a.UnresponsiveS)
			}
			b.WriteString("\n")
		}
	}
	if c := r.Cluster; c != nil {
		fmt.Fprintf(&b, "cluster      %s\n", Routing(c))
	}
	if t.Retried > 0 {
		fmt.Fprintf(&b, "retried      %d commands sent again (--retry): each command counts once, by its last attempt, and its latency includes the attempts before\n", t.Retried)
	}
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
	c, m := t.Headline()
	switch l := t.Latency; {
	case c.Empty():
		b.WriteString("latency ms   none: no request got a reply\n")
	case m == result.FromIntendedStart:
		fmt.Fprintf(&b, "latency ms   avg %s  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (%s, %s: what users waited)\n",
			ms(c.Mean), ms(c.P50), ms(c.P90), ms(c.P99), ms(c.P999), ms(c.Max), unit, m.Label())
		fmt.Fprintf(&b, "service ms   avg %s  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (service time, %s)\n",
			ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P99), ms(l.P999), ms(l.Max), result.FromSend.Label())
	default:
		fmt.Fprintf(&b, "latency ms   avg %s  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (%s, %s)\n",
			ms(c.Mean), ms(c.P50), ms(c.P90), ms(c.P99), ms(c.P999), ms(c.Max), unit, m.Label())
	}
	if len(r.Operations) > 0 {
		writeOperations(&b, r.Operations, r.Server)
	}
	if sc := t.Schedule; sc != nil {
		waited := "waiting for replies"
		if sc.BehindDown > 0 {
			waited = fmt.Sprintf("%d waiting for replies, %d for a connection (the target failed)", sc.Behind-sc.BehindDown, sc.BehindDown)
		}
		fmt.Fprintf(&b, "schedule     %.0f/s asked, %s, sent %.1f/s; %d requests started behind schedule (mean %.1f ms, max %.1f ms) %s; %d sends were late in the client (max %.1f ms)\n",
			sc.Rate, sc.Arrivals, sc.AchievedRate, sc.Behind, sc.BehindMeanMS, sc.BehindMaxMS, waited, sc.ClientLags, sc.ClientLagMaxMS)
		if sc.NotSent > 0 {
			fmt.Fprintf(&b, "             %d requests scheduled in the measured time: %d sent, %d never sent (%d for want of a connection, %d held back waiting for replies)\n",
				sc.Sent+sc.NotSent, sc.Sent, sc.NotSent, sc.NotSentNoConnection, sc.NotSent-sc.NotSentNoConnection)
		}
		if sc.SendGridUS > 0 {
			fmt.Fprintf(&b, "send grid    %.3f ms: each request sent at the first tick at or after its intended start, up to %.3f ms late by design (the latency from the intended start counts it; the schedule line counts lateness past the tick; a send grid of 0 wakes each at its own start); replies timed by the kernel's arrival time\n",
				sc.SendGridUS/1000, sc.SendGridUS/1000)
		}
	}
	writeErrors(&b, r.Errors)
	if r.Events != nil {
		writeEvents(&b, r.Events)
	}
	if l := r.Ledger; l != nil {
		writeLedger(&b, l)
	}
	if sv := r.Server; sv != nil {
		writeServer(&b, sv)
	}
	if r.Client.CPUPerOpUS > 0 {
		who := "client      "
		if r.Client.InProcessServer {
			// One process: the operating system's accounting cannot split it.
			who = "client and embedded server (one process):"
		}
		fmt.Fprintf(&b, "%s %.2f µs CPU per command, %.2f of %d cores\n", who, r.Client.CPUPerOpUS, r.Client.CPUUtil, r.Client.Cores)
	}
	if hist != nil && hist.TotalCount() > 0 {
		if m == result.FromIntendedStart { // the bars are the service times, not the latency line's
			b.WriteString("service time histogram (" + result.FromSend.Label() + ")\n")
		} else {
			b.WriteString("latency histogram\n")
		}
		writeBars(&b, hist)
	}
	WriteWarnings(&b, warn)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeErrors prints the first causes of errors.
func writeErrors(b *strings.Builder, errs []result.ErrorCount) {
	if len(errs) == 0 {
		return
	}
	b.WriteString("errors       by cause (count of commands; of attempts for connect)\n")
	for i, e := range errs {
		if i == 5 {
			fmt.Fprintf(b, "  … %d more causes (see the JSON result)\n", len(errs)-5)
			break
		}
		fmt.Fprintf(b, "  %10d  %-10s  %s\n", e.Count, e.Kind, e.Message)
		if e.Example != "" && e.Example != e.Message {
			fmt.Fprintf(b, "  %10s  %-10s  e.g. %s\n", "", "", Clip(e.Example, 160))
		}
	}
}

// writeOperations prints a mixed run's table, one row per operation type.
// A command whose replies cannot show a missing key gets "—" for misses,
// with the server's count of them when it gave one.
func writeOperations(b *strings.Builder, ops []result.Operation, sv *result.ServerTimeline) {
	b.WriteString("operations   by type (latency ms; misses: replies that found nothing)\n")
	fmt.Fprintf(b, "  %-12s %6s %12s %10s %8s %10s %8s %8s %8s %8s %8s\n",
		"type", "weight", "ops", "ops/s", "errors", "misses", "avg", "p50", "p99", "p99.9", "max")
	var hidden []string
	for _, o := range ops {
		l := o.Latency
		misses := strconv.FormatInt(o.Misses, 10)
		if o.MissesHidden {
			misses = "—"
			hidden = append(hidden, o.Name)
		}
		fmt.Fprintf(b, "  %-12s %6d %12d %10.0f %8d %10s %8s %8s %8s %8s %8s\n",
			Clip(o.Name, 12), o.Weight, o.Ops, o.OpsPerSec, o.Errors, misses, ms(l.Mean), ms(l.P50), ms(l.P99), ms(l.P999), ms(l.Max))
	}
	if len(hidden) > 0 {
		fmt.Fprintf(b, "  —: %s replies do not tell a missing key from an empty one", strings.Join(hidden, ", "))
		if sv != nil && sv.KeyspaceMisses != nil {
			fmt.Fprintf(b, "; the server counted %d reads of a missing key in the run (INFO keyspace_misses, every command)", *sv.KeyspaceMisses)
		}
		b.WriteString("\n")
	}
}

// writeServer summarizes the server's own timeline.
func writeServer(b *strings.Builder, sv *result.ServerTimeline) {
	var ops, cpu []float64
	var mem, heap *int64
	sampled := 0
	for _, s := range sv.Samples {
		if !s.At.IsZero() {
			sampled++
		}
		if s.OpsPerSec != nil {
			ops = append(ops, *s.OpsPerSec)
		}
		if s.CPUCores != nil {
			cpu = append(cpu, *s.CPUCores)
		}
		if s.UsedMemory != nil {
			mem = s.UsedMemory
		}
		if s.HeapUsed != nil {
			heap = s.HeapUsed
		}
	}
	parts := []string{fmt.Sprintf("%s each second, %d of %d seconds sampled", sv.Source, sampled, len(sv.Samples))}
	if len(ops) > 0 {
		parts = append(parts, fmt.Sprintf("%.0f ops/s average", mean(ops)))
	}
	if len(cpu) > 0 {
		parts = append(parts, fmt.Sprintf("%.2f cores average", mean(cpu)))
	}
	if mem != nil {
		parts = append(parts, "used_memory "+MiB(*mem)+" at the end")
	}
	if heap != nil {
		parts = append(parts, "heap "+MiB(*heap)+" at the end")
	}
	if sv.KeyspaceMisses != nil {
		parts = append(parts, fmt.Sprintf("%d reads of a missing key (keyspace_misses)", *sv.KeyspaceMisses))
	}
	fmt.Fprintf(b, "server       %s\n", strings.Join(parts, ", "))
	if len(sv.Missing) > 0 {
		fmt.Fprintf(b, "             not given by the server (null, not 0): %s\n", strings.Join(sv.Missing, ", "))
	}
	if rc := sv.Reconciliation; rc != nil {
		reconcileLines(b, rc)
	}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Clip is s cut to n characters, "…" marking a cut.
func Clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
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
	_ = cw.Write([]string{"second", "ops", "requests", "errors", "transport_errors", "connect_failures", "ops_per_sec",
		"mean_us", "p50_us", "p99_us", "max_us"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	// A second with no reply has no latency: its cells are empty, never 0.
	opt := func(v *float64) string {
		if v == nil {
			return ""
		}
		return f(*v)
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, s := range r.Series {
		_ = cw.Write([]string{strconv.Itoa(s.Second), i64(s.Ops), i64(s.Requests), i64(s.Errors), i64(s.TransportErrors),
			i64(s.ConnectFailures), f(s.OpsPerSec), opt(s.MeanUS), opt(s.P50US), opt(s.P99US), opt(s.MaxUS)})
	}
	t := r.Totals
	lat := func(v float64) string {
		if t.Requests == 0 {
			return ""
		}
		return f(v)
	}
	_ = cw.Write([]string{"total", i64(t.Ops), i64(t.Requests), i64(t.Errors), i64(t.TransportErrors), i64(t.ConnectFailures),
		f(t.OpsPerSec), lat(t.Latency.Mean), lat(t.Latency.P50), lat(t.Latency.P99), lat(t.Latency.Max)})
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

// TargetLine names a target: its address and who it said it is, with
// "not Tair" for tairbench's embedded server.
func TargetLine(t *result.Target) string {
	s := t.Addr
	if t.Cluster {
		s += " (cluster)"
	}
	if t.MasterName != "" {
		s += fmt.Sprintf(" (%s, the primary Sentinel %s named first; followed)", t.MasterName, strings.Join(t.Sentinels, ", "))
	}
	id := t.Server
	switch {
	case t.NotTair():
		where := "over the network"
		if t.InProcess {
			where = "in this process"
		}
		s += ": tairbench's embedded server, not Tair (" + where + ")"
	case id != nil:
		s += ": " + id.String()
		if len(id.Modules) > 0 {
			names := make([]string, len(id.Modules))
			for i, m := range id.Modules {
				names[i] = m.Name
			}
			s += ", modules " + strings.Join(names, ", ")
		}
	default:
		s += " (the server did not say who it is)"
	}
	return s
}

// Loop says how the run sent its requests: closed-loop, or open-loop at
// its rate.
func Loop(r *result.Run) string {
	if sc := r.Totals.Schedule; sc != nil && sc.Rate > 0 {
		return fmt.Sprintf("open-loop at %.0f requests/s (%s arrivals)", sc.Rate, sc.Arrivals)
	}
	return "closed-loop"
}

// CapacityAnswer is a capacity search's answer in one line: a rate that
// held when confirmed, or why there is none.
func CapacityAnswer(c *result.CapacitySearch) string {
	var s string
	switch {
	case c.Unstable && c.UnstableWhy != "":
		s = "no stable answer: " + c.UnstableWhy
	case c.Unstable:
		s = fmt.Sprintf("no stable answer: no rate held %s when run again (%.0f/s broke)", c.SLO, c.BrokeAt)
	case c.HighestHeld > 0 && c.BrokeAt > 0:
		s = fmt.Sprintf("%.0f requests/s held %s; %.0f/s broke it", c.HighestHeld, c.SLO, c.BrokeAt)
	case c.HighestHeld > 0:
		s = fmt.Sprintf("at least %.0f requests/s held %s (nothing tried broke it)", c.HighestHeld, c.SLO)
	default:
		s = "no rate tried held " + c.SLO
	}
	if c.ClientBound {
		s += " (a lower bound: the client was the limit at some step)"
	}
	return s
}

// Confirmations are a capacity search's confirming runs (a result written
// before they were listed has its one Confirm).
func Confirmations(c *result.CapacitySearch) []result.CapacityStep {
	if len(c.Confirmations) > 0 {
		return c.Confirmations
	}
	if c.Confirm != nil {
		return []result.CapacityStep{*c.Confirm}
	}
	return nil
}

// reconcileLines prints the reconciliation: the totals, what the server
// refused or failed, each life of the server when it restarted, and the
// causes observed.
func reconcileLines(b *strings.Builder, rc *result.Reconciliation) {
	state := "match"
	switch {
	case !rc.Complete:
		state = "INCOMPLETE, " + rc.Note
	case rc.Explained:
		state = "explained: " + rc.Note
	case !rc.Match:
		state = "DIFFER: " + rc.Note
	}
	fmt.Fprintf(b, "reconcile    %s: %d answered by the server (INFO commandstats), %d counted by the client (warm-up and after the deadline included): %s\n",
		strings.ToUpper(strings.Join(rc.Commands, ", ")), rc.Server, rc.Client, state)
	if rc.Rejected > 0 || rc.Failed > 0 {
		fmt.Fprintf(b, "             of which %d rejected before running (rejected_calls) and %d failed when run (failed_calls): the client's errors\n", rc.Rejected, rc.Failed)
	}
	if len(rc.Lives) > 1 || (len(rc.Lives) == 1 && !rc.Lives[0].EndRead) {
		for i, l := range rc.Lives {
			end := "read at its end"
			if !l.EndRead {
				end = "ended after its last reading: later commands unknown"
			}
			fmt.Fprintf(b, "             life %d (run_id %s): %d calls, %d rejected, read %.1f s to %.1f s, %s\n",
				i+1, Clip(l.RunID, 8), l.Calls, l.Rejected, l.FirstS, l.LastS, end)
		}
	}
	for _, c := range rc.Causes {
		fmt.Fprintf(b, "             observed: %s\n", c)
	}
}

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strings.Join(parts, ", ")
}
