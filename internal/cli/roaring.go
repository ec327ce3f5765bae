package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/workload/roaring"
	"github.com/tairbench/tairbench/pkg/result"
)

func init() { extraCommands = append(extraCommands, newRoaringCmd) }

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

func newRoaringCmd(s Streams) *cobra.Command {
	var (
		tf       targetFlags
		perCase  = 30 * time.Second
		filter   string
		list     bool
		jsonPath string
		seed     uint64
		flush    bool
		withStat bool
		sf       statFlags
	)
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
runs unless --cases says otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cases, err := roaring.Filter(roaring.Cases(), filter)
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			if !c.Flags().Changed("cases") && !tf.embedded {
				cases = selectForTarget(cases, tf.cluster)
			}
			if list {
				return listCases(s, cases)
			}
			if perCase <= 0 {
				return &ExitError{Code: ExitError1, Err: errors.New("--duration-per-case must be above 0")}
			}
			tg, stopServer, err := tf.resolve(s)
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			defer stopServer()
			if seed == 0 {
				seed = engine.NewSeed()
			}
			label := "TairRoaring whitepaper cases against " + tg.Addr
			if tf.embedded {
				label += " (tairbench's embedded server, not Tair: the reference columns are Tair's published figures)"
			}
			fmt.Fprintln(s.Err, label)
			suite, err := roaring.Run(c.Context(), roaring.Options{
				Target: tg, CaseDuration: perCase, Cases: cases, Seed: seed, Flush: flush || tf.embedded,
				Log: s.Err, InProcessServer: tf.embedded, Cluster: tf.cluster,
			})
			if err != nil && suite == nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			if withStat && err == nil && c.Context().Err() == nil {
				so, serr := sf.options()
				if serr != nil {
					return &ExitError{Code: ExitError1, Err: serr}
				}
				so.Target, so.Log = tg, s.Err
				suite.Stat, err = roaring.SampleStat(c.Context(), so)
			}
			if werr := roaring.WriteTables(s.Out, suite, label); werr != nil {
				return &ExitError{Code: ExitError1, Err: werr}
			}
			if len(suite.Stat) > 0 {
				_ = roaring.WriteStatTables(s.Out, suite.Stat)
			}
			if jsonPath != "" {
				if werr := writeJSON(jsonPath, suite); werr != nil {
					return &ExitError{Code: ExitError1, Err: werr}
				}
				fmt.Fprintf(s.Err, "result written to %s\n", jsonPath)
			}
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			if suite.Failed() {
				return &ExitError{Code: ExitRunFailed, Err: errors.New("at least one case failed: see the warnings above")}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	tf.register(fs)
	fs.Var(seconds{&perCase}, "duration-per-case", "seconds each case runs (the whitepaper: 30)")
	fs.StringVar(&filter, "cases", "", "comma-separated case patterns: globs (batch/*) or substrings (bitop)")
	fs.BoolVar(&list, "list", false, "list the cases and exit")
	fs.StringVar(&jsonPath, "json", "", "write the suite result as JSON to this file")
	fs.Uint64Var(&seed, "seed", 0, "base random seed (0: a new one, recorded in the result)")
	fs.BoolVar(&flush, "flush", false, "FLUSHALL the target first (always done for --embedded)")
	fs.BoolVar(&withStat, "stat", false, "also run TR.STAT memory sampling (see 'roaring stat')")
	sf.register(cmd, 500_000_000, 1<<32)
	cmd.AddCommand(newRoaringStatCmd(s))
	return cmd
}

// selectForTarget drops the cluster group for a standalone target and keeps
// only it for --cluster.
func selectForTarget(cases []roaring.Case, cluster bool) []roaring.Case {
	var out []roaring.Case
	for _, c := range cases {
		if (c.Group == roaring.GroupCluster) == cluster {
			out = append(out, c)
		}
	}
	return out
}

func listCases(s Streams, cases []roaring.Case) error {
	tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tparallel\tbatching\ttemplate")
	for _, c := range cases {
		tmpl := c.Template
		if len(tmpl) > 70 {
			tmpl = tmpl[:67] + "..."
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", c.ID, c.Parallel, c.Batching, tmpl)
	}
	return tw.Flush()
}

func newRoaringStatCmd(s Streams) *cobra.Command {
	var tf targetFlags
	var sf statFlags
	var jsonPath string
	cmd := &cobra.Command{
		Use:   "stat",
		Short: "TR.STAT memory sampling: grow bitmaps in steps and compare container memory with the container rules",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o, err := sf.options()
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			tg, stopServer, err := tf.resolve(s)
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			defer stopServer()
			o.Target, o.Log = tg, s.Err
			tables, err := roaring.SampleStat(c.Context(), o)
			if len(tables) > 0 {
				_ = roaring.WriteStatTables(s.Out, tables)
			}
			if jsonPath != "" && len(tables) > 0 {
				if werr := writeJSON(jsonPath, tables); werr != nil {
					return &ExitError{Code: ExitError1, Err: werr}
				}
			}
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			for _, t := range tables {
				if t.Error != "" {
					return &ExitError{Code: ExitRunFailed, Err: fmt.Errorf("%s sampling stopped: %s", t.Distribution, t.Error)}
				}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	tf.register(fs)
	sf.register(cmd, 4_000_000, 1<<24)
	fs.StringVar(&jsonPath, "json", "", "write the tables as JSON to this file")
	return cmd
}

func writeJSON(path string, v any) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("cannot write result: %w", err)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot write result: %w", err)
	}
	if err := result.EncodeJSON(f, v); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
