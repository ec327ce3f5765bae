package ycsb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/run/capacity"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// dryRun prints the phase as it would run.
func dryRun(c *Command, wl *Workload, args []string, io harness.IO) error {
	tg, err := c.Target()
	if err != nil {
		return err
	}
	p := harness.NewPlan(io.Out, "tairbench ycsb "+c.Phase)
	spec := RunSpec(c, wl, NewFactory(tg, wl, c.Phase == "load"), tg, max(c.Seed, 1), io.Version, nil)
	p.Run(c.Phase, "ycsb "+strings.Join(workloadArgs(redactYCSB(args)), " "), target.Dry(tg.Addr, c.Embedded), spec.Engine)
	p.Close()
	return nil
}

// Run runs the parsed command line (args as given, kept in the result with
// redis.password hidden): YCSB's report, tairbench's line and its document;
// with --slo, a capacity search of the run phase instead.
func Run(ctx context.Context, c *Command, args []string, io harness.IO) (*result.Compat, error) {
	return output.Around(ctx, io, c.Sinks, func(ctx context.Context) (*result.Compat, error) {
		return run1(ctx, c, args, io)
	})
}

func run1(ctx context.Context, c *Command, args []string, io harness.IO) (*result.Compat, error) {
	if err := output.CheckPaths(c.JSON); err != nil {
		return nil, err
	}
	shard, err := harness.ParseShard(c.Shard, c.StartAt)
	if err != nil {
		return nil, err
	}
	c.ShardIndex, c.Shards = shard.I, shard.N
	wl, err := c.Workload()
	if err != nil {
		return nil, err
	}
	if c.DryRun {
		return nil, dryRun(c, wl, args, io)
	}
	tg, err := c.Target()
	tg, stop, err := target.Embed(io, tg, err, c.Embedded)
	if err != nil {
		return nil, err
	}
	defer stop()
	var progress func(stats.Progress)
	f := NewFactory(tg, wl, c.Phase == "load")
	if c.Status {
		progress = Status(io.Err, f.OpNames())
	}
	seed := shard.Seed(harness.SeedOrNew(c.Seed))
	build := func(f *Factory) run.Spec {
		spec := RunSpec(c, wl, f, tg, seed, io.Version, progress)
		spec.Engine.StartAt = shard.StartAt
		shard.Record(&spec.Config)
		spec.Command = "ycsb " + strings.Join(workloadArgs(redactYCSB(args)), " ")
		spec.Log = io.Err
		return spec
	}
	spec := build(f)
	if c.SLO.Given() {
		return nil, capacitySearch(ctx, io, c, wl, spec, func() (run.Spec, error) { return build(NewFactory(tg, wl, false)), nil })
	}
	fmt.Fprintf(io.Err, "YCSB %s, %s, %d threads against %s; properties from %s\n", c.Phase, spec.Config.Mode, wl.Threads, tg.Addr,
		strings.Join(c.Sources, ", "))
	r, err := run.Run(ctx, spec)
	if err != nil {
		return nil, err
	}
	out := output.SummaryTo(io, c.JSON)
	if err := Report(out, r, f.OpNames()); err != nil {
		return nil, err
	}
	fmt.Fprintln(out)
	output.OwnLine(out, io.Err, false, r)
	doc := &result.Compat{Header: result.NewHeader(result.SchemaCompat, io.Version), Tool: "ycsb",
		Args: redactYCSB(args), Tests: []result.CompatTest{{Name: c.Phase, Run: r}}}
	if err := output.Publish(ctx, io, c.JSON, doc); err != nil {
		return doc, err
	}
	if why := report.FailureReason(r); why != "" {
		return doc, harness.RunFailed(errors.New(why))
	}
	return doc, nil
}

// capacitySearch searches the highest -target at which the run phase meets
// --slo; -target, if given, is the first rate tried unless --slo-start says
// otherwise. Each step gets a fresh factory (its own insert sequence).
func capacitySearch(ctx context.Context, io harness.IO, c *Command, wl *Workload, first run.Spec, mk capacity.MakeSpec) error {
	opts, err := c.SLO.Options()
	if err != nil {
		return err
	}
	if wl.Target > 0 && !c.SLO.StartGiven() {
		opts.Start = wl.Target
	}
	fmt.Fprintf(io.Err, "YCSB run, %s, %d threads against %s; capacity search for %s from %.0f operations/s\n",
		first.Config.Mode, wl.Threads, first.Config.Target.Addr, opts.SLO, opts.Start)
	return output.SearchCapacity(ctx, io, opts, c.JSON, mk)
}

// workloadArgs drops tairbench's own options (a client's shard, start,
// output and seed, as --NAME or -p tairbench.NAME=), leaving the workload, so that clients' results merge.
func workloadArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		var own common.Options
		if n, _ := own.Take(args, i); n > 0 {
			i += n - 1
			continue
		}
		switch args[i] {
		case "--shard", "--start-at":
			i++
			continue
		case "--allow-unknown-properties":
			continue
		case "-p":
			if i+1 < len(args) && strings.HasPrefix(strings.TrimSpace(args[i+1]), "tairbench.") {
				i++
				continue
			}
		}
		out = append(out, args[i])
	}
	return out
}

// redactYCSB hides redis.password values.
func redactYCSB(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if k, v, ok := strings.Cut(a, "="); ok && strings.TrimSpace(k) == "redis.password" {
			out[i] = k + "=" + endpoint.RedactAuth(v)
		}
	}
	return out
}
