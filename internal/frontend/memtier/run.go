package memtier

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// dryRun prints the run as it would go.
func dryRun(o Options, io harness.IO) error {
	tg, err := o.Target()
	if err != nil {
		return err
	}
	p := harness.NewPlan(io.Out, "tairbench memtier")
	spec, err := o.RunSpec("memtier", io.Version, tg, max(o.Seed, 1), nil)
	if err != nil {
		return err
	}
	if o.SLO.Given() {
		p.Note("a capacity search (--slo): open-loop steps at rates it chooses; the first below")
	}
	p.Run("memtier", spec.Command, target.Dry(tg.Addr, o.Embedded), spec.Engine)
	p.Close()
	return nil
}

// Run runs the parsed command line (args as given, kept in the result with
// its password hidden): memtier's ALL STATS table and JSON, tairbench's
// line, the .hgrm files and tairbench's own document; with --slo, a
// capacity search instead; with MetricsAddr, live metrics too.
func Run(ctx context.Context, o Options, args []string, io harness.IO) (*result.Compat, error) {
	return output.Around(ctx, io, o.Sinks, func(ctx context.Context) (*result.Compat, error) {
		return run1(ctx, o, args, io)
	})
}

func run1(ctx context.Context, o Options, args []string, io harness.IO) (*result.Compat, error) {
	if err := output.CheckPaths(o.JSON, o.JSONOut, hdrPath(o.HDRPrefix)); err != nil {
		return nil, err
	}
	if o.DryRun {
		return nil, dryRun(o, io)
	}
	tg, err := o.Target()
	tg, stop, err := target.Embed(io, tg, err, o.Embedded)
	if err != nil {
		return nil, err
	}
	defer stop()
	seed := o.Seed
	if seed == 0 || o.Randomize {
		seed = engine.NewSeed()
	}
	if o.SLO.Given() {
		return nil, capacitySearch(ctx, io, o, tg, seed)
	}
	progress := memtierProgress(io.Err, o.Threads, time.Duration(o.TestTime)*time.Second, o.PerClient()*int64(o.Connections()))
	spec, err := o.RunSpec("memtier", io.Version, tg, seed, progress)
	if err != nil {
		return nil, err
	}
	spec.Log = io.Err
	conns := fmt.Sprintf("%d connections", o.Clients)
	if o.ClusterMode {
		conns = fmt.Sprintf("%d clients (a cluster: each client has a connection to every node)", o.Clients)
	}
	fmt.Fprintf(io.Err, "tairbench memtier → %s: %d threads × %s, %s, seed %d\n", tg.Addr, o.Threads, conns, spec.Config.Mode, seed)
	r, err := run.Run(ctx, spec)
	if err != nil {
		return nil, err
	}
	out := output.SummaryTo(io, o.JSON)
	if err := Table(out, o, r); err != nil {
		return nil, err
	}
	fmt.Fprintln(out)
	output.OwnLine(out, io.Err, false, r)
	if o.JSONOut != "" {
		doc, err := JSON(o, args, r)
		if err != nil {
			return nil, err
		}
		if err := output.WriteDocument(io, o.JSONOut, doc); err != nil {
			return nil, err
		}
	}
	if o.HDRPrefix != "" {
		if err := output.WriteHDRFiles(io, o.HDRPrefix, r); err != nil {
			return nil, err
		}
	}
	doc := &result.Compat{Header: result.NewHeader(result.SchemaCompat, io.Version), Tool: "memtier_benchmark",
		Args: RedactedArgs(args), Tests: []result.CompatTest{{Name: "ALL STATS", Run: r}}}
	if err := output.Publish(ctx, io, o.JSON, doc); err != nil {
		return doc, err
	}
	if why := report.FailureReason(r); why != "" {
		return doc, harness.RunFailed(errors.New(why))
	}
	return doc, nil
}

// capacitySearch searches the highest rate at which the memtier line meets
// --slo; --rate-limiting, if given, is the first rate tried (per
// connection, as memtier counts it) unless --slo-start says otherwise.
func capacitySearch(ctx context.Context, io harness.IO, o Options, tg endpoint.Target, seed uint64) error {
	opts, err := o.SLO.Options()
	if err != nil {
		return err
	}
	if o.RateLimiting > 0 && !o.SLO.StartGiven() {
		opts.Start = float64(o.RateLimiting * o.Connections())
	}
	mk := func() (run.Spec, error) {
		spec, err := o.RunSpec("memtier", io.Version, tg, seed, nil)
		spec.Log = io.Err
		return spec, err
	}
	spec, err := mk()
	if err != nil {
		return err
	}
	fmt.Fprintf(io.Err, "tairbench memtier → %s: %d threads × %d connections, %s, seed %d, capacity search for %s from %.0f requests/s\n",
		tg.Addr, o.Threads, o.Clients, spec.Config.Mode, seed, opts.SLO, opts.Start)
	return output.SearchCapacity(ctx, io, opts, o.JSON, mk)
}

// memtierProgress prints memtier's per-second line on standard error.
func memtierProgress(w io.Writer, threads int, duration time.Duration, all int64) func(stats.Progress) {
	return func(p stats.Progress) {
		iv := p.Interval
		pct := ""
		if duration > 0 {
			pct = fmt.Sprintf("%.0f%%, ", 100*p.Elapsed.Seconds()/duration.Seconds())
		} else if all > 0 {
			pct = fmt.Sprintf("%.0f%%, ", 100*float64(p.TotalOps)/float64(all))
		}
		lat := "-"
		if iv.MeanUS != nil {
			lat = fmt.Sprintf("%.3f", *iv.MeanUS/1000)
		}
		fmt.Fprintf(w, "[RUN #1 %s%.0f secs] %d threads: %d ops, %.0f (avg: %.0f) ops/sec, %s (avg: %.3f) msec latency\n",
			pct, p.Elapsed.Seconds(), threads, p.TotalOps, iv.OpsPerSec, p.OpsPerSec, lat, p.MeanUS/1000)
	}
}

// hdrPath is a file the --hdr-file-prefix will write (its folder is what
// CheckPaths checks).
func hdrPath(prefix string) string {
	if prefix == "" {
		return ""
	}
	return prefix + "_TOTALS.hgrm"
}
