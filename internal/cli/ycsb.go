package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/ycsb"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/run/capacity"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

func newYCSBCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "ycsb load|run redis [-s] -P workloads/workloadX [-p name=value]... [-threads N] [-target N]",
		Short: "Run a YCSB command line (the Redis binding with redis.command_group) through tairbench's engine",
		Long: `Takes YCSB's command line after "ycsb" as is: workloads/workloada … workloadf are
YCSB's core workloads, built in (a properties file at that path is read
instead), -p properties override them. Keys, operation mix and request
distributions are YCSB's; redis.command_group picks the data structure
(string, hash, list, set, zset) as the whitepaper's Redis binding does.
Prints YCSB's report, then tairbench's line with errors and warnings.
tairbench's own options: --embedded, --json FILE, --seed N.`,
		DisableFlagParsing: true,
		RunE:               func(c *cobra.Command, args []string) error { return runYCSB(c.Context(), args, a) },
	}
}

func runYCSB(ctx context.Context, args []string, a *app) error {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
		_, err := fmt.Fprintln(a.Out, "usage: tairbench ycsb load|run redis [-s] -P workloads/workloadX [-p name=value]... [-threads N] [-target N]")
		return err
	}
	c, err := ycsb.Parse(args)
	if err != nil {
		return err
	}
	dist := distFlags{shard: c.Shard, startAt: c.StartAt}
	shard, shards, startAt, err := dist.parse()
	if err != nil {
		return err
	}
	c.ShardIndex, c.Shards = shard, shards
	wl, err := c.Workload()
	if err != nil {
		return err
	}
	tg, err := c.Target()
	tg, stop, err := frontEndTarget(a, tg, err, c.Embedded)
	if err != nil {
		return err
	}
	defer stop()
	var progress func(stats.Progress)
	f := ycsb.NewFactory(tg, wl, c.Phase == "load")
	if c.Status {
		progress = ycsb.Status(a.Err, f.OpNames())
	}
	seed := shardSeed(seedOrNew(c.Seed), shard, shards)
	build := func(f *ycsb.Factory) run.Spec {
		spec := ycsb.RunSpec(c, wl, f, tg, seed, a.version, progress)
		spec.Engine.StartAt = startAt
		if shards > 1 {
			spec.Config.Shard = fmt.Sprintf("%d/%d", shard, shards)
		}
		spec.Command = "ycsb " + strings.Join(workloadArgs(redactYCSB(args)), " ")
		spec.Log = a.Err
		return spec
	}
	spec := build(f)
	if c.SLO.Given() {
		return ycsbCapacity(ctx, a, c, wl, spec, func() (run.Spec, error) { return build(ycsb.NewFactory(tg, wl, false)), nil })
	}
	fmt.Fprintf(a.Err, "YCSB %s, %s, %d threads against %s; properties from %s\n", c.Phase, spec.Config.Mode, wl.Threads, tg.Addr,
		strings.Join(c.Sources, ", "))
	run, hist, err := run.Run(ctx, spec)
	if err != nil {
		return err
	}
	out := summaryTo(a, c.JSON)
	if err := ycsb.Report(out, run, f.OpNames(), hist); err != nil {
		return err
	}
	fmt.Fprintln(out)
	ownLine(out, a.Err, false, run)
	doc := &result.Compat{Header: result.NewHeader(result.SchemaCompat, a.version), Tool: "ycsb",
		Args: redactYCSB(args), Tests: []result.CompatTest{{Name: c.Phase, Run: run}}}
	if err := writeDocument(a, c.JSON, doc); err != nil {
		return err
	}
	if why := report.FailureReason(run); why != "" {
		return &ExitError{Code: ExitRunFailed, Err: errors.New(why)}
	}
	return nil
}

// ycsbCapacity searches the highest -target at which the run phase meets
// --slo; -target, if given, is the first rate tried unless --slo-start says
// otherwise. Each step gets a fresh factory (its own insert sequence).
func ycsbCapacity(ctx context.Context, a *app, c *ycsb.Command, wl *ycsb.Workload, first run.Spec, mk capacity.MakeSpec) error {
	opts, err := c.SLO.Options()
	if err != nil {
		return err
	}
	if wl.Target > 0 && !c.SLO.StartGiven() {
		opts.Start = wl.Target
	}
	fmt.Fprintf(a.Err, "YCSB run, %s, %d threads against %s; capacity search for %s from %.0f operations/s\n",
		first.Config.Mode, wl.Threads, first.Config.Target.Addr, opts.SLO, opts.Start)
	return searchCapacity(ctx, a, opts, c.JSON, mk)
}

// workloadArgs drops tairbench's own options (a client's shard, start,
// output and seed), leaving the workload, so that clients' results merge.
func workloadArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--shard", "--start-at", "--json", "--seed":
			i++
			continue
		case "--embedded":
			continue
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
