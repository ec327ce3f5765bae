package roaring

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/tmplrun"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/run/capacity"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/result"
)

// CaseOptions configure a suite run.
type CaseOptions struct {
	// Target is the server; Target.InProcess marks the embedded server. The
	// cluster cases route through the cluster client (seeded with
	// Target.ClusterAddrs, default Target.Addr).
	Target endpoint.Target
	// CaseDuration is how long each case runs.
	CaseDuration time.Duration
	Cases        []Case
	// Seed is the base seed; each case's seed derives from it and the case ID.
	Seed uint64
	// Flush empties the database first (always for the embedded server).
	Flush bool
	// SetOpData is the set operations' data shape: SetOpRandom (default)
	// or SetOpRuns.
	SetOpData string
	// Log receives one line per load and case as the suite progresses.
	Log io.Writer
	// BeforeCase, if set, is called after any load and just before each case.
	BeforeCase func(Case)
	// Version is the tool version recorded in the result.
	Version string
	// Label, if set, is logged once the target is known to run the suite.
	Label string
	// SLO, when set, makes each case a capacity search for it instead of a
	// closed-loop run of CaseDuration: the case's rate is the highest
	// open-loop rate that held the SLO.
	SLO *capacity.Options
	// ServerStats samples a standalone target's INFO once a second
	// during each case (not during loads).
	ServerStats bool
}

// Load is how one data set was loaded (see result.RoaringLoad).
type Load = result.RoaringLoad

// CaseResult is one case's outcome (see result.RoaringCaseResult).
type CaseResult = result.RoaringCaseResult

// Suite is the whole result (see result.RoaringSuite).
type Suite = result.RoaringSuite

type loadSpec struct {
	desc     string
	template string
	ranges   [cmdtmpl.MaxRanges + 1]cmdtmpl.Range
	commands int64
}

func loadSpecs(setOpData string) map[string]loadSpec {
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
	return map[string]loadSpec{LoadSingle: single, LoadMany: many, LoadSetOps: setOpSpec(setOpData)}
}

// setOpSpec loads the set operations' keys sop-0 … sop-31 in a shape.
func setOpSpec(shape string) loadSpec {
	if shape == SetOpRuns {
		sp := loadSpec{
			desc:     fmt.Sprintf("keys sop-0 … sop-%d: TR.SETRANGE key 0 999999 each (one run per key; --setop-data runs)", setOpKeys-1),
			template: "TR.SETRANGE sop-__RAND__ 0 999999", commands: setOpKeys,
		}
		sp.ranges[1] = cmdtmpl.Range{Max: setOpKeys, Dist: cmdtmpl.Seq}
		return sp
	}
	// 9,500 TR.SETBITS of 100 random offsets per key: 950,000 offsets, as
	// many as the single key's load sets, about 9.1% of 10^7 after repeats.
	sp := loadSpec{
		desc: fmt.Sprintf("keys sop-0 … sop-%d: 9,500 TR.SETBITS of 100 random offsets below 10^7 each "+
			"(the single key's density, about 9%% of the range set, seed 1; --setop-data random)", setOpKeys-1),
		template: "TR.SETBITS sop-__RAND__ " + rands(100, "__RAND2__"), commands: setOpKeys * 9_500,
	}
	sp.ranges[1] = cmdtmpl.Range{Max: setOpKeys, Dist: cmdtmpl.Seq}
	sp.ranges[2] = cmdtmpl.Range{Max: tenMillion}
	return sp
}

// RunCases runs the cases in order, loading each data set before the first case
// that reads it. A case that fails to start is recorded with its error and
// the suite goes on.
func RunCases(ctx context.Context, o CaseOptions) (*Suite, error) {
	if o.SetOpData == "" {
		o.SetOpData = SetOpRandom
	}
	if o.SetOpData != SetOpRandom && o.SetOpData != SetOpRuns {
		return nil, fmt.Errorf("unknown set-operation data %q (random or runs)", o.SetOpData)
	}
	s := &Suite{Header: result.NewHeader(result.SchemaRoaring, o.Version), Warnings: []string{},
		Config: result.RoaringConfig{Target: *o.Target.Result(), CaseDurationS: o.CaseDuration.Seconds(), Seed: o.Seed, Flush: o.Flush,
			SetOpData: o.SetOpData}}
	if o.SLO != nil {
		s.Config.SLO = o.SLO.SLO.String()
		s.Config.CaseDurationS = 0
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	if err := probe(ctx, o); err != nil {
		return nil, err
	}
	if o.Label != "" {
		fmt.Fprintln(log, o.Label)
	}
	if o.Flush && !o.Target.Cluster {
		if err := flush(ctx, o.Target); err != nil {
			return nil, err
		}
	}
	loaded := map[string]bool{}
	specs := loadSpecs(o.SetOpData)
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
		at := ""
		if cr.Capacity != nil {
			at = " at " + cr.Capacity.SLO
		}
		ref := fmt.Sprintf("%.2f× reference", cr.Ratio)
		if cr.DataDiffers != "" {
			ref = "data differs: no ratio"
		}
		fmt.Fprintf(log, "%-28s %12.0f %s%s  avg %.3f ms  p99 %.3f ms  (%s)%s\n", c.ID, cr.Rate, rateUnit(c), at, cr.LatencyMS, cr.P99MS, ref, mark)
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
			if cr.Run.Client.Saturated && cr.Run.Client.InProcessServer && strings.Contains(w, "compete for CPU") {
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

func flush(ctx context.Context, t endpoint.Target) error {
	c, err := transport.Dial(ctx, t)
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

func load(ctx context.Context, o CaseOptions, name string, sp loadSpec) (Load, error) {
	ts := redis.TemplateSpec{Template: sp.template, Options: cmdtmpl.Options{Ranges: sp.ranges}, Pipeline: 16}
	w, err := ts.Workload()
	if err != nil {
		return Load{}, err
	}
	f := &redis.Factory{Target: o.Target, Workload: w}
	res, err := engine.Run(ctx, engine.Config{Workers: 4, Ops: sp.commands, OpsPerRequest: w.OpsPerRequest(), Seed: 1}, f)
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

// probe checks that the target knows every command the selected cases
// and their loads send, loads first.
func probe(ctx context.Context, o CaseOptions) error {
	var names []string
	seen := map[string]bool{}
	add := func(tmpl string) {
		name, _, _ := strings.Cut(tmpl, " ")
		if name = strings.ToUpper(name); !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	specs := loadSpecs(o.SetOpData)
	for _, c := range o.Cases {
		if c.Load != "" {
			add(specs[c.Load].template)
		}
	}
	for _, c := range o.Cases {
		add(c.Template)
	}
	if len(names) == 0 {
		return nil
	}
	return redis.RequireCommands(ctx, o.Target, "TairRoaring", names...)
}

// CaseSeed is case id's seed under base: a hash of the ID, so that every
// case has its own seed and a case keeps it when others are added.
func CaseSeed(base uint64, id string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return engine.WorkerSeed(base^h.Sum64(), 0)
}

func runCase(ctx context.Context, o CaseOptions, c Case) (CaseResult, error) {
	var opts cmdtmpl.Options
	opts.Ranges[1] = cmdtmpl.Range{Max: max(c.R1, 1)}
	opts.Ranges[2] = cmdtmpl.Range{Max: max(c.R2, 1)}
	opts.Ranges[3] = cmdtmpl.Range{Max: max(c.R3, 1)}
	ts := redis.TemplateSpec{Template: c.Template, Options: opts, Batching: c.Batching, ServerStats: o.ServerStats}
	w, err := ts.Workload()
	if err != nil {
		return CaseResult{}, err
	}
	t := o.Target
	t.Cluster = c.Cluster
	seed := CaseSeed(o.Seed, c.ID)
	var slo *capacity.Options
	if o.SLO != nil {
		so := *o.SLO
		so.Log, so.Version = o.Log, o.Version
		slo = &so
		fmt.Fprintf(o.Log, "%s: capacity search for %s\n", c.ID, so.SLO)
	}
	run, search, err := capacity.Case(ctx, slo, func() (run.Spec, error) {
		return tmplrun.FromTemplate(ts, c.ID, o.Version, t, w, engine.Config{Workers: c.Parallel, Duration: o.CaseDuration, Seed: seed}), nil
	})
	if err != nil {
		return CaseResult{}, err
	}
	run.Name = c.ID
	cr := CaseResult{Case: c, Seed: seed, Run: run, Rate: run.Totals.OpsPerSec, LatencyMS: run.Totals.Latency.Mean / 1000,
		P99MS: run.Totals.Latency.P99 / 1000, Capacity: search}
	if search != nil {
		// The answer: the highest rate that held, in commands (bits) per
		// second, with the latency from the intended start.
		cr.Rate = search.HighestHeld * float64(w.OpsPerRequest())
		if l := run.Totals.CorrectedLatency; l != nil {
			cr.LatencyMS, cr.P99MS = l.Mean/1000, l.P99/1000
		}
	}
	if c.Ref.Rate > 0 && !(c.Load == LoadSetOps && o.SetOpData == SetOpRuns) {
		cr.Ratio = cr.Rate / c.Ref.Rate
	}
	if c.Load == LoadSetOps && o.SetOpData == SetOpRuns {
		cr.DataDiffers = "one run per key costs almost nothing to combine: not the whitepaper's data (--setop-data random)"
	}
	return cr, nil
}

// Failed reports whether any case's run failed (most of its commands errored).
func Failed(s *Suite) bool {
	for _, c := range s.Cases {
		if report.Failed(c.Run) {
			return true
		}
	}
	return false
}
