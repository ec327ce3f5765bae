// Package output is what a run writes besides its summary, as the user
// asked for it: result files, the per-second lines, pass/fail thresholds
// and their JUnit report. Options are the user's words; Parse makes the
// Outputs a front-end's Run takes.
package output

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run/capacity"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/internal/threshold"
	"github.com/tairbench/tairbench/pkg/result"
)

// Options are a single run's outputs as the user gave them.
type Options struct {
	// JSON, CSV and HGRM are paths ("" none; "-" standard output).
	JSON, CSV, HGRM string
	// Quiet turns the per-second progress lines off.
	Quiet bool
	// Gate makes the run pass or fail.
	Gate Gate
}

// Gate is a pass/fail gate: thresholds as written (p99<2ms,
// errors<0.1%, GET:p99<1ms) and the JUnit file for their verdicts.
type Gate struct {
	Thresholds []string
	JUnit      string
}

// Parse returns the outputs with the thresholds parsed; an unwritable
// JUnit path is refused before the run.
func (o Options) Parse() (Outputs, error) {
	ts, err := o.Gate.Parse()
	out := Outputs{JSON: o.JSON, CSV: o.CSV, HGRM: o.HGRM, Quiet: o.Quiet, Thresholds: ts, JUnit: o.Gate.JUnit}
	return out, err
}

// Parse parses the thresholds and checks that the JUnit path can be written.
func (g Gate) Parse() ([]threshold.Threshold, error) {
	ts, err := threshold.ParseAll(g.Thresholds)
	if err != nil {
		return nil, err
	}
	return ts, CheckPaths(g.JUnit)
}

// Outputs are the result files of a single run.
type Outputs struct {
	// JSON, CSV and HGRM are paths ("" for none; "-" for standard output).
	JSON, CSV, HGRM string
	// Quiet turns the per-second progress lines off.
	Quiet bool
	// Thresholds are checked on the finished run (exit 99 when one
	// fails); JUnit, when set, receives their verdicts as JUnit XML.
	Thresholds []threshold.Threshold
	JUnit      string
}

// WriteFile writes one output through f: to path, or to standard output for "-".
func WriteFile(o harness.IO, path string, f func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	if path == "-" {
		return f(o.Out)
	}
	file, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot write result: %w", err)
	}
	if err := f(file); err != nil {
		file.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return file.Close()
}

// CheckPaths checks, before a run, that each result path can be written:
// its folder exists (tairbench creates none) and the file can be opened
// for writing. "" (none) and "-" (standard output) pass. It leaves no new
// file behind.
func CheckPaths(paths ...string) error {
	for _, p := range paths {
		if p == "" || p == "-" {
			continue
		}
		dir := filepath.Dir(p)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("cannot write %s: the folder %s does not exist (tairbench creates no folders)", p, dir)
		}
		_, statErr := os.Stat(p)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", p, err)
		}
		_ = f.Close()
		if os.IsNotExist(statErr) {
			_ = os.Remove(p)
		}
	}
	return nil
}

// WriteDocument writes a result document (a suite, a comparison, tables) as JSON.
func WriteDocument(o harness.IO, path string, v any) error {
	if err := WriteFile(o, path, func(w io.Writer) error { return result.EncodeJSON(w, v) }); err != nil {
		return err
	}
	if path != "" && path != "-" {
		fmt.Fprintf(o.Err, "result written to %s\n", path)
	}
	return nil
}

// WriteOutputs writes the result files of one run, and hands the run to
// the document sinks ctx carries; h is its latency histogram
// (run.LatencyHistogram), for the .hgrm file.
func WriteOutputs(ctx context.Context, o harness.IO, run *result.Run, h *hdr.Histogram, out Outputs) error {
	if err := WriteFile(o, out.JSON, func(w io.Writer) error { return report.JSON(w, run) }); err != nil {
		return err
	}
	if err := handDocument(ctx, run); err != nil {
		return err
	}
	if err := WriteFile(o, out.CSV, func(w io.Writer) error { return report.CSV(w, run) }); err != nil {
		return err
	}
	if h != nil {
		return WriteFile(o, out.HGRM, func(w io.Writer) error { return report.HGRM(w, h) })
	}
	return nil
}

// SummaryTo is where the human summary goes: standard output, or standard
// error when the JSON result goes to standard output (--json -).
func SummaryTo(o harness.IO, jsonPath string) io.Writer {
	if jsonPath == "-" {
		return o.Err
	}
	return o.Out
}

// Finish prints the summary, checks the thresholds, writes the result
// files and picks the exit code: 3 for a failed run, 99 for a failed
// threshold.
func Finish(ctx context.Context, o harness.IO, run *result.Run, out Outputs, allowErrors bool) error {
	h, err := run.LatencyHistogram()
	if err != nil {
		return fmt.Errorf("the run's latency: %w", err)
	}
	ts := out.Thresholds
	if run.Ledger != nil && !slices.ContainsFunc(ts, func(t threshold.Threshold) bool { return t.Metric == "lost_writes" }) {
		lost, _ := threshold.Parse(threshold.LostWrites)
		ts = append(slices.Clip(ts), lost)
	}
	if len(ts) > 0 {
		run.Thresholds = threshold.Evaluate(ts, run)
	}
	summary := SummaryTo(o, out.JSON)
	if err := report.Text(summary, run, h); err != nil {
		return err
	}
	threshold.Write(summary, run.Thresholds)
	if err := WriteOutputs(ctx, o, run, h, out); err != nil {
		return err
	}
	if err := WriteJUnit(o, out.JUnit, run.Name, run.Thresholds); err != nil {
		return err
	}
	if why := report.FailureReason(run); why != "" && !allowErrors {
		return harness.RunFailed(fmt.Errorf("%s (use --allow-errors to exit 0)", why))
	}
	return ThresholdsFailed(run.Thresholds)
}

// WriteJUnit writes threshold verdicts as JUnit XML to path ("" none).
func WriteJUnit(o harness.IO, path, name string, vs []result.ThresholdVerdict) error {
	if name == "" {
		name = "thresholds"
	}
	return WriteFile(o, path, func(w io.Writer) error { return threshold.WriteJUnit(w, name, vs) })
}

// ThresholdsFailed is exit status 99 naming the failed thresholds, or nil.
func ThresholdsFailed(vs []result.ThresholdVerdict) error {
	var failed []string
	for _, v := range vs {
		if !v.Pass {
			failed = append(failed, v.Threshold)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return &harness.ExitError{Code: harness.ExitThreshold, Err: fmt.Errorf("threshold failed: %s", strings.Join(failed, ", "))}
}

// AbortOnFail wraps a progress callback so that the first live threshold
// failure (threshold.Live) calls stop once, with the reason.
func AbortOnFail(ts []threshold.Threshold, next func(stats.Progress), stop func(why string)) func(stats.Progress) {
	done := false
	return func(p stats.Progress) {
		if next != nil {
			next(p)
		}
		if done {
			return
		}
		if why := threshold.Live(ts, p, p.TotalOps); why != "" {
			done = true
			stop(why)
		}
	}
}

// SecondLabel names second n of a run's series (result.Interval.Second)
// as its span, the way the report names silent seconds: "   3-4s".
func SecondLabel(n int) string { return fmt.Sprintf("%4d-%ds", n, n+1) }

// ProgressWithTail prints one line per second on standard error, and
// returns the function that, after the run,
// prints the seconds of its result that no tick printed (the last,
// partial second), so that the lines hold every second the JSON does.
// Open-loop lines give p99 from the intended start beside the service p99.
func ProgressWithTail(o harness.IO) (func(stats.Progress), func(*result.Run)) {
	printed := -1
	line := func(iv result.Interval, total int64) {
		lat := "  no reply in this second      "
		switch {
		case iv.MeanUS != nil && iv.CorrectedP99US != nil:
			lat = fmt.Sprintf("  p99 %7.3f ms from the intended start (service p99 %7.3f ms)", *iv.CorrectedP99US/1000, *iv.P99US/1000)
		case iv.MeanUS != nil:
			lat = fmt.Sprintf("  avg %7.3f ms  p99 %7.3f ms", *iv.MeanUS/1000, *iv.P99US/1000)
		case iv.Ops > 0:
			lat = "  replies, no latency recorded in it"
		}
		conn := ""
		if iv.TransportErrors > 0 || iv.ConnectFailures > 0 {
			conn = fmt.Sprintf("  lost requests %d, failed connects %d", iv.TransportErrors, iv.ConnectFailures)
		}
		rate := fmt.Sprintf("%10.0f ops/s", iv.OpsPerSec)
		if iv.SpanS > 0 { // the run ended inside this second: say over how long
			rate = fmt.Sprintf("%d ops in %.2f s (%.0f/s)", iv.Ops, iv.SpanS, iv.OpsPerSec)
		}
		fmt.Fprintf(o.Err, "[%s] %s%s  errors %d (total %d)%s\n", SecondLabel(iv.Second), rate, lat, iv.Errors, total, conn)
		printed = iv.Second
	}
	tick := func(p stats.Progress) { line(p.Interval, p.Errors) }
	tail := func(r *result.Run) {
		if r == nil {
			return
		}
		var total int64
		for _, iv := range r.Series {
			total += iv.Errors
			if iv.Second > printed {
				line(iv, total)
			}
		}
	}
	return tick, tail
}

// OwnLine is tairbench's line after a peer tool's report: what was
// counted, the errors and the warnings (to standard error with csv, so
// that a CSV report stays CSV).
func OwnLine(out, errOut io.Writer, csv bool, run *result.Run) {
	t := run.Totals
	w := out
	if csv {
		w = errOut
	}
	who := "client"
	if run.Client.InProcessServer {
		who = "client and embedded server"
	}
	fmt.Fprintf(w, "tairbench: %s: %d commands in %d requests, %d errors, %.0f commands/s, %s %.2f µs CPU per command",
		run.Name, t.Ops, t.Requests, t.Errors, t.OpsPerSec, who, run.Client.CPUPerOpUS)
	if rc := reconciliation(run); rc != "" {
		fmt.Fprintf(w, ", %s", rc)
	}
	fmt.Fprintln(w)
	if tg := run.Config.Target; tg != nil && tg.NotTair() { // the peer's own table cannot say so
		fmt.Fprintf(w, "tairbench: target %s\n", report.TargetLine(tg))
	}
	if c := run.Cluster; c != nil {
		fmt.Fprintf(w, "tairbench: cluster: %s", report.Routing(c))
		if reconciliation(run) == "" {
			fmt.Fprint(w, " (the nodes' own command counts are not checked against the client's)")
		}
		fmt.Fprintln(w)
	}
	for _, e := range run.Errors {
		fmt.Fprintf(w, "tairbench:   %d × %s: %s\n", e.Count, e.Kind, e.Message)
	}
	var b strings.Builder
	report.WriteWarnings(&b, run.Warnings)
	fmt.Fprint(w, b.String())
	if !csv {
		fmt.Fprintln(w)
	}
}

func reconciliation(run *result.Run) string {
	if run.Server == nil || run.Server.Reconciliation == nil {
		return ""
	}
	rc := run.Server.Reconciliation
	if rc.Match {
		return fmt.Sprintf("server counted %d: match", rc.Server)
	}
	if rc.Explained {
		return fmt.Sprintf("server counted %d, client %d: the server ran %d commands whose replies were lost", rc.Server, rc.Client, rc.Server-rc.Client)
	}
	if !rc.Complete {
		return fmt.Sprintf("server counted at least %d, client %d: INCOMPLETE (%s)", rc.Server, rc.Client, strings.Join(rc.Causes, "; "))
	}
	return fmt.Sprintf("server counted %d, client %d: MISMATCH", rc.Server, rc.Client)
}

// WriteHDRFiles writes each operation type's and the total latency
// distribution (.hgrm, microseconds) as PREFIX_TYPE.hgrm.
func WriteHDRFiles(o harness.IO, prefix string, run *result.Run) error {
	hist, err := run.LatencyHistogram()
	if err != nil {
		return fmt.Errorf("the run's latency: %w", err)
	}
	for _, op := range run.Operations {
		h, err := hdr.Decode([]byte(op.Histogram))
		if err != nil || op.Histogram == "" {
			continue
		}
		if err := WriteFile(o, prefix+"_"+op.Name+".hgrm", func(w io.Writer) error { return report.HGRM(w, h) }); err != nil {
			return err
		}
	}
	return WriteFile(o, prefix+"_TOTALS.hgrm", func(w io.Writer) error { return report.HGRM(w, hist) })
}

// SearchCapacity runs a capacity search over mk's spec, prints its summary
// and writes its document (tairbench.capacity/v1) to jsonPath.
func SearchCapacity(ctx context.Context, o harness.IO, opts capacity.Options, jsonPath string, mk capacity.MakeSpec) error {
	return SearchCapacityAt(ctx, o, opts, jsonPath, capacity.SpecRuns(mk))
}

// SearchCapacityAt is SearchCapacity with each step run by at.
func SearchCapacityAt(ctx context.Context, o harness.IO, opts capacity.Options, jsonPath string, at capacity.RunAt) error {
	opts.Log, opts.Version = o.Err, o.Version
	c, err := capacity.Search(ctx, opts, at)
	if c != nil && len(c.Steps) > 0 {
		if werr := capacity.WriteSummary(SummaryTo(o, jsonPath), c); werr != nil {
			return werr
		}
		if werr := Publish(ctx, o, jsonPath, c); werr != nil {
			return werr
		}
	}
	if err != nil {
		return err
	}
	if c.Unstable {
		return harness.RunFailed(fmt.Errorf("no stable answer for %s: %s", c.SLO, c.UnstableWhy))
	}
	if c.HighestHeld == 0 {
		return harness.RunFailed(fmt.Errorf("no rate tried held %s", c.SLO))
	}
	return nil
}
