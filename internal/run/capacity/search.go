package capacity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/pkg/result"
)

// Defaults of the search's settings.
const (
	DefaultWindow    = 10 * time.Second
	DefaultWarmup    = 2 * time.Second
	DefaultPrecision = 0.02
	DefaultStart     = 1000
	DefaultMaxSteps  = 20
)

// RunAt runs one fixed-rate, open-loop step: warm-up, then window.
type RunAt func(ctx context.Context, rate float64, window, warmup time.Duration) (*result.Run, error)

// Options configure a search.
type Options struct {
	SLO SLO
	// Window is how long each step measures, after Warmup.
	Window, Warmup time.Duration
	// Precision ends the bisection when the bracket is this narrow
	// (0.02: within 2% of the rate that held).
	Precision float64
	// Start is the first rate tried; the ramp doubles it until the SLO
	// breaks (or halves it until the SLO holds).
	Start float64
	// MaxSteps bounds the search (default 20).
	MaxSteps int
	// Log receives one line per step.
	Log     io.Writer
	Version string
}

// Search finds the highest rate that meets the SLO.
func Search(ctx context.Context, o Options, run RunAt) (*result.CapacitySearch, error) {
	if o.Start <= 0 || o.Window <= 0 || o.Precision <= 0 || len(o.SLO) == 0 {
		return nil, errors.New("capacity: need an SLO, a start rate, a window and a precision")
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	c := &result.CapacitySearch{Header: result.NewHeader(result.SchemaCapacity, o.Version), SLO: o.SLO.String(),
		WindowS: o.Window.Seconds(), WarmupS: o.Warmup.Seconds(), Precision: o.Precision, Steps: []result.CapacityStep{}, Warnings: []string{}}
	step := func(rate float64) (result.CapacityStep, error) {
		r, err := run(ctx, rate, o.Window, o.Warmup)
		if err != nil {
			return result.CapacityStep{}, fmt.Errorf("step at %.0f/s: %w", rate, err)
		}
		st := result.CapacityStep{Rate: rate, Run: r, Why: o.SLO.Check(r, rate)}
		st.Held = len(st.Why) == 0
		if sc := r.Totals.Schedule; sc != nil && r.Totals.Requests > 0 &&
			float64(sc.ClientLags) > report.ClientLagThreshold*float64(r.Totals.Requests) || r.Client.Saturated {
			c.ClientBound = true
		}
		state := "held"
		if !st.Held {
			state = fmt.Sprintf("broke: %v", st.Why)
		}
		fmt.Fprintf(log, "step %2d  %10.0f/s  %s\n", len(c.Steps)+1, rate, state)
		return st, nil
	}
	good, bad := 0.0, 0.0
	rate := o.Start
	// Ramp: double until the SLO breaks or, when the first rate already
	// breaks it, halve until one holds.
	for len(c.Steps) < o.MaxSteps && ctx.Err() == nil && rate >= minRate {
		st, err := step(rate)
		if err != nil {
			return c, err
		}
		c.Steps = append(c.Steps, st)
		if st.Held {
			good = rate
			if bad > 0 {
				break
			}
			rate *= 2
			continue
		}
		bad = rate
		if good > 0 {
			break
		}
		rate = math.Round(rate / 2)
	}
	// Bisect between the last rate that held and the first that broke.
	for bad > 0 && good > 0 && (bad-good)/good > o.Precision && len(c.Steps) < o.MaxSteps && ctx.Err() == nil {
		mid := math.Round((good + bad) / 2)
		st, err := step(mid)
		if err != nil {
			return c, err
		}
		c.Steps = append(c.Steps, st)
		if st.Held {
			good = mid
		} else {
			bad = mid
		}
	}
	c.HighestHeld, c.BrokeAt = good, bad
	switch {
	case ctx.Err() != nil:
		c.Warnings = append(c.Warnings, "interrupted: the search did not finish")
	case good == 0:
		c.Warnings = append(c.Warnings, fmt.Sprintf("no rate tried held the SLO, down to %.0f/s", bad))
	case bad == 0:
		c.Warnings = append(c.Warnings, fmt.Sprintf("the SLO held up to %.0f/s, the last rate tried: the search stopped at its step limit", good))
	case (bad-good)/good > o.Precision:
		c.Warnings = append(c.Warnings, "the step limit stopped the bisection before the set precision")
	}
	if c.ClientBound {
		c.Warnings = append(c.Warnings, "at some step the client, not the server, was the limit: the answer is a lower bound")
	}
	if good > 0 && ctx.Err() == nil {
		if err := confirm(ctx, c, o, step); err != nil {
			return c, err
		}
	}
	if why := contradiction(c); why != "" {
		c.Unstable, c.UnstableWhy, c.HighestHeld = true, why, 0
		c.Warnings = append(c.Warnings, "no stable answer: "+why)
	} else if n := len(c.Confirmations); n > 1 && c.Confirm != nil {
		c.Warnings = append(c.Warnings, fmt.Sprintf("the confirming run at %.0f/s broke the SLO: the answer stepped down to %.0f/s, which held when run again; the run-to-run noise is larger than the precision (widen the window)",
			c.Confirmations[0].Rate, c.HighestHeld))
	}
	return c, nil
}

// contradictBeyond is how far above a rate that broke the SLO a rate
// may hold before the runs contradict a single capacity: the first rung of
// the confirmation's step-down (90 %), the run-to-run noise at the knee
// that an answer absorbs.
const contradictBeyond = 0.10

// contradiction says how the search's runs (its steps and confirming
// runs) contradict a single capacity: a rate that held more than
// contradictBeyond above one that broke. "" when they do not. It names the
// highest rate held below every break (a lower bound, within the noise)
// and lists every run.
func contradiction(c *result.CapacitySearch) string {
	all := append(slices.Clone(c.Steps), c.Confirmations...)
	held, broke := 0.0, math.Inf(1)
	for _, st := range all {
		if st.Held {
			held = max(held, st.Rate)
		} else {
			broke = min(broke, st.Rate)
		}
	}
	if held <= broke*(1+contradictBeyond) {
		return ""
	}
	why := fmt.Sprintf("%.0f/s held %s but %.0f/s, %.0f%% lower, broke it: the run-to-run noise exceeds the SLO's margin (widen the window)",
		held, c.SLO, broke, 100*(1-broke/held))
	below := 0.0
	for _, st := range all {
		if st.Held && st.Rate < broke {
			below = max(below, st.Rate)
		}
	}
	if below > 0 {
		why += fmt.Sprintf("; below every break, %.0f/s held", below)
	}
	runs := func(sts []result.CapacityStep) string {
		parts := make([]string, len(sts))
		for i, st := range sts {
			parts[i] = fmt.Sprintf("%.0f broke", st.Rate)
			if st.Held {
				parts[i] = fmt.Sprintf("%.0f held", st.Rate)
			}
		}
		return strings.Join(parts, ", ")
	}
	why += "; steps: " + runs(c.Steps)
	if len(c.Confirmations) > 0 {
		why += "; run again: " + runs(c.Confirmations)
	}
	return why
}

// MostRuns is the most runs a search with o makes: its steps and the
// confirming runs.
func (o Options) MostRuns() int {
	steps := o.MaxSteps
	if steps <= 0 {
		steps = DefaultMaxSteps
	}
	return steps + len(confirmFractions)
}

// confirmFractions are the fractions of the search's answer that the
// confirmation tries, in turn, until one holds.
var confirmFractions = []float64{1, 0.9, 0.8, 0.65, 0.5}

// confirm runs the answer again, to show the run-to-run noise. When the
// confirming run breaks the SLO, the runs contradict each other and the
// search has no answer (contradiction); the lower rates are still run
// again (confirmRates) until one holds, to give a lower bound.
func confirm(ctx context.Context, c *result.CapacitySearch, o Options, step func(float64) (result.CapacityStep, error)) error {
	for _, rate := range confirmRates(c) {
		if ctx.Err() != nil {
			break
		}
		st, err := step(rate)
		if err != nil {
			return err
		}
		c.Confirmations = append(c.Confirmations, st)
		if !st.Held {
			c.BrokeAt = rate
			continue
		}
		c.Confirm = &st
		if first := stepAt(c, rate); first.Run != nil {
			c.Noise = math.Abs(o.SLO.margin(st.Run) - o.SLO.margin(first.Run))
		}
		c.HighestHeld = rate
		return nil
	}
	return nil // every confirming run broke: contradiction says so
}

// confirmRates are the rates the confirmation tries in turn: the answer,
// then 90%, 80%, 65% and 50% of it, so that after a break the steps leave
// the noise that broke it and still reach half the answer.
func confirmRates(c *result.CapacitySearch) []float64 {
	var out []float64
	for _, f := range confirmFractions {
		if r := math.Round(c.HighestHeld * f); r >= minRate && (len(out) == 0 || r < out[len(out)-1]) {
			out = append(out, r)
		}
	}
	return out
}

// heldRates are the rates that held in the search, highest first.
func heldRates(c *result.CapacitySearch) []float64 {
	var out []float64
	for _, st := range c.Steps {
		if st.Held && !slices.Contains(out, st.Rate) {
			out = append(out, st.Rate)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out
}

// minRate is the lowest rate the search tries (requests per second).
const minRate = 1

// MakeSpec returns the runner spec of one step. Each call makes a fresh
// spec, since a spec's factory and server sampler belong to one run.
type MakeSpec func() (run.Spec, error)

// SearchSpecs searches with each step a run of mk's spec made open-loop at
// the step's rate for the window after the warm-up; the spec's own budget
// (a count or a duration) and progress printer are dropped.
func SearchSpecs(ctx context.Context, o Options, mk MakeSpec) (*result.CapacitySearch, error) {
	return Search(ctx, o, SpecRuns(mk))
}

// SpecRuns is the step that runs mk's spec open-loop at the step's rate
// for the window after the warm-up, without its own budget or progress.
func SpecRuns(mk MakeSpec) RunAt {
	return func(ctx context.Context, rate float64, window, warmup time.Duration) (*result.Run, error) {
		spec, err := mk()
		if err != nil {
			return nil, err
		}
		spec.Name = fmt.Sprintf("rate %.0f", rate)
		e := &spec.Engine
		e.Rate, e.Duration, e.Warmup = rate, window, warmup
		e.Ops, e.OpsPerWorker, e.Progress = 0, 0, nil
		return run.Run(ctx, spec)
	}
}

// Answer is the step that gives the search's answer: the confirming run,
// or else the last step at the highest rate that held (nil when none held).
func Answer(c *result.CapacitySearch) *result.CapacityStep {
	if c == nil || c.HighestHeld == 0 {
		return nil
	}
	if c.Confirm != nil && c.Confirm.Held {
		return c.Confirm
	}
	st := stepAt(c, c.HighestHeld)
	return &st
}

// stepAt is the last step of the search run at rate.
func stepAt(c *result.CapacitySearch, rate float64) result.CapacityStep {
	for i := len(c.Steps) - 1; i >= 0; i-- {
		if c.Steps[i].Rate == rate {
			return c.Steps[i]
		}
	}
	return result.CapacityStep{}
}

// Case runs one case of a suite: once as mk's spec says when o is nil, or
// else as a capacity search for o's SLO. The run returned is then the
// answer's (the first step's when no rate held).
func Case(ctx context.Context, o *Options, mk MakeSpec) (*result.Run, *result.CapacitySearch, error) {
	if o == nil {
		spec, err := mk()
		if err != nil {
			return nil, nil, err
		}
		run, err := run.Run(ctx, spec)
		return run, nil, err
	}
	c, err := SearchSpecs(ctx, *o, mk)
	if err != nil || len(c.Steps) == 0 {
		if err == nil {
			err = errors.New("capacity: the search ran no step")
		}
		return nil, c, err
	}
	st := Answer(c)
	if st == nil {
		st = &c.Steps[0]
	}
	return st.Run, c, nil
}
