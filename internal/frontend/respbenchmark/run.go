package respbenchmark

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/frontend/tmplrun"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// unbounded is how long a run with neither -n nor -s lasts: until it is
// interrupted, as resp-benchmark's.
const unbounded = 100 * 365 * 24 * time.Hour

// maxAuto is the most connections -c 0 tries (resp-benchmark's limit).
const maxAuto = 1024

// Run runs the parsed command line (args as given, kept in the result
// document with the password hidden): resp-benchmark's report, then
// tairbench's own line, and the document to --json. A run most of whose
// commands failed makes the error exit status 3.
func Run(ctx context.Context, o Options, args []string, io harness.IO) (*result.Compat, error) {
	return output.Around(ctx, io, o.Sinks, func(ctx context.Context) (*result.Compat, error) {
		return run1(ctx, o, args, io)
	})
}

// bench is one command line being run.
type bench struct {
	o    Options
	io   harness.IO
	ts   redis.TemplateSpec
	w    redis.Workload
	tg   endpoint.Target
	out  io.Writer
	sent int64 // commands the connection search sent (they count toward -n)
}

func run1(ctx context.Context, o Options, args []string, hio harness.IO) (*result.Compat, error) {
	if err := output.CheckPaths(o.JSON); err != nil {
		return nil, err
	}
	tmpl, err := Translate(o.Command)
	if err != nil {
		return nil, fmt.Errorf("command %q: %w", o.Command, err)
	}
	o.Seed = harness.SeedOrNew(o.Seed)
	b := &bench{o: o, io: hio, out: output.SummaryTo(hio, o.JSON),
		ts: redis.TemplateSpec{Template: tmpl.Text, Options: tmpl.Options, ServerStats: !o.NoServerStats}}
	if o.Pipeline > 1 {
		b.ts.Pipeline = o.Pipeline
	}
	if b.w, err = b.ts.Workload(); err != nil {
		return nil, fmt.Errorf("command %q: %w", o.Command, err)
	}
	tg, err := o.Endpoint()
	if o.DryRun {
		if err != nil {
			return nil, err
		}
		return nil, b.dryRun(tg)
	}
	tg, stop, err := target.Embed(hio, tg, err, o.Embedded)
	if err != nil {
		return nil, err
	}
	defer stop()
	b.tg = tg
	if o.Cores != "" {
		fmt.Fprintf(hio.Err, "note: --cores %s is not used: tairbench does not pin its threads (run it under taskset to bind it)\n", o.Cores)
	}
	conns := o.Connections
	if conns == 0 {
		if conns, err = b.findConnections(ctx); err != nil {
			return nil, err
		}
	}
	res, err := b.measure(ctx, conns)
	if err != nil {
		return nil, err
	}
	return b.finish(ctx, res, args)
}

// name is the run's name: what resp-benchmark calls the phase.
func (b *bench) name() string {
	if b.o.Load {
		return "load"
	}
	return "bench"
}

// config is the engine's settings for a run of conns connections.
func (b *bench) config(conns int) engine.Config {
	cfg := engine.Config{Workers: conns, Seed: b.o.Seed, Ops: b.o.Requests, Duration: time.Duration(b.o.Seconds) * time.Second}
	if b.o.Requests > 0 {
		cfg.Ops = max(b.o.Requests-b.sent, 1)
	}
	if cfg.Ops == 0 && cfg.Duration == 0 {
		cfg.Duration = unbounded
	}
	if b.o.Target > 0 && !b.o.Load {
		cfg.Rate = float64(b.o.Target)
	}
	return cfg
}

// measure runs the command line's run with conns connections.
func (b *bench) measure(ctx context.Context, conns int) (*result.Run, error) {
	cfg := b.config(conns)
	if !b.o.Quiet {
		cfg.Progress = b.progress(conns)
	}
	spec := tmplrun.FromTemplate(b.ts, b.name(), b.io.Version, b.tg, b.w, cfg)
	res, err := run.Run(ctx, spec)
	return res, err
}

// findConnections is -c 0: closed-loop runs of a second with 1, 2, 4 …
// connections, until the rate grows by less than 30 % (resp-benchmark's
// rule); their commands count toward -n, as resp-benchmark's do.
func (b *bench) findConnections(ctx context.Context) (int, error) {
	best, last := 1, 0.0
	for conns := 1; conns <= maxAuto; conns *= 2 {
		cfg := engine.Config{Workers: conns, Seed: b.o.Seed + uint64(conns), Duration: time.Second}
		if b.o.Requests > 0 {
			if cfg.Ops = b.o.Requests - b.sent; cfg.Ops <= 0 {
				break
			}
		}
		res, err := run.Run(ctx, tmplrun.FromTemplate(b.ts, fmt.Sprintf("connections %d", conns), b.io.Version, b.tg, b.w, cfg))
		if err != nil {
			return 0, fmt.Errorf("finding the connection count (-c 0): %w", err)
		}
		b.sent += res.Totals.Ops
		rate := res.Totals.OpsPerSec
		if !b.o.Quiet {
			fmt.Fprintf(b.io.Err, "finding connections: %d → %.0f commands/s\n", conns, rate)
		}
		if last > 0 && rate < last*1.3 || ctx.Err() != nil {
			break
		}
		best, last = conns, rate
	}
	return best, nil
}

// progress prints one resp-benchmark line a second on standard error.
func (b *bench) progress(conns int) func(stats.Progress) {
	start := time.Now()
	return func(p stats.Progress) {
		iv := p.Interval
		overall := float64(p.TotalOps) / max(time.Since(start).Seconds(), 1e-9)
		if b.o.Load {
			fmt.Fprintf(b.io.Err, "Data loading qps: %.0f, %.2f%%\n", iv.OpsPerSec, float64(p.TotalOps)/float64(b.o.Requests)*100)
			return
		}
		lat := "no data"
		if iv.MeanUS != nil {
			lat = fmt.Sprintf("cnt: %d, avg: %s, p99: %s", p.TotalOps, humanize(*iv.MeanUS), humanize(*iv.P99US))
		}
		fmt.Fprintf(b.io.Err, "qps: %.0f(overall %.0f), conn: %d, %s\n", iv.OpsPerSec, overall, conns, lat)
	}
}

// finish prints the report and tairbench's line and writes the document.
func (b *bench) finish(ctx context.Context, res *result.Run, args []string) (*result.Compat, error) {
	Report(b.out, b.o, res)
	output.OwnLine(b.out, b.io.Err, false, res)
	doc := &result.Compat{Header: result.NewHeader(result.SchemaCompat, b.io.Version), Tool: "resp-benchmark",
		Args: RedactedArgs(args), Tests: []result.CompatTest{{Name: b.name(), Run: res}}}
	if err := output.Publish(ctx, b.io, b.o.JSON, doc); err != nil {
		return doc, err
	}
	if why := report.FailureReason(res); why != "" {
		return doc, harness.RunFailed(errors.New(why))
	}
	return doc, nil
}

// dryRun prints the run as it would go.
func (b *bench) dryRun(tg endpoint.Target) error {
	p := harness.NewPlan(b.io.Out, "tairbench resp-benchmark")
	conns := b.o.Connections
	if conns == 0 {
		p.Note("-c 0: closed-loop runs of 1 s with 1, 2, 4 … connections (at most %d) first, until the rate grows by less than 30 %%", maxAuto)
		conns = 1
	}
	spec := tmplrun.FromTemplate(b.ts, b.name(), b.io.Version, tg, b.w, b.config(conns))
	if spec.Engine.Duration == unbounded {
		spec.Engine.Duration = 0
		p.Note("neither -n nor -s: the run goes on until interrupted")
	}
	p.Run(b.name(), spec.Command, target.Dry(tg.Addr, b.o.Embedded), spec.Engine)
	p.Close()
	return nil
}

// RedactedArgs is the command line with -a's password hidden.
func RedactedArgs(args []string) []string {
	out := append([]string(nil), args...)
	for i := range out {
		switch {
		case out[i] == "-a" && i+1 < len(out):
			out[i+1] = endpoint.RedactAuth(out[i+1])
		case strings.HasPrefix(out[i], "-a") && len(out[i]) > 2:
			out[i] = "-a" + endpoint.RedactAuth(strings.TrimPrefix(out[i][2:], "="))
		}
	}
	return out
}
