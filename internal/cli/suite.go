package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/tairbench/tairbench/internal/flagval"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/whitepaper"
)

// suiteOptions are 'tairbench suite' flags.
type suiteOptions struct {
	whitepaper.Words
	target targetFlags
	slo    flagval.Capacity
}

func newSuiteCmd(a *app) *cobra.Command {
	o := &suiteOptions{Words: whitepaper.Words{Options: common.Defaults(), TestTime: 30 * time.Second}}
	cmd := &cobra.Command{
		Use:   "suite",
		Short: "The whitepaper's redis-benchmark and memtier tables, with the published figures beside",
		Long: `Runs a whitepaper table again and prints the measured figures beside the
published ones. Without --host, the embedded server is the target.

  enhanced  the enhanced edition's SET and GET tables: redis-benchmark -c 256
            --threads 16 -r 100000 for 64, 128, 256 and 1024-byte values, QPS and
            the cumulative latency distribution in 0.1 ms steps
  cluster   the cluster edition's memtier line (-c 20 -d 32 --threads=10
            --ratio=1:1) through the cluster client, beside each instance type's
            published QPS
  pmem      the persistent-memory whitepaper's YCSB tables: load, workload C and
            workload A for string, hash, list, set and sorted set over the value
            lengths 128 to 4096, beside the published QPS and latencies
  essd      the ESSD whitepaper's YCSB workloads (load, uniform and zipfian reads,
            uniform 50/50 reads and updates) beside every instance type's figures

Without --host, enhanced and cluster start the embedded server; pmem and essd
start a redis-server on a free loopback port (the embedded server has no lists,
sets, hashes or sorted sets), or the embedded server with --embedded.

With --slo, each measured case is a capacity search (see 'tairbench redis
--slo'): its QPS is the highest open-loop rate that held the SLO. YCSB loads
still run as published, since the run phases need their records.`,
	}
	fs := cmd.PersistentFlags()
	o.target.registerAddr(fs)
	o.Options.Register(fs, "")
	fs.Int64Var(&o.Requests, "requests", 300_000, fmt.Sprintf("enhanced: -n per case (published: %d)", whitepaper.PublishedRequests))
	fs.Var(seconds(&o.TestTime), "test-time", "cluster: --test-time in seconds (published: 1800)")
	fs.IntSliceVar(&o.Sizes, "sizes", nil, "enhanced: value sizes to run (default 64,128,256,1024)")
	fs.Int64Var(&o.Records, "records", 0, "pmem, essd: recordcount per case (default 20000 for pmem, 200000 for essd)")
	fs.Int64Var(&o.Operations, "operations", 0, "pmem, essd: operationcount per case (default: --records)")
	fs.IntVar(&o.Threads, "threads", 32, "pmem, essd: YCSB threads")
	fs.StringSliceVar(&o.Groups, "groups", nil, "pmem: command groups to run (default string,hash,list,set,zset)")
	fs.Float64Var(&o.Fraction, "fraction", 0.5, "persistence: each case's open-loop rate as a share of the capacity measured first")
	fs.IntVar(&o.Keys, "keys", 1_000_000, "persistence: keys filled before each case (the dataset a fork copies the page tables of)")
	fs.IntVar(&o.ValueSize, "value-size", 256, "persistence: their value size in bytes")
	fs.Var(seconds(&o.CaseTime), "case-time", "persistence: each case's time in seconds (default 20; its event at a third)")
	o.slo.Register(fs)
	for _, name := range whitepaper.Suites {
		cmd.AddCommand(&cobra.Command{
			Use:   name,
			Short: "The whitepaper's " + name + " table",
			Args:  cobra.NoArgs,
			RunE: func(c *cobra.Command, _ []string) error {
				return runSuite(c.Context(), name, c.Flags(), o, a)
			},
		})
	}
	return cmd
}

func runSuite(ctx context.Context, name string, fs *pflag.FlagSet, o *suiteOptions, a *app) error {
	w := o.Words
	w.Suite, w.Server, w.Remote = name, o.target.Options, fs.Changed("host") || fs.Changed("port")
	var err error
	if w.SLO, err = o.slo.Optional(); err != nil {
		return err
	}
	return whitepaper.MainWords(ctx, w, a.io())
}
