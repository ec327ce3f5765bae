package roaring

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/run/capacity"
)

// Words are 'tairbench roaring' as the user gave it: tairbench's own
// options (common.Options), the server and the suite's choices, before
// any is checked.
type Words struct {
	common.Options
	// Server is the target's address, login and TLS (its Embedded and
	// Timeout come from Options).
	Server target.Options
	// Filter selects cases; CasesGiven says --cases was given.
	Filter     string
	CasesGiven bool
	List       bool
	// CaseDuration is --duration-per-case; Flush empties the target first.
	CaseDuration time.Duration
	Flush        bool
	// SetOpData is random or runs.
	SetOpData string
	// SLO, when set, makes every case a capacity search.
	SLO *capacity.Options
	// WithStat adds the TR.STAT sampling that Stat describes.
	WithStat bool
	Stat     StatWords
}

// StatWords are the TR.STAT sampling's words: Dists is a comma list of
// distributions, the rest as StatOptions.
type StatWords struct {
	Dists     string
	MaxCard   uint64
	Steps     int
	Universe  uint64
	RunLength int
}

// Options checks the words and returns the sampling's options (seed 1).
func (w StatWords) Options() (StatOptions, error) {
	o := StatOptions{MaxCard: w.MaxCard, Steps: w.Steps, Universe: w.Universe, RunLength: w.RunLength, Seed: 1}
	for _, d := range strings.Split(w.Dists, ",") {
		switch d = strings.TrimSpace(d); d {
		case DistSparse, DistRandom, DistRuns:
			o.Distributions = append(o.Distributions, d)
		case "":
		default:
			return o, fmt.Errorf("unknown --stat-dist %q (sparse, random, runs)", d)
		}
	}
	return o, o.Validate()
}

// options checks the words and returns the suite's options.
func (w Words) options() (Options, error) {
	o := Options{Filter: w.Filter, CasesGiven: w.CasesGiven || w.Embedded, List: w.List, JSON: w.JSON, DryRun: w.DryRun,
		Server: w.Target(w.Server), Metrics: w.Sinks}
	o.CaseDuration, o.Seed, o.Flush, o.SetOpData, o.SLO = w.CaseDuration, w.Seed, w.Flush, w.SetOpData, w.SLO
	o.ServerStats = !w.NoServerStats
	if w.SetOpData != SetOpRandom && w.SetOpData != SetOpRuns {
		return o, fmt.Errorf("--setop-data %q: want random or runs", w.SetOpData)
	}
	if w.List {
		return o, nil
	}
	if w.CaseDuration <= 0 {
		return o, errors.New("--duration-per-case must be above 0")
	}
	if w.WithStat {
		so, err := w.Stat.Options()
		if err != nil {
			return o, err
		}
		o.Stat = &so
	}
	return o, nil
}

// MainWords checks the words and runs the suite (Main).
func MainWords(ctx context.Context, w Words, io harness.IO) error {
	o, err := w.options()
	if err != nil {
		return err
	}
	return Main(ctx, o, io)
}
