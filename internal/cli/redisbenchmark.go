package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/redisbenchmark"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

func newRedisBenchmarkCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "redis-benchmark [OPTIONS] [COMMAND ARGS...]",
		Short: "Run a redis-benchmark command line through tairbench's engine, with redis-benchmark's report",
		Long: `Takes redis-benchmark's command line as is (change only the program name) and
prints redis-benchmark's report for each test, then tairbench's own line with
the errors and warnings redis-benchmark does not show.

` + redisbenchmark.Usage,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			return runRedisBenchmark(c.Context(), args, a, os.Stdin)
		},
	}
}

func runRedisBenchmark(ctx context.Context, args []string, a *app, stdin io.Reader) error {
	o, err := redisbenchmark.Parse(args, a.Err)
	if errors.Is(err, redisbenchmark.ErrHelp) {
		_, err = fmt.Fprintln(a.Out, redisbenchmark.Usage)
		return err
	}
	if err != nil {
		return err
	}
	if o.StdinArg {
		if len(o.Command) == 0 {
			return errors.New("-x needs a command after the options")
		}
		in, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("-x: %w", err)
		}
		o.Command = append(o.Command, string(in))
	}
	o.Seed = seedOrNew(o.Seed)
	tests, err := o.Tests()
	if err != nil {
		return err
	}
	tg, err := o.Target()
	tg, stop, err := frontEndTarget(a, tg, err, o.Embedded)
	if err != nil {
		return err
	}
	defer stop()
	hc := hostConfig(ctx, tg)
	doc := &result.Compat{Header: result.NewHeader(result.SchemaCompat, a.version), Tool: "redis-benchmark",
		Args: redisbenchmark.RedactedArgs(args)}
	out := summaryTo(a, o.JSON)
	if o.CSV {
		fmt.Fprintln(out, redisbenchmark.CSVHeader)
	}
	var failed []string
	for {
		for _, t := range tests {
			var progress func(stats.Progress)
			if !o.Quiet && !o.CSV {
				progress = benchmarkProgress(a.Err, t.Name)
			}
			spec, err := o.Spec(t, a.version, tg, progress)
			if err != nil {
				return err
			}
			spec.Log = a.Err
			run, hist, err := run.Run(ctx, spec)
			if err != nil {
				return fmt.Errorf("test %s: %w", t.Name, err)
			}
			doc.Tests = append(doc.Tests, result.CompatTest{Name: t.Name, Run: run})
			if err := redisbenchmark.Report(out, o, t.Name, run, hist, hc); err != nil {
				return err
			}
			ownLine(out, a.Err, o.CSV, run)
			if why := report.FailureReason(run); why != "" {
				failed = append(failed, t.Name+": "+why)
			}
			if ctx.Err() != nil {
				break
			}
		}
		if !o.Loop || ctx.Err() != nil {
			break
		}
	}
	if err := writeDocument(a, o.JSON, doc); err != nil {
		return err
	}
	if len(failed) > 0 {
		return &ExitError{Code: ExitRunFailed, Err: errors.New(strings.Join(failed, "; "))}
	}
	return nil
}

// ownLine is tairbench's line after redis-benchmark's report: what was
// counted, the errors and the warnings (to standard error with --csv, so
// that the CSV stays CSV).
func ownLine(out, errOut io.Writer, csv bool, run *result.Run) {
	t := run.Totals
	w := out
	if csv {
		w = errOut
	}
	fmt.Fprintf(w, "tairbench: %s: %d commands in %d requests, %d errors, %.0f commands/s, client %.2f µs CPU per command",
		run.Name, t.Ops, t.Requests, t.Errors, t.OpsPerSec, run.Client.CPUPerOpUS)
	if rc := reconciliation(run); rc != "" {
		fmt.Fprintf(w, ", %s", rc)
	}
	fmt.Fprintln(w)
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
	return fmt.Sprintf("server counted %d, client %d: MISMATCH", rc.Server, rc.Client)
}

// benchmarkProgress prints redis-benchmark's per-second line on standard error.
func benchmarkProgress(w io.Writer, name string) func(stats.Progress) {
	return func(p stats.Progress) {
		iv := p.Interval
		avg := "-nan"
		if iv.MeanUS != nil {
			avg = fmt.Sprintf("%.3f", *iv.MeanUS/1000)
		}
		fmt.Fprintf(w, "%s: rps=%.1f (overall: %.1f) avg_msec=%s (overall: %.3f)\n", name, iv.OpsPerSec, p.OpsPerSec, avg, p.MeanUS/1000)
	}
}

// hostConfig reads the server's "save" and "appendonly" settings as
// redis-benchmark prints them; a server that refuses CONFIG GET (a cloud
// proxy, the embedded server) gets no such lines.
func hostConfig(ctx context.Context, t endpoint.Target) redisbenchmark.HostConfig {
	var hc redisbenchmark.HostConfig
	if t.Cluster {
		return hc
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := redis.NewClient(ctx, t, 1)
	if err != nil {
		return hc
	}
	defer c.Close()
	for name, dst := range map[string]**string{"save": &hc.Save, "appendonly": &hc.AppendOnly} {
		if m, err := c.ConfigGet(ctx, name).Result(); err == nil {
			if v, ok := m[name]; ok {
				*dst = &v
			}
		}
	}
	return hc
}
