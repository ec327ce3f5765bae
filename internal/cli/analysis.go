package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/analysis"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// readRun reads a result file with one run: tairbench.run, or a
// tairbench.compat document of one test (tairbench ycsb, memtier).
func readRun(path string) (*result.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := result.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch d := doc.(type) {
	case *result.Run:
		return d, nil
	case *result.Compat:
		if len(d.Tests) == 1 && d.Tests[0].Run != nil {
			return d.Tests[0].Run, nil
		}
		return nil, fmt.Errorf("%s: %d tests in one %s document; merge and compare take one run per file", path, len(d.Tests), d.Tool)
	}
	return nil, fmt.Errorf("%s: a %s document, not one run", path, doc.Head().Schema)
}

func newMergeCmd(a *app) *cobra.Command {
	var out string
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
			var runs []*result.Run
			for _, p := range args {
				r, err := readRun(p)
				if err != nil {
					return err
				}
				runs = append(runs, r)
			}
			merged, err := analysis.Merge(runs)
			if err != nil {
				return err
			}
			if err := report.Text(summaryTo(a, out), merged, nil); err != nil {
				return err
			}
			return writeDocument(a, out, merged)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the merged result (tairbench.run/v2) to this file (- for stdout)")
	return cmd
}

func newResultCompareCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "compare A.json B.json",
		Short: "Compare two results and mark the differences larger than the run-to-run noise",
		Long: `Prints QPS, p50, p99, p99.9, max latency, errors and client CPU per command of
two tairbench.run results, B against A. QPS, p50 and p99 are also tested on
their per-second series (Mann-Whitney): a difference is marked significant
only when the series differ (p < 0.01) by more than their own per-second
variation, so that "B is 3% faster" is not said when the runs cannot tell.`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			ra, err := readRun(args[0])
			if err != nil {
				return err
			}
			rb, err := readRun(args[1])
			if err != nil {
				return err
			}
			if ra.Command != rb.Command {
				fmt.Fprintf(a.Err, "note: A ran %q, B ran %q\n", ra.Command, rb.Command)
			}
			return analysis.WriteCompare(a.Out, args[0], args[1], analysis.Compare(ra, rb))
		},
	}
}
