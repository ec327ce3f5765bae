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

// finish prints the summary, writes the result files and picks the exit code.
func finish(a *app, run *result.Run, h *hdr.Histogram, out *outputFlags, allowErrors bool) error {
	if err := report.Text(a.Out, run, h); err != nil {
		return err
	}
	if err := writeOutputs(a, run, h, out); err != nil {
		return err
	}
	if report.Failed(run) && !allowErrors {
		return &ExitError{Code: ExitRunFailed, Err: fmt.Errorf("%.1f%% of commands failed (use --allow-errors to exit 0)", 100*run.Totals.ErrorRate)}
	}
	return nil
}

// progressPrinter prints one line per second on standard error.
func progressPrinter(a *app) func(stats.Progress) {
	return func(p stats.Progress) {
		iv := p.Interval
		fmt.Fprintf(a.Err, "[%4.0fs] %10.0f ops/s  avg %7.3f ms  p99 %7.3f ms  errors %d (total %d)\n",
			p.Elapsed.Seconds(), iv.OpsPerSec, iv.MeanUS/1000, iv.P99US/1000, iv.Errors, p.Errors)
	}
}
