// Package gate is 'tairbench gate': a stored run judged against a
// baseline of earlier stored runs of the same workload and target kind,
// printed, written as Markdown and JUnit, and turned into an exit status
// (99 on a regression, 4 when unstable, 0 otherwise).
package gate

import (
	"context"
	"fmt"
	goio "io"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	judge "github.com/tairbench/tairbench/internal/gate"
	"github.com/tairbench/tairbench/internal/resultset"
	"github.com/tairbench/tairbench/internal/store"
	"github.com/tairbench/tairbench/internal/threshold"
	"github.com/tairbench/tairbench/pkg/result"
)

// ExitUnstable is the exit status of a gate that cannot tell: a side
// varies beyond the unstable line, or a large change is not established.
const ExitUnstable = 4

// Options are what to judge, against what, by which lines.
type Options struct {
	// Store is the results store.
	Store string
	// Run is "latest" (the most recent stored run) or a run's id.
	Run string
	// Baseline is "last N [where COND and COND ...]" (see store.ParseWhere).
	Baseline string
	// Metrics is a comma-separated list of judge.Metrics keys.
	Metrics string
	// Regression, Noise and Unstable are the lines, in percent.
	Regression, Noise, Unstable float64
	// Markdown and JUnit are files to write the verdict to ("" none, "-"
	// standard output).
	Markdown, JUnit string
}

// Defaults are the options' defaults: the latest run, the last 7 runs,
// throughput, and redis-benchmarks-specification's lines.
func Defaults() Options {
	d := judge.Defaults
	return Options{Run: "latest", Baseline: "last 7", Metrics: "qps", Regression: 100 * d.Regression, Noise: 100 * d.Noise,
		Unstable: 100 * d.Unstable}
}

// plan is Options read and checked, before the store is opened.
type plan struct {
	runID    int64 // 0: the latest
	last     int
	where    []store.Cond
	metrics  []judge.Metric
	policy   judge.Policy
	baseline string
}

func (o Options) plan() (plan, error) {
	p := plan{baseline: strings.TrimSpace(o.Baseline)}
	if p.baseline == "" {
		p.baseline = "last 7"
	}
	var err error
	if p.last, p.where, err = ParseBaseline(p.baseline); err != nil {
		return p, err
	}
	switch run := strings.TrimSpace(o.Run); run {
	case "", "latest":
	default:
		if p.runID, err = strconv.ParseInt(run, 10, 64); err != nil || p.runID <= 0 {
			return p, fmt.Errorf("--run %q: want latest or a run id from 'tairbench history'", o.Run)
		}
	}
	if p.metrics, err = judge.ParseMetrics("--metric", o.Metrics); err != nil {
		return p, err
	}
	p.policy = judge.Policy{Regression: o.Regression / 100, Noise: o.Noise / 100, Unstable: o.Unstable / 100,
		Significance: judge.Defaults.Significance}
	return p, p.policy.Check()
}

// ParseBaseline reads "last N", "last N where COND and COND", or "where
// COND ..." (every matching run): the number of runs and the conditions.
func ParseBaseline(s string) (int, []store.Cond, error) {
	bad := fmt.Errorf("--baseline %q: want 'last N' or 'last N where KEY=VALUE and ...' (e.g. 'last 7 where tag.branch=main')", s)
	f := strings.Fields(s)
	last := 0
	if len(f) >= 2 && strings.EqualFold(f[0], "last") {
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 1 {
			return 0, nil, bad
		}
		last, f = n, f[2:]
	}
	if len(f) == 0 {
		if last == 0 {
			return 0, nil, bad
		}
		return last, nil, nil
	}
	if !strings.EqualFold(f[0], "where") || len(f) == 1 {
		return 0, nil, bad
	}
	conds, err := store.ParseWhere(strings.Join(f[1:], " "))
	if err != nil {
		return 0, nil, fmt.Errorf("--baseline %q: %w", s, err)
	}
	return last, conds, nil
}

// Gate judges the run against its baseline and writes the verdict; the
// returned error carries the exit status of a regression (99) or of an
// unstable verdict (4).
func Gate(ctx context.Context, o Options, io harness.IO) error {
	p, err := o.plan()
	if err != nil {
		return err
	}
	if err := output.CheckPaths(o.Markdown, o.JUnit); err != nil {
		return err
	}
	st, err := store.OpenExisting(ctx, o.Store)
	if err != nil {
		return err
	}
	defer st.Close()
	v, err := gather(ctx, st, st.Name(), p)
	if err != nil {
		return err
	}
	v.Verdicts = judge.Judge(v.run, v.baselineDocs, p.metrics, p.policy)
	v.Outcome = judge.Worst(v.Verdicts)
	if err := writeText(io.Out, v); err != nil {
		return err
	}
	if err := output.WriteFile(io, o.Markdown, func(w goio.Writer) error { return writeMarkdown(w, v) }); err != nil {
		return err
	}
	if err := output.WriteFile(io, o.JUnit, func(w goio.Writer) error { return threshold.WriteJUnit(w, "gate", v.junit()) }); err != nil {
		return err
	}
	switch v.Outcome {
	case judge.Regression:
		return &harness.ExitError{Code: harness.ExitThreshold}
	case judge.Unstable:
		return &harness.ExitError{Code: ExitUnstable}
	}
	return nil
}

// verdict is everything a gate's outputs print.
type verdict struct {
	Row          store.Row
	Baseline     []store.Row
	BaselineSpec string
	// SetupDiffers lists the set-up items in which the run differs from
	// a baseline run, with both values.
	SetupDiffers []string
	Verdicts     []judge.Verdict
	Outcome      judge.Outcome
	run          *result.Run
	baselineDocs []*result.Run
}

// gather finds the run and its baseline and reads their documents.
func gather(ctx context.Context, st *store.Store, path string, p plan) (*verdict, error) {
	f := store.Filter{Where: []store.Cond{store.Runs}, Limit: 1, Whole: true}
	if p.runID != 0 {
		f = store.Filter{ID: p.runID}
	}
	rows, err := st.List(ctx, f)
	switch {
	case err != nil:
		return nil, err
	case len(rows) == 0 && p.runID != 0:
		return nil, fmt.Errorf("store %s: no run %d", path, p.runID)
	case len(rows) == 0:
		return nil, fmt.Errorf("store %s holds no whole run to judge", path)
	}
	if rows[0].Shard != "" {
		return nil, fmt.Errorf("run %d is shard %s of a run: gate the run its shards merged into (tairbench history lists it)", rows[0].ID, rows[0].Shard)
	}
	v := &verdict{Row: rows[0], BaselineSpec: p.baseline}
	if v.run, err = readRun(ctx, st, v.Row); err != nil {
		return nil, err
	}
	base, err := st.List(ctx, store.Filter{Where: p.where, Like: &v.Row, Limit: p.last})
	if err != nil {
		return nil, err
	}
	if len(base) == 0 {
		return nil, noBaseline(ctx, st, path, p, v.Row)
	}
	v.Baseline = base
	seen := map[string]bool{}
	for _, b := range base {
		doc, err := readRun(ctx, st, b)
		if err != nil {
			return nil, err
		}
		v.baselineDocs = append(v.baselineDocs, doc)
		for _, s := range resultset.Setup(doc, v.run) {
			if d := s.Item + ": " + s.A + " → " + s.B; s.Differs && !seen[d] {
				seen[d] = true
				v.SetupDiffers = append(v.SetupDiffers, d)
			}
		}
	}
	return v, nil
}

func readRun(ctx context.Context, st *store.Store, row store.Row) (*result.Run, error) {
	doc, err := st.Get(ctx, row.ID)
	if err != nil {
		return nil, err
	}
	r, ok := doc.(*result.Run)
	if !ok {
		return nil, fmt.Errorf("run %d is a %s result: a gate judges benchmark runs (tairbench.run)", row.ID, row.ShortKind())
	}
	return r, nil
}

// noBaseline says why no run is the baseline: none matches its
// conditions, or those that do ran another workload or target kind, or
// none started before the run.
func noBaseline(ctx context.Context, st *store.Store, path string, p plan, row store.Row) error {
	matching, err := st.List(ctx, store.Filter{Where: p.where})
	if err != nil {
		return err
	}
	if len(matching) == 0 {
		return fmt.Errorf("baseline %q matches no run in %s", p.baseline, path)
	}
	later := 0
	for _, m := range matching {
		if m.ID != row.ID && m.Kind == row.Kind && m.WorkloadHash == row.WorkloadHash && m.TargetKind == row.TargetKind {
			later++
		}
	}
	if later > 0 {
		return fmt.Errorf("baseline %q matches %d runs of run %d's workload against %s, all started after it: a baseline is made of earlier runs",
			p.baseline, later, row.ID, row.TargetKindName())
	}
	var other []string
	for _, m := range matching {
		if m.ID == row.ID {
			continue
		}
		if len(other) == 3 {
			other = append(other, "…")
			break
		}
		other = append(other, fmt.Sprintf("%d: %s %q against %s", m.ID, m.ShortKind(), m.Workload, m.TargetKindName()))
	}
	if len(other) == 0 {
		return fmt.Errorf("baseline %q matches only run %d itself: nothing to judge it against", p.baseline, row.ID)
	}
	return fmt.Errorf("baseline %q matches %d runs, none an earlier run of run %d's workload (%q) against the same kind of target (%s): %s",
		p.baseline, len(matching), row.ID, row.Workload, row.TargetKindName(), strings.Join(other, "; "))
}
