package redisbenchmark

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// Run runs the parsed command line's tests (args is the command line as
// given, kept in the result document with its password hidden), prints
// redis-benchmark's report of each and tairbench's own line, and writes the
// document to -json. A test whose run failed makes the error exit status 3,
// after every test has run.
func Run(ctx context.Context, o Options, args []string, io harness.IO) (*result.Compat, error) {
	return output.Around(ctx, io, o.Sinks, func(ctx context.Context) (*result.Compat, error) {
		return run1(ctx, o, args, io)
	})
}

func run1(ctx context.Context, o Options, args []string, io harness.IO) (*result.Compat, error) {
	if err := output.CheckPaths(o.JSON); err != nil {
		return nil, err
	}
	if err := readStdinArg(&o, io.In); err != nil {
		return nil, err
	}
	o.Seed = harness.SeedOrNew(o.Seed)
	tests, err := o.Tests()
	if err != nil {
		return nil, err
	}
	if o.DryRun {
		return nil, dryRun(o, tests, io)
	}
	tg, err := o.Target()
	tg, stop, err := target.Embed(io, tg, err, o.Embedded)
	if err != nil {
		return nil, err
	}
	defer stop()
	hc := hostConfig(ctx, tg)
	doc := &result.Compat{Header: result.NewHeader(result.SchemaCompat, io.Version), Tool: "redis-benchmark",
		Args: RedactedArgs(args)}
	out := output.SummaryTo(io, o.JSON)
	if o.CSV {
		fmt.Fprintln(out, CSVHeader)
	}
	var failed []string
	for {
		for _, t := range tests {
			r, err := runTest(ctx, o, t, tg, io)
			if err != nil {
				return doc, err
			}
			doc.Tests = append(doc.Tests, result.CompatTest{Name: t.Name, Run: r})
			if err := Report(out, o, t.Name, r, hc); err != nil {
				return doc, err
			}
			output.OwnLine(out, io.Err, o.CSV, r)
			if why := report.FailureReason(r); why != "" {
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
	if err := output.Publish(ctx, io, o.JSON, doc); err != nil {
		return doc, err
	}
	if len(failed) > 0 {
		return doc, harness.RunFailed(errors.New(strings.Join(failed, "; ")))
	}
	return doc, nil
}

// readStdinArg appends standard input to the command as its last argument (-x).
func readStdinArg(o *Options, in io.Reader) error {
	if !o.StdinArg {
		return nil
	}
	if len(o.Command) == 0 {
		return errors.New("-x needs a command after the options")
	}
	b, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("-x: %w", err)
	}
	o.Command = append(o.Command, string(b))
	return nil
}

// runTest runs one test through the engine.
// dryRun prints every test as it would run.
func dryRun(o Options, tests []Test, io harness.IO) error {
	tg, err := o.Target()
	if err != nil {
		return err
	}
	p := harness.NewPlan(io.Out, "tairbench redis-benchmark")
	for _, t := range tests {
		spec, err := o.Spec(t, io.Version, tg, nil)
		if err != nil {
			return err
		}
		p.Run(t.Name, spec.Command, target.Dry(tg.Addr, o.Embedded), spec.Engine)
	}
	if o.Loop {
		p.Note("-l: the tests repeat until interrupted")
	}
	p.Close()
	return nil
}

func runTest(ctx context.Context, o Options, t Test, tg endpoint.Target, io harness.IO) (*result.Run, error) {
	var progress func(stats.Progress)
	if !o.Quiet && !o.CSV {
		progress = benchmarkProgress(io.Err, t.Name)
	}
	spec, err := o.Spec(t, io.Version, tg, progress)
	if err != nil {
		return nil, err
	}
	spec.Log = io.Err
	r, err := run.Run(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("test %s: %w", t.Name, err)
	}
	return r, nil
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
func hostConfig(ctx context.Context, t endpoint.Target) HostConfig {
	var hc HostConfig
	if t.Cluster {
		return hc
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := transport.NewClient(ctx, t, 1)
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
