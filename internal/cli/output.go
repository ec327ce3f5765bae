package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/frontend/output"
)

// outputFlags select the result files of a single run and its pass/fail
// thresholds.
type outputFlags struct {
	output.Options
}

func (o *outputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.JSON, "json", "", "write the result as JSON to this file (- for stdout)")
	o.registerFiles(fs)
}

// registerFiles binds the result files but --json (a command whose --json
// is among tairbench's own options), -q and the gate.
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

// metricsFlags serve a command's runs live (--metrics-addr).
type metricsFlags struct {
	addr   string
	linger time.Duration
}

func (m *metricsFlags) register(fs *pflag.FlagSet) {
	m.linger = 30 * time.Second
	fs.StringVar(&m.addr, "metrics-addr", "", "serve the runs' metrics (Prometheus) on HOST:PORT while they run")
	fs.Var(seconds(&m.linger), "metrics-linger", "after the runs, wait at most this long for a last scrape of --metrics-addr")
}

// words are the metrics flags as a front-end takes them.
func (m *metricsFlags) words() output.Sinks {
	return output.Sinks{MetricsAddr: m.addr, MetricsLinger: m.linger}
}
