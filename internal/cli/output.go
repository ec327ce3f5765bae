package cli

import (
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/threshold"
)

// outputFlags select the result files of a single run and its pass/fail
// thresholds.
type outputFlags struct {
	harness.Outputs
	gate gateFlags
}

func (o *outputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.JSON, "json", "", "write the result as JSON to this file (- for stdout)")
	fs.StringVar(&o.CSV, "csv", "", "write the per-second series as CSV to this file")
	fs.StringVar(&o.HGRM, "hgrm", "", "write the latency percentile distribution (.hgrm) to this file")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "no per-second progress lines")
	o.gate.register(fs)
}

// outputs are the result files with the thresholds parsed.
func (o *outputFlags) outputs() (harness.Outputs, error) {
	out := o.Outputs
	var err error
	out.Thresholds, err = threshold.ParseAll(o.gate.thresholds)
	out.JUnit = o.gate.junit
	return out, err
}

// gateFlags make a run (or a merge) a pass/fail gate.
type gateFlags struct {
	thresholds []string
	junit      string
}

func (g *gateFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&g.thresholds, "threshold", nil, "fail (exit 99) unless the run meets this: p99<2ms, errors<0.1%, qps>50000, GET:p99<1ms (repeatable)")
	fs.StringVar(&g.junit, "junit", "", "write the thresholds' verdicts as JUnit XML to this file")
}
