package cli

import (
	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/results"
)

func newMergeCmd(a *app) *cobra.Command {
	var out string
	var allowDisjoint bool
	var gate gateFlags
	cmd := &cobra.Command{
		Use:   "merge RESULT.json RESULT.json... -o TOTAL.json",
		Short: "Sum the results of clients that ran one workload at the same time",
		Long: `Merges tairbench.run results of several clients that ran the same workload at
the same time (for example with --shard i/N --start-at TIME): the HdrHistograms
merge exactly, counts and errors add up, the per-second series are aligned by
wall-clock second, and the seeds and hosts are listed. Results of different
workloads or schemas are refused.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			return results.Merge(c.Context(), results.MergeOptions{Paths: args, Out: out, Gate: gate.Gate, AllowDisjoint: allowDisjoint}, a.io())
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the merged result (tairbench.run/v2) to this file (- for stdout)")
	gate.register(cmd.Flags())
	cmd.Flags().BoolVar(&allowDisjoint, "allow-disjoint", false, "merge runs that did not all run at the same time (their sum is then no load the server saw)")
	return cmd
}

func newResultCompareCmd(a *app) *cobra.Command {
	var failOn []string
	var junit string
	cmd := &cobra.Command{
		Use:   "compare A.json B.json",
		Short: "Compare two results and mark the differences larger than the run-to-run noise",
		Long: `Prints QPS, p50, p99, p99.9, max latency, errors and client CPU per command of
two tairbench.run results, B against A, after both runs' set-ups (target,
command, mode, connections, pipeline, batch, loop, duration) with every
difference marked. QPS, p50 and p99 are also tested on their per-second
series (a block bootstrap, which treats a run's drift from second to second
as the noise it is): a difference is marked significant only when the
series differ (p < 0.01) by more than their own per-second variation, so
that "B is 3% faster" is not said when the runs cannot tell.

Two tairbench.bitmap results ('bitmap compare') are compared point by
point: memory and each operation's mean latency per structure, with B/A.

Two tairbench.track results ('search run') are compared task by task and
engine by engine; one task's run on one engine is named FILE#TASK/ENGINE
(so TairSearch and Elasticsearch of one track run compare as
run.json#queries/tairsearch run.json#queries/elasticsearch), and their
relevance (recall, MRR, NDCG) side by side; so are two tairbench.search
comparisons' known items. A relevance gate, --fail-on 'ndcg@10<-0.05',
fails when B's figure is more than 0.05 below A's for any template and
engine (a change in points of a share, not percent).`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			return results.Compare(results.CompareOptions{A: args[0], B: args[1], FailOn: failOn, JUnit: junit}, a.io())
		},
	}
	cmd.Flags().StringArrayVar(&failOn, "fail-on", nil, "fail (exit 99) when B's change against A crosses this: p99>+10%, qps<-5% for runs; ndcg@10<-0.05 for relevance (repeatable)")
	cmd.Flags().StringVar(&junit, "junit", "", "write the --fail-on verdicts as JUnit XML to this file")
	return cmd
}

func newReportCmd(a *app) *cobra.Command {
	var o results.ReportOptions
	o.Trend.Window = 7
	cmd := &cobra.Command{
		Use:   "report [RESULT.json...] -o report.html",
		Short: "Render results as one self-contained HTML page of charts and tables",
		Long: `Renders any tairbench results (runs, peer tools' runs, suites, capacity
searches, search comparisons) side by side in one HTML file with everything
inline: latency percentiles on a "nines" axis (from the intended start and
service time for open-loop runs), throughput, p50/p99 and errors per second,
the server's own count, a summary table, the suites' published and measured
figures with their ratio as a bar, and a capacity search's latency against
offered rate.

With --store and --trend, it adds a figure's trend over the stored runs, one
per workload and kind of target: each run with the spread of its seconds, and
the change points 'tairbench gate' would find.`,
		RunE: func(c *cobra.Command, args []string) error {
			o.Paths = args
			return results.Report(c.Context(), o, a.io())
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.Out, "output", "o", "", "the HTML file to write (- for stdout)")
	registerStore(fs, &o.Store)
	fs.StringVar(&o.Trend.Metric, "trend", "", "add this figure's trend (qps, p50, p99, or OP:p99) from the results store")
	fs.IntVar(&o.Trend.Window, "window", o.Trend.Window, "with --trend: judge each run against this many runs before it")
	fs.StringArrayVar(&o.Store.Where, "where", nil, "with --trend: only runs where KEY=VALUE (tag.NAME, target.kind, target.version, ...)")
	fs.StringVar(&o.Store.Since, "since", "", "with --trend: only runs started since (30d, 12h, or a date)")
	fs.StringVar(&o.Store.Workload, "workload", "", "with --trend: only runs whose command contains this")
	return cmd
}
