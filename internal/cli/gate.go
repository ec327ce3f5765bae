package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/gate"
)

func newGateCmd(a *app) *cobra.Command {
	var o gate.Options
	cmd := &cobra.Command{
		Use:   "gate",
		Short: "Judge a stored run against a baseline of earlier runs: exit 99 on a regression",
		Long: `Judges a stored run (--run, the latest by default) against a baseline of
earlier stored runs of the same workload and target kind (--baseline 'last 7
where tag.branch=main'). Each metric's change is taken from the baseline's
median. The defaults are redis-benchmarks-specification's: a regression beyond
5 %, a 3 % noise line, and "unstable, cannot tell" when the baseline's runs or
the run's seconds vary by more than 10 % (coefficient of variation). A
regression must also be established by the per-second test compare uses
(autocorrelation-aware, p < 0.01).

Exit status: 0 passed, 99 a regression, 4 unstable (cannot tell), 1 bad input.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return gate.Gate(c.Context(), o, a.io())
		},
	}
	fs := cmd.Flags()
	d := gate.Defaults()
	fs.StringVar(&o.Store, "store", os.Getenv("TAIRBENCH_STORE"), "the results store (an SQLite file; default $TAIRBENCH_STORE)")
	fs.StringVar(&o.Run, "run", d.Run, "the run to judge: latest, or an id from 'tairbench history'")
	fs.StringVar(&o.Baseline, "baseline", d.Baseline, "the runs to judge it against: 'last N [where KEY=VALUE and ...]' (keys: tag.NAME, target.kind, target.version, ...)")
	fs.StringVar(&o.Metrics, "metric", d.Metrics, "the figures to judge: qps, p50, p99 (comma-separated); OP:p99 judges one operation of a mixed run (GET:p99)")
	fs.Float64Var(&o.Regression, "regression", d.Regression, "a change worse than this many percent of the baseline's median is a regression")
	fs.Float64Var(&o.Noise, "noise", d.Noise, "a change within this many percent is noise")
	fs.Float64Var(&o.Unstable, "unstable", d.Unstable, "a side whose coefficient of variation passes this many percent cannot tell")
	fs.StringVar(&o.Markdown, "markdown", "", "also write the verdict as Markdown to this file (- for stdout)")
	fs.StringVar(&o.JUnit, "junit", "", "also write the verdict as JUnit XML to this file, one test case per metric")
	return cmd
}
