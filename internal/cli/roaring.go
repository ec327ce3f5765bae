package cli

import (
	"context"
	"time"

	"github.com/tairbench/tairbench/internal/flagval"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/roaring"
)

// registerStat binds the TR.STAT sampling flags, shared by 'roaring --stat' and 'roaring stat'.
func registerStat(fs *pflag.FlagSet, w *roaring.StatWords, defMax, defUniverse uint64) {
	fs.StringVar(&w.Dists, "stat-dist", "sparse,random,runs", "TR.STAT distributions: sparse, random, runs")
	fs.Uint64Var(&w.MaxCard, "stat-max-card", defMax, "cardinality of the last TR.STAT step")
	fs.IntVar(&w.Steps, "stat-steps", 6, "TR.STAT steps per distribution")
	fs.Uint64Var(&w.Universe, "stat-universe", defUniverse, "offsets are drawn below this (4294967296: the whole uint32 space)")
	fs.IntVar(&w.RunLength, "stat-run-length", 1000, "run length for the runs distribution")
}

// roaringOptions are 'tairbench roaring' flags.
type roaringOptions struct {
	roaring.Words
	target targetFlags
	slo    flagval.Capacity
}

func newRoaringCmd(a *app) *cobra.Command {
	o := &roaringOptions{Words: roaring.Words{Options: common.Defaults(), CaseDuration: 30 * time.Second}}
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
	o.target.registerAddr(fs)
	o.Options.Register(fs, "")
	fs.Var(seconds(&o.CaseDuration), "duration-per-case", "seconds each case runs (the whitepaper: 30)")
	fs.StringVar(&o.Filter, "cases", "", "comma-separated case patterns: globs (batch/*) or substrings (bitop)")
	fs.BoolVar(&o.List, "list", false, "list the cases with their seeds and exit")
	fs.BoolVar(&o.Flush, "flush", false, "FLUSHALL the target first (always done for --embedded)")
	fs.BoolVar(&o.WithStat, "stat", false, "also run TR.STAT memory sampling (see 'roaring stat')")
	fs.StringVar(&o.SetOpData, "setop-data", roaring.SetOpRandom, "set operations' data: random (32 keys of random offsets at the single key's 9.5% density) or runs (one run per key: cheap to combine, printed as 'data differs')")
	o.slo.Register(fs)
	registerStat(fs, &o.Stat, 500_000_000, 1<<32)
	cmd.AddCommand(newRoaringStatCmd(a))
	return cmd
}

func runRoaring(ctx context.Context, o *roaringOptions, casesGiven bool, a *app) error {
	w := o.Words
	w.Server, w.CasesGiven = o.target.Options, casesGiven
	if !w.List {
		var err error
		if w.SLO, err = o.slo.Optional(); err != nil {
			return err
		}
	}
	return roaring.MainWords(ctx, w, a.io())
}

// roaringStatOptions are 'tairbench roaring stat' flags.
type roaringStatOptions struct {
	target   targetFlags
	stat     roaring.StatWords
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
	registerStat(fs, &o.stat, 4_000_000, 1<<24)
	fs.StringVar(&o.jsonPath, "json", "", "write the tables as JSON to this file")
	return cmd
}

func runRoaringStat(ctx context.Context, o *roaringStatOptions, a *app) error {
	so, err := o.stat.Options()
	if err != nil {
		return err
	}
	return roaring.StatMain(ctx, so, o.target.Options, o.jsonPath, a.io())
}
