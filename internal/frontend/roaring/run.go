package roaring

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// Options are 'tairbench roaring': the cases to run and how. Main
// resolves Server into CaseOptions.Target (Run takes it resolved).
type Options struct {
	CaseOptions
	// Server is the target as the user named it.
	Server target.Options
	// Metrics is the live metrics endpoint around the run.
	Metrics output.Sinks
	// Filter selects cases by pattern (CasesGiven: it was given, so the
	// cluster group is not chosen by the target).
	Filter     string
	CasesGiven bool
	// List prints the cases and their seeds instead of running them.
	List bool
	// Stat, when set, also samples TR.STAT memory after the cases.
	Stat *StatOptions
	// JSON is the suite document's path ("-": standard output).
	JSON string
	// DryRun prints the cases, loads and time and sends nothing.
	DryRun bool
}

// Main resolves the target (starting the embedded server when asked;
// a dry run starts nothing) and runs the suite with the live metrics.
func Main(ctx context.Context, o Options, io harness.IO) error {
	if o.List {
		o.Target.Cluster = o.Server.Cluster
		_, err := Run(ctx, o, io)
		return err
	}
	tg, stop, err := target.Open(io, o.Server, o.DryRun)
	if err != nil {
		return err
	}
	defer stop()
	o.Target = tg
	if o.DryRun {
		_, err = Run(ctx, o, io)
		return err
	}
	return o.Metrics.Run(ctx, io, func(ctx context.Context) error {
		_, err := Run(ctx, o, io)
		return err
	})
}

// StatMain resolves server and samples TR.STAT memory (Stat).
func StatMain(ctx context.Context, o StatOptions, server target.Options, jsonPath string, io harness.IO) error {
	tg, stop, err := target.Resolve(io, server)
	if err != nil {
		return err
	}
	defer stop()
	o.Target = tg
	_, err = Stat(ctx, o, jsonPath, io)
	return err
}

// Run runs the TairRoaring whitepaper's cases, prints their tables beside
// the published figures (and the TR.STAT tables with Stat) and writes the
// suite document; a failed case makes the error exit status 3.
func Run(ctx context.Context, o Options, io harness.IO) (*Suite, error) {
	if err := output.CheckPaths(o.JSON); err != nil {
		return nil, err
	}
	cases, err := Filter(Cases(), o.Filter)
	if err != nil {
		return nil, err
	}
	if !o.CasesGiven && !o.Target.InProcess {
		cases = selectForTarget(cases, o.Target.Cluster)
	}
	if o.List {
		return nil, listCases(io, cases, o.Seed)
	}
	if o.DryRun {
		return nil, dryRun(io, o, cases)
	}
	if o.CaseDuration <= 0 {
		return nil, errors.New("the duration per case must be above 0")
	}
	o.Cases, o.Seed = cases, harness.SeedOrNew(o.Seed)
	o.Flush = o.Flush || o.Target.InProcess
	id, _ := target.Identify(ctx, o.Target) // nil when the target will not say
	o.Label = "TairRoaring whitepaper cases against " + o.Target.Addr
	if o.Target.InProcess || id != nil && id.Embedded {
		o.Label += " (tairbench's embedded server, not Tair: the reference columns are Tair's published figures, for scale only)"
	} else if id != nil {
		o.Label += " (" + strings.TrimPrefix(report.TargetLine(&result.Target{Server: id}), ": ") + ")"
	}
	o.Log, o.Version = io.Err, io.Version
	suite, err := RunCases(ctx, o.CaseOptions)
	if err != nil && suite == nil {
		return nil, err
	}
	suite.Config.Target.Server = id
	if o.Stat != nil && err == nil && ctx.Err() == nil {
		so := *o.Stat
		so.Target, so.Log = o.Target, io.Err
		suite.Stat, err = SampleStat(ctx, so)
	}
	out := output.SummaryTo(io, o.JSON)
	if werr := WriteTables(out, suite, o.Label); werr != nil {
		return suite, werr
	}
	if len(suite.Stat) > 0 {
		_ = WriteStatTables(out, suite.Stat)
	}
	if werr := output.Publish(ctx, io, o.JSON, suite); werr != nil {
		return suite, werr
	}
	if err != nil {
		return suite, err
	}
	if Failed(suite) {
		return suite, harness.RunFailed(errors.New("at least one case failed: see the warnings above"))
	}
	return suite, nil
}

// dryRun prints every load and case the suite would run.
func dryRun(io harness.IO, o Options, cases []Case) error {
	p := harness.NewPlan(io.Out, "tairbench roaring")
	specs := loadSpecs(o.SetOpData)
	loaded := map[string]bool{}
	dry := target.Dry(o.Target.Addr, o.Target.InProcess)
	for _, c := range cases {
		if c.Load != "" && !loaded[c.Load] {
			loaded[c.Load] = true
			p.Load(c.Load, specs[c.Load].desc, specs[c.Load].commands)
		}
		cfg := engine.Config{Workers: c.Parallel, Duration: o.CaseDuration, OpsPerRequest: max(c.Batching, 1)}
		if o.SLO != nil {
			cfg.Duration, cfg.Warmup, cfg.Rate = o.SLO.Window, o.SLO.Warmup, o.SLO.Start
			p.Search(c.ID, o.SLO.SLO.String(), c.Template, dry, cfg, o.SLO.MostRuns())
			continue
		}
		p.Run(c.ID, c.Template, dry, cfg)
	}
	if o.Stat != nil {
		p.Note("then TR.STAT sampling: %v, %d steps up to %d bits below %d", o.Stat.Distributions, o.Stat.Steps, o.Stat.MaxCard, o.Stat.Universe)
	}
	p.Close()
	return nil
}

// selectForTarget drops the cluster group for a standalone target and keeps
// only it for a cluster.
func selectForTarget(cases []Case, cluster bool) []Case {
	var out []Case
	for _, c := range cases {
		if (c.Group == GroupCluster) == cluster {
			out = append(out, c)
		}
	}
	return out
}

// listCases prints the cases and the seed each gets under the base seed
// (a run without a seed draws a new base and records it).
func listCases(io harness.IO, cases []Case, seed uint64) error {
	tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "case\tparallel\tbatching\tseed (base %d)\ttemplate\n", seed)
	for _, c := range cases {
		tmpl := c.Template
		if len(tmpl) > 70 {
			tmpl = tmpl[:67] + "..."
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", c.ID, c.Parallel, c.Batching, CaseSeed(seed, c.ID), tmpl)
	}
	return tw.Flush()
}

// Validate checks the sampling options, naming the flags that set them.
func (o StatOptions) Validate() error {
	switch {
	case o.Universe == 0 || o.Universe > 1<<32:
		return errors.New("--stat-universe must be in 1 … 4294967296")
	case o.Steps < 1:
		return errors.New("--stat-steps must be at least 1")
	case uint64(o.RunLength) >= o.Universe:
		return errors.New("--stat-run-length must be below --stat-universe")
	}
	return nil
}

// Stat samples TR.STAT memory, prints its tables and writes them to jsonPath;
// a distribution whose sampling stopped makes the error exit status 3.
func Stat(ctx context.Context, o StatOptions, jsonPath string, io harness.IO) ([]StatTable, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := output.CheckPaths(jsonPath); err != nil {
		return nil, err
	}
	if err := redis.RequireCommands(ctx, o.Target, "TairRoaring", "TR.SETBITS", "TR.APPENDBITARRAY", "TR.OPTIMIZE", "TR.STAT"); err != nil {
		return nil, err
	}
	id, _ := target.Identify(ctx, o.Target)
	o.Log = io.Err
	tables, err := SampleStat(ctx, o)
	if len(tables) > 0 {
		_ = WriteStatTables(output.SummaryTo(io, jsonPath), tables)
		doc := &result.RoaringStat{Header: result.NewHeader(result.SchemaRoaringStat, io.Version), Target: *o.Target.Result(), Tables: tables}
		doc.Target.Server = id
		if werr := output.Publish(ctx, io, jsonPath, doc); werr != nil {
			return tables, werr
		}
	}
	if err != nil {
		return tables, err
	}
	for _, t := range tables {
		if t.Error != "" {
			return tables, harness.RunFailed(fmt.Errorf("%s sampling stopped: %s", t.Distribution, t.Error))
		}
	}
	return tables, nil
}
