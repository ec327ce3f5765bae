package flagval

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/run/capacity"
)

// Capacity holds the capacity search's command-line options (--slo and its
// settings), shared by every load command and front-end that takes them.
type Capacity struct {
	SLO      string
	opts     capacity.Options
	startSet func() bool
}

// Register adds --slo, --slo-window, --slo-warmup, --slo-precision,
// --slo-start and --slo-max-steps to fs.
func (f *Capacity) Register(fs *pflag.FlagSet) {
	f.opts = capacity.Options{Window: capacity.DefaultWindow, Warmup: capacity.DefaultWarmup, Precision: capacity.DefaultPrecision, Start: capacity.DefaultStart, MaxSteps: capacity.DefaultMaxSteps}
	fs.StringVar(&f.SLO, "slo", "", `capacity search: the highest open-loop rate that meets this target, e.g. 'p99<2ms' or 'p99.9<10ms,errors<0.1%'`)
	fs.Var(Seconds{D: &f.opts.Window}, "slo-window", "capacity search: seconds each step measures")
	fs.Var(Seconds{D: &f.opts.Warmup}, "slo-warmup", "capacity search: warm-up seconds before each step's window")
	fs.Float64Var(&f.opts.Precision, "slo-precision", capacity.DefaultPrecision, "capacity search: stop when the bracket is this narrow (0.02 = 2%)")
	fs.Float64Var(&f.opts.Start, "slo-start", capacity.DefaultStart, "capacity search: the first rate tried (requests/s in all); the ramp doubles it")
	fs.IntVar(&f.opts.MaxSteps, "slo-max-steps", capacity.DefaultMaxSteps, "capacity search: most steps")
	f.startSet = func() bool { return fs.Changed("slo-start") }
}

// Given reports whether --slo was set.
func (f *Capacity) Given() bool { return f.SLO != "" }

// StartGiven reports whether --slo-start was set (a front-end's own rate
// option then does not replace it).
func (f *Capacity) StartGiven() bool { return f.startSet != nil && f.startSet() }

// Options checks the flags and returns the search's options.
func (f *Capacity) Options() (capacity.Options, error) {
	slo, err := capacity.ParseSLO(f.SLO)
	if errors.Is(err, capacity.ErrEmptySLO) {
		return capacity.Options{}, errors.New("--slo is empty")
	}
	if err != nil {
		return capacity.Options{}, fmt.Errorf("--slo %w", err)
	}
	o := f.opts
	if o.Window <= 0 || o.Precision <= 0 || o.Precision >= 1 || o.Start <= 0 || o.MaxSteps < 2 {
		return capacity.Options{}, errors.New("--slo-window and --slo-start must be above 0, --slo-precision between 0 and 1, --slo-max-steps at least 2")
	}
	o.SLO = slo
	return o, nil
}

// Optional is Options when --slo was given, and nil otherwise.
func (f *Capacity) Optional() (*capacity.Options, error) {
	if !f.Given() {
		return nil, nil
	}
	o, err := f.Options()
	if err != nil {
		return nil, err
	}
	return &o, nil
}
