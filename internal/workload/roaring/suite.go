package roaring

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/bench"
	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/result"
)

// SuiteSchema identifies the suite's JSON format. Each case embeds a
// result.Run (tairbench.run/v1).
const SuiteSchema = "tairbench.roaring/v1"

// Options configure a suite run.
type Options struct {
	Target redis.Target
	// ClusterAddrs seed the cluster cases (default: the target's address).
	ClusterAddrs []string
	// CaseDuration is how long each case runs.
	CaseDuration time.Duration
	Cases        []Case
	Seed         uint64
	// Flush empties the database first (always for the embedded server).
	Flush bool
	// Log receives one line per load and case as the suite progresses.
	Log io.Writer
	// InProcessServer is set when the target runs in this process.
	InProcessServer bool
	// BeforeCase, if set, is called after any load and just before each case.
	BeforeCase func(Case)
	// Cluster is set when the target is a cluster: loads go through the
	// cluster client and nothing is flushed.
	Cluster bool
}

// Load is how one data set was loaded.
type Load struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Template    string  `json:"template"`
	Commands    int64   `json:"commands"`
	Seconds     float64 `json:"seconds"`
	PerSecond   float64 `json:"commands_per_sec"`
	Errors      int64   `json:"errors"`
}

// CaseResult is one case's outcome.
type CaseResult struct {
	Case Case `json:"case"`
	// Rate is the measured QPS (bits per second for batch cases).
	Rate      float64     `json:"rate"`
	LatencyMS float64     `json:"latency_ms"`
	P99MS     float64     `json:"p99_ms"`
	Ratio     float64     `json:"ratio_to_reference"`
	Run       *result.Run `json:"run"`
}

// Suite is the whole result.
type Suite struct {
	Schema    string         `json:"schema"`
	Version   string         `json:"tool_version"`
	StartedAt time.Time      `json:"started_at"`
	Config    map[string]any `json:"config"`
	Loads     []Load         `json:"loads"`
	Cases     []CaseResult   `json:"cases"`
	Stat      []StatTable    `json:"stat,omitempty"`
	Warnings  []string       `json:"warnings"`
}

type loadSpec struct {
	desc     string
	template string
	ranges   [cmdtmpl.MaxRanges + 1]cmdtmpl.Range
	commands int64
}

func loadSpecs() map[string]loadSpec {
	single := loadSpec{
		desc:     "key foo: 10,000 TR.SETBITS of 100 random offsets below 10^7 (about 9.5% of the range set, seed 1)",
		template: "TR.SETBITS foo " + rands(100, "__RAND__"), commands: 10_000,
	}
	single.ranges[1] = cmdtmpl.Range{Max: tenMillion}
	many := loadSpec{
		desc:     "keys foo-0 … foo-99999: TR.SETRANGE key 0 999999 each (10% of the offset range, one run per key)",
		template: "TR.SETRANGE foo-__RAND__ 0 999999", commands: hundredK,
	}
	many.ranges[1] = cmdtmpl.Range{Max: hundredK, Dist: cmdtmpl.Seq}
	return map[string]loadSpec{LoadSingle: single, LoadMany: many}
}

// Run runs the cases in order, loading each data set before the first case
// that reads it. A case that fails to start is recorded with its error and
// the suite goes on.
func Run(ctx context.Context, o Options) (*Suite, error) {
	s := &Suite{Schema: SuiteSchema, Version: bench.Version, StartedAt: time.Now().UTC(), Warnings: []string{},
		Config: map[string]any{"target": o.Target.Redacted(), "case_duration_s": o.CaseDuration.Seconds(), "seed": o.Seed, "flush": o.Flush}}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	if o.Flush && !o.Cluster {
		if err := flush(ctx, o.Target); err != nil {
			return nil, err
		}
	}
	loaded := map[string]bool{}
	specs := loadSpecs()
	for _, c := range o.Cases {
		if ctx.Err() != nil {
			s.Warnings = append(s.Warnings, "interrupted: the remaining cases did not run")
			break
		}
		if c.Load != "" && !loaded[c.Load] {
			l, err := load(ctx, o, c.Load, specs[c.Load])
			if err != nil {
				return s, fmt.Errorf("load %s: %w", c.Load, err)
			}
			loaded[c.Load] = true
			s.Loads = append(s.Loads, l)
			fmt.Fprintf(log, "loaded %-10s %d commands in %.2f s (%.0f/s)\n", l.Name, l.Commands, l.Seconds, l.PerSecond)
		}
		if o.BeforeCase != nil {
			o.BeforeCase(c)
		}
		cr, err := runCase(ctx, o, c)
		if err != nil {
			return s, fmt.Errorf("case %s: %w", c.ID, err)
		}
		s.Cases = append(s.Cases, cr)
		mark := ""
		if len(cr.Run.Warnings) > 0 {
			mark = "  !! " + cr.Run.Warnings[0]
		}
		fmt.Fprintf(log, "%-28s %12.0f %s  avg %.3f ms  p99 %.3f ms  (%.2f× reference)%s\n", c.ID, cr.Rate, rateUnit(c), cr.LatencyMS, cr.P99MS, cr.Ratio, mark)
	}
	s.Warnings = append(s.Warnings, caseWarnings(s.Cases)...)
	return s, nil
}

// caseWarnings lists the cases' warnings; the in-process CPU warning, which
// the embedded server raises on many cases, is stated once.
func caseWarnings(cases []CaseResult) []string {
	var out, shared []string
	for _, cr := range cases {
		for _, w := range cr.Run.Warnings {
			if cr.Run.Client.Saturated && cr.Run.Client.InProcessSv && strings.Contains(w, "compete for CPU") {
				shared = append(shared, cr.Case.ID)
				continue
			}
			out = append(out, cr.Case.ID+": "+w)
		}
	}
	if len(shared) > 0 {
		out = append(out, fmt.Sprintf("in %d cases this process (client and embedded server together) used 90%% or more of the cores, "+
			"so those figures are bounded by the machine, not by either side: %s", len(shared), strings.Join(shared, ", ")))
	}
	return out
}

func rateUnit(c Case) string {
	if c.Group == GroupBatch {
		return "bits/s"
	}
	return "QPS"
}

func flush(ctx context.Context, t redis.Target) error {
	c, err := redis.Dial(ctx, t)
	if err != nil {
		return err
	}
	defer c.Close()
	rep, err := c.Do("FLUSHALL")
	if err != nil {
		return fmt.Errorf("flushall: %w", err)
	}
	if rep.IsError() {
		return fmt.Errorf("flushall: %s", rep.Err)
	}
	return nil
}

func compile(tmpl string, ranges [cmdtmpl.MaxRanges + 1]cmdtmpl.Range) (*cmdtmpl.Program, error) {
	t, err := cmdtmpl.Parse(tmpl)
	if err != nil {
		return nil, err
	}
	return cmdtmpl.Compile(t, cmdtmpl.Options{Ranges: ranges, DataSize: 0})
}

func load(ctx context.Context, o Options, name string, sp loadSpec) (Load, error) {
	prog, err := compile(sp.template, sp.ranges)
	if err != nil {
		return Load{}, err
	}
	f := &redis.Factory{Target: o.Target, Workload: redis.Workload{Program: prog, Mode: redis.Pipeline, N: 16},
		Cluster: o.Cluster, Addrs: o.ClusterAddrs}
	res, err := engine.Run(ctx, engine.Config{Workers: 4, Ops: sp.commands, OpsPerRequest: 16, Seed: 1}, f)
	if err != nil {
		return Load{}, err
	}
	t := res.Snapshot.Totals
	l := Load{Name: name, Description: sp.desc, Template: sp.template, Commands: t.Ops, Seconds: res.Elapsed.Seconds(), Errors: t.Errors}
	if l.Seconds > 0 {
		l.PerSecond = float64(l.Commands) / l.Seconds
	}
	if t.Errors > 0 {
		msg := ""
		if len(res.Snapshot.Errors) > 0 {
			msg = res.Snapshot.Errors[0].Message
		}
		return l, fmt.Errorf("%d of %d load commands failed: %s", t.Errors, t.Ops, msg)
	}
	return l, nil
}

func runCase(ctx context.Context, o Options, c Case) (CaseResult, error) {
	var ranges [cmdtmpl.MaxRanges + 1]cmdtmpl.Range
	ranges[1] = cmdtmpl.Range{Max: max(c.R1, 1)}
	ranges[2] = cmdtmpl.Range{Max: max(c.R2, 1)}
	ranges[3] = cmdtmpl.Range{Max: max(c.R3, 1)}
	prog, err := compile(c.Template, ranges)
	if err != nil {
		return CaseResult{}, err
	}
	w := redis.Workload{Program: prog, Mode: redis.Single, N: 1}
	if c.Batching > 0 {
		w.Mode, w.N = redis.Batch, c.Batching
	}
	f := &redis.Factory{Target: o.Target, Workload: w, Cluster: c.Cluster, Addrs: o.ClusterAddrs}
	seed := engine.WorkerSeed(o.Seed, len(c.ID))
	spec := bench.Spec{
		Name:    c.ID,
		Command: c.Template,
		Config: map[string]any{"case": c.ID, "connections": c.Parallel, "batching": c.Batching, "cluster": c.Cluster,
			"duration_s": o.CaseDuration.Seconds(), "ranges": prog.RangeSpecs(), "mode": modeName(w)},
		Engine:          engine.Config{Workers: c.Parallel, Duration: o.CaseDuration, OpsPerRequest: w.OpsPerRequest(), Seed: seed},
		Factory:         f,
		InProcessServer: o.InProcessServer,
	}
	run, _, err := bench.Run(ctx, spec)
	if err != nil {
		return CaseResult{}, err
	}
	cr := CaseResult{Case: c, Run: run, Rate: run.Totals.OpsPerSec, LatencyMS: run.Totals.Latency.Mean / 1000,
		P99MS: run.Totals.Latency.P99 / 1000}
	if c.Ref.Rate > 0 {
		cr.Ratio = cr.Rate / c.Ref.Rate
	}
	return cr, nil
}

func modeName(w redis.Workload) string {
	if w.Mode == redis.Batch {
		return fmt.Sprintf("MULTI/EXEC batches of %d", w.N)
	}
	return "one command per round trip"
}

// Failed reports whether any case's run failed (most of its commands
// errored) or the suite recorded warnings about errors.
func (s *Suite) Failed() bool {
	for _, c := range s.Cases {
		if report.Failed(c.Run) {
			return true
		}
	}
	return false
}
