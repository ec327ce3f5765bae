package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/flagval"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/roaring"
)

// statFlags are the TR.STAT sampling flags, shared by 'roaring --stat' and 'roaring stat'.
type statFlags struct {
	dists    string
	maxCard  uint64
	steps    int
	universe uint64
	runLen   int
}

func (f *statFlags) register(cmd *cobra.Command, defMax, defUniverse uint64) {
	fs := cmd.Flags()
	fs.StringVar(&f.dists, "stat-dist", "sparse,random,runs", "TR.STAT distributions: sparse, random, runs")
	fs.Uint64Var(&f.maxCard, "stat-max-card", defMax, "cardinality of the last TR.STAT step")
	fs.IntVar(&f.steps, "stat-steps", 6, "TR.STAT steps per distribution")
	fs.Uint64Var(&f.universe, "stat-universe", defUniverse, "offsets are drawn below this (4294967296: the whole uint32 space)")
	fs.IntVar(&f.runLen, "stat-run-length", 1000, "run length for the runs distribution")
}

func (f *statFlags) options() (roaring.StatOptions, error) {
	o := roaring.StatOptions{MaxCard: f.maxCard, Steps: f.steps, Universe: f.universe, RunLength: f.runLen, Seed: 1}
	for _, d := range strings.Split(f.dists, ",") {
		switch d = strings.TrimSpace(d); d {
		case roaring.DistSparse, roaring.DistRandom, roaring.DistRuns:
			o.Distributions = append(o.Distributions, d)
		case "":
		default:
			return o, fmt.Errorf("unknown --stat-dist %q (sparse, random, runs)", d)
		}
	}
	switch {
	case f.universe == 0 || f.universe > 1<<32:
		return o, errors.New("--stat-universe must be in 1 … 4294967296")
	case f.steps < 1:
		return o, errors.New("--stat-steps must be at least 1")
	case uint64(f.runLen) >= f.universe:
		return o, errors.New("--stat-run-length must be below --stat-universe")
	}
	return o, nil
}

// roaringOptions are 'tairbench roaring' flags.
type roaringOptions struct {
	target   targetFlags
	stat     statFlags
	perCase  time.Duration
	filter   string
	list     bool
	dryRun   bool
	jsonPath string
	seed     uint64
	flush    bool
	withStat bool
	setOp    string
	slo      flagval.Capacity
	metrics  metricsFlags
}

func newRoaringCmd(a *app) *cobra.Command {
	o := &roaringOptions{perCase: 30 * time.Second}
	cmd := &cobra.Command{
		Use:   "roaring",
		Short: "Run the TairRoaring whitepaper's scenarios and print its tables with the reference figures",
		Long: `Run the TairRoaring whitepaper's scenarios as cases: single-key reads and writes,
MULTI/EXEC batches over the whitepaper's parallel × batching grid, 10^5 keys, set
operations and the cluster client. Read cases first load data (timed separately).
Each row shows the measured QPS (bits/s for batches), average and p99 latency, the
whitepaper's reference figure and the ratio measured/reference.

Against the embedded server (--embedded) every group runs. Against a standalone
instance the cluster group needs --cluster; with --cluster only the cluster group
runs unless --cases says otherwise.

With --slo, each case is a capacity search instead (see 'tairbench redis
--slo'): the rate shown is the highest open-loop rate that held the SLO, and
--duration-per-case gives way to --slo-window.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runRoaring(c.Context(), o, c.Flags().Changed("cases"), a)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.target.register(fs)
	fs.Var(seconds(&o.perCase), "duration-per-case", "seconds each case runs (the whitepaper: 30)")
	fs.StringVar(&o.filter, "cases", "", "comma-separated case patterns: globs (batch/*) or substrings (bitop)")
	fs.BoolVar(&o.list, "list", false, "list the cases with their seeds and exit")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the loads and cases that would run, with the time they take, and send nothing")
	fs.StringVar(&o.jsonPath, "json", "", "write the suite result as JSON to this file (- for stdout)")
	fs.Uint64Var(&o.seed, "seed", 0, "base random seed (0: a new one, recorded in the result)")
	fs.BoolVar(&o.flush, "flush", false, "FLUSHALL the target first (always done for --embedded)")
	fs.BoolVar(&o.withStat, "stat", false, "also run TR.STAT memory sampling (see 'roaring stat')")
	fs.StringVar(&o.setOp, "setop-data", roaring.SetOpRandom, "set operations' data: random (32 keys of random offsets at the single key's 9.5% density) or runs (one run per key: cheap to combine, printed as 'data differs')")
	o.slo.Register(fs)
	o.metrics.register(fs)
	o.stat.register(cmd, 500_000_000, 1<<32)
	cmd.AddCommand(newRoaringStatCmd(a))
	return cmd
}

func runRoaring(ctx context.Context, o *roaringOptions, casesGiven bool, a *app) error {
	ro := roaring.Options{Filter: o.filter, CasesGiven: casesGiven || o.target.Embedded, List: o.list, JSON: o.jsonPath, DryRun: o.dryRun}
	ro.CaseDuration, ro.Seed, ro.Flush, ro.SetOpData = o.perCase, o.seed, o.flush, o.setOp
	if o.setOp != roaring.SetOpRandom && o.setOp != roaring.SetOpRuns {
		return fmt.Errorf("--setop-data %q: want random or runs", o.setOp)
	}
	ro.Server, ro.Metrics = o.target.Options, o.metrics.words()
	if !o.list {
		if o.perCase <= 0 {
			return errors.New("--duration-per-case must be above 0")
		}
		var err error
		if ro.SLO, err = o.slo.Optional(); err != nil {
			return err
		}
		if o.withStat {
			so, err := o.stat.options()
			if err != nil {
				return err
			}
			ro.Stat = &so
		}
	}
	return roaring.Main(ctx, ro, a.io())
}

// roaringStatOptions are 'tairbench roaring stat' flags.
type roaringStatOptions struct {
	target   targetFlags
	stat     statFlags
	jsonPath string
}

func newRoaringStatCmd(a *app) *cobra.Command {
	o := &roaringStatOptions{}
	cmd := &cobra.Command{
		Use:   "stat",
		Short: "TR.STAT memory sampling: grow bitmaps in steps and compare container memory with the container rules",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runRoaringStat(c.Context(), o, a) },
	}
	fs := cmd.Flags()
	o.target.register(fs)
	o.stat.register(cmd, 4_000_000, 1<<24)
	fs.StringVar(&o.jsonPath, "json", "", "write the tables as JSON to this file")
	return cmd
}

func runRoaringStat(ctx context.Context, o *roaringStatOptions, a *app) error {
	so, err := o.stat.options()
	if err != nil {
		return err
	}
	return roaring.StatMain(ctx, so, o.target.Options, o.jsonPath, a.io())
}
