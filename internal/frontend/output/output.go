// Package output is what a run writes besides its summary, as the user
// asked for it: result files, the per-second lines, pass/fail thresholds
// and their JUnit report. Options are the user's words; Parse makes the
// Outputs a front-end's Run takes.
package output

import (
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/threshold"
)

// Options are a single run's outputs as the user gave them.
type Options struct {
	// JSON, CSV and HGRM are paths ("" none; "-" standard output).
	JSON, CSV, HGRM string
	// Quiet turns the per-second progress lines off.
	Quiet bool
	// Gate makes the run pass or fail.
	Gate Gate
}

// Gate is a pass/fail gate: thresholds as written (p99<2ms,
// errors<0.1%, GET:p99<1ms) and the JUnit file for their verdicts.
type Gate struct {
	Thresholds []string
	JUnit      string
}

// Parse returns the outputs with the thresholds parsed; an unwritable
// JUnit path is refused before the run.
func (o Options) Parse() (harness.Outputs, error) {
	ts, err := o.Gate.Parse()
	out := harness.Outputs{JSON: o.JSON, CSV: o.CSV, HGRM: o.HGRM, Quiet: o.Quiet, Thresholds: ts, JUnit: o.Gate.JUnit}
	return out, err
}

// Parse parses the thresholds and checks that the JUnit path can be written.
func (g Gate) Parse() ([]threshold.Threshold, error) {
	ts, err := threshold.ParseAll(g.Thresholds)
	if err != nil {
		return nil, err
	}
	return ts, harness.CheckPaths(g.JUnit)
}
