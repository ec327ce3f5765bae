package cli

import (
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/frontend/harness"
)

// outputFlags select the result files of a single run.
type outputFlags struct{ harness.Outputs }

func (o *outputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.JSON, "json", "", "write the result as JSON to this file (- for stdout)")
	fs.StringVar(&o.CSV, "csv", "", "write the per-second series as CSV to this file")
	fs.StringVar(&o.HGRM, "hgrm", "", "write the latency percentile distribution (.hgrm) to this file")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "no per-second progress lines")
}
