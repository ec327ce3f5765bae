package whitepaper

import (
	"context"
	"errors"
	"time"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/run/capacity"
)

// Words are 'tairbench suite NAME' as the user gave it: tairbench's own
// options (common.Options: --embedded, --json, --seed, --no-server-stats,
// --dry-run, --timeout and the metrics), the server and the suite's sizes.
type Words struct {
	common.Options
	// Suite is one of Suites.
	Suite string
	// Server is the target's address, login and TLS; Remote says the user
	// named it (--host or --port).
	Server target.Options
	Remote bool
	// Requests is the enhanced edition's -n per case; TestTime the
	// cluster line's --test-time; Sizes the enhanced value sizes (nil:
	// all four).
	Requests int64
	TestTime time.Duration
	Sizes    []int
	// Records, Operations, Threads and Groups size the YCSB suites.
	Records, Operations int64
	Threads             int
	Groups              []string
	// SLO, when set, makes every measured case a capacity search.
	SLO *capacity.Options
	// Fraction, Keys, ValueSize and CaseTime size the persistence suite.
	Fraction        float64
	Keys, ValueSize int
	CaseTime        time.Duration
}

// MainWords checks the words and runs the suite (Main).
func MainWords(ctx context.Context, w Words, io harness.IO) error {
	if w.Requests < 1 {
		return errors.New("--requests must be at least 1")
	}
	opts := Options{Requests: w.Requests, TestTime: w.TestTime, Sizes: w.Sizes, Seed: w.Seed, NoServerStats: w.NoServerStats, SLO: w.SLO}
	if w.Suite == "persistence" {
		switch {
		case w.Remote || w.Embedded:
			return errors.New("suite persistence starts its own redis-servers (each case's persistence is its configuration): leave --host, --port and --embedded out")
		case len(w.Events.Specs) > 0 || w.Events.File != "":
			return errors.New("suite persistence has its own events (a BGSAVE, an AOF rewrite): leave --event and --events out")
		case w.SLO != nil:
			return errors.New("suite persistence runs each case at --fraction of the capacity it measures: leave --slo out")
		case w.Fraction < 0 || w.Fraction > 1:
			return errors.New("--fraction must be above 0 and at most 1")
		}
	}
	ro := RunOptions{Suite: w.Suite, Remote: w.Remote, JSON: w.JSON, DryRun: w.DryRun,
		YCSBOptions: YCSBOptions{Options: opts, Records: w.Records, Operations: w.Operations, Threads: w.Threads, Groups: w.Groups},
		Persistence: PersistenceOptions{Options: opts, Fraction: w.Fraction, Keys: w.Keys, ValueSize: w.ValueSize, Duration: w.CaseTime}}
	return Main(ctx, ro, w.Target(w.Server), w.Sinks, io)
}
