package cli

import (
	"github.com/spf13/cobra"

	fitfront "github.com/tairbench/tairbench/internal/frontend/fit"
)

func newFitCmd(a *app) *cobra.Command {
	var o fitfront.Options
	cmd := &cobra.Command{
		Use:   "fit TRACE",
		Short: "Fit a trace into a workload file: key patterns, popularity, sizes, TTLs, rate, to run at any scale",
		Long: `Reads a trace (tairbench capture) and writes a tairbench workload: its keys
grouped into patterns (user:{id}:cart) and, per pattern and command, a weighted
template whose keys are drawn as the trace's were (a Zipf exponent fitted by
maximum likelihood, uniform, or in sequence), its values of the median size.
Beside the templates, what the fit found: per pattern its command mix, key
count and popularity (with the fit's Kolmogorov-Smirnov distance, and the hot
keys when no Zipf law fits), value sizes, TTLs, read-after-write and reuse
times; per trace its rate, burstiness, pipelining and MULTI use. Run it with
tairbench redis --workload FILE --rate 2x.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Trace = args[0]
			return fitfront.Main(o, a.io())
		},
	}
	cmd.Flags().StringVarP(&o.Out, "output", "o", "", "the workload file to write (YAML)")
	return cmd
}
