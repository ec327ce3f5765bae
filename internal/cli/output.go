package cli

import (
	"context"
	"time"

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

// around runs f with the metrics endpoint up (when asked), then waits for
// its last scrape; f's error wins.
func (m *metricsFlags) around(ctx context.Context, a *app, f func(context.Context) error) error {
	_, err := harness.MetricsAround(ctx, a.io(), m.addr, m.linger, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, f(ctx)
	})
	return err
}
