package cli

import (
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/frontend/output"
)

// outputFlags select the result files of a single run and its pass/fail
// thresholds.
type outputFlags struct {
	output.Options
}

// registerFiles binds the result files but --json (among tairbench's own
// options), -q and the gate.
func (o *outputFlags) registerFiles(fs *pflag.FlagSet) {
	fs.StringVar(&o.CSV, "csv", "", "write the per-second series as CSV to this file")
	fs.StringVar(&o.HGRM, "hgrm", "", "write the latency percentile distribution (.hgrm) to this file")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "no per-second progress lines")
	registerGate(fs, &o.Gate)
}

// gateFlags make a run (or a merge) a pass/fail gate.
type gateFlags struct {
	output.Gate
}

func (g *gateFlags) register(fs *pflag.FlagSet) { registerGate(fs, &g.Gate) }

// registerGate binds --threshold and --junit to g.
func registerGate(fs *pflag.FlagSet, g *output.Gate) {
	fs.StringArrayVar(&g.Thresholds, "threshold", nil, "fail (exit 99) unless the run meets this: p99<2ms, errors<0.1%, qps>50000, GET:p99<1ms (repeatable)")
	fs.StringVar(&g.JUnit, "junit", "", "write the thresholds' verdicts as JUnit XML to this file")
}
