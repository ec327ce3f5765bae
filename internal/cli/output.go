package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// writeFile writes one output through f: to path, or to standard output for "-".
func writeFile(a *app, path string, f func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	if path == "-" {
		return f(a.Out)
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("cannot write result: %w", err)
		}
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

// writeDocument writes a result document (a suite, a comparison, tables) as JSON.
func writeDocument(a *app, path string, v any) error {
	if err := writeFile(a, path, func(w io.Writer) error { return result.EncodeJSON(w, v) }); err != nil {
		return err
	}
	if path != "" && path != "-" {
		fmt.Fprintf(a.Err, "result written to %s\n", path)
	}
	return nil
}

// writeOutputs writes the result files of one run.
func writeOutputs(a *app, run *result.Run, h *hdr.Histogram, out *outputFlags) error {
	if err := writeFile(a, out.json, func(w io.Writer) error { return report.JSON(w, run) }); err != nil {
		return err
	}
	if err := writeFile(a, out.csv, func(w io.Writer) error { return report.CSV(w, run) }); err != nil {
		return err
	}
	if h != nil {
		return writeFile(a, out.hgrm, func(w io.Writer) error { return report.HGRM(w, h) })
	}
	return nil
}

// summaryTo is where the human summary goes: standard output, or standard
// error when the JSON result goes to standard output (--json -).
func summaryTo(a *app, jsonPath string) io.Writer {
	if jsonPath == "-" {
		return a.Err
	}
	return a.Out
}

// finish prints the summary, writes the result files and picks the exit code.
func finish(a *app, run *result.Run, h *hdr.Histogram, out *outputFlags, allowErrors bool) error {
	if err := report.Text(summaryTo(a, out.json), run, h); err != nil {
		return err
	}
	if err := writeOutputs(a, run, h, out); err != nil {
		return err
	}
	if why := report.FailureReason(run); why != "" && !allowErrors {
		return &ExitError{Code: ExitRunFailed, Err: fmt.Errorf("%s (use --allow-errors to exit 0)", why)}
	}
	return nil
}

// progressPrinter prints one line per second on standard error.
func progressPrinter(a *app) func(stats.Progress) {
	return func(p stats.Progress) {
		iv := p.Interval
		lat := "  no reply in this second      "
		if iv.MeanUS != nil {
			lat = fmt.Sprintf("  avg %7.3f ms  p99 %7.3f ms", *iv.MeanUS/1000, *iv.P99US/1000)
		}
		conn := ""
		if iv.TransportErrors > 0 || iv.ConnectFailures > 0 {
			conn = fmt.Sprintf("  lost requests %d, failed connects %d", iv.TransportErrors, iv.ConnectFailures)
		}
		fmt.Fprintf(a.Err, "[%4.0fs] %10.0f ops/s%s  errors %d (total %d)%s\n",
			p.Elapsed.Seconds(), iv.OpsPerSec, lat, iv.Errors, p.Errors, conn)
	}
}
