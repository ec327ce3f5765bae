package whitepaper

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// Suites names the tables 'tairbench suite' runs.
var Suites = []string{"enhanced", "cluster", "pmem", "essd", "persistence"}

// RunOptions are 'tairbench suite NAME': the suite, its sizes, and where
// it runs.
type RunOptions struct {
	// Suite is one of Suites.
	Suite string
	YCSBOptions
	// Target is the server (started by the command line with --embedded);
	// Remote says it was given (--host or --port), LocalRedis that a YCSB
	// suite without one starts a redis-server on a free port instead.
	Target     endpoint.Target
	Remote     bool
	LocalRedis bool
	// JSON is the suite document's path ("-": standard output).
	JSON string
	// DryRun prints the cases and sends nothing.
	DryRun bool
	// Persistence sizes the persistence suite.
	Persistence PersistenceOptions
}

// Main resolves the target: the embedded server for the RESP suites and a
// redis-server for the YCSB ones when the user named no server (Remote
// false), server otherwise; a dry run starts nothing. It runs the suite
// with the live metrics.
func Main(ctx context.Context, o RunOptions, server target.Options, m output.Sinks, io harness.IO) error {
	ycsbSuite := o.Suite == "pmem" || o.Suite == "essd"
	if !o.Remote && !ycsbSuite && o.Suite != "persistence" {
		server.Embedded = true
	}
	o.LocalRedis = ycsbSuite && !o.Remote && !server.Embedded
	if o.Suite != "persistence" { // it starts a server for each case
		tg, stop, err := target.Open(io, server, o.DryRun)
		if err != nil {
			return err
		}
		defer stop()
		o.Target = tg
	}
	return m.Run(ctx, io, func(ctx context.Context) error {
		_, err := Run(ctx, o, io)
		return err
	})
}

// Run runs one whitepaper table, prints it beside the published figures
// and writes the suite document; a case whose run failed makes the error
// exit status 3.
func Run(ctx context.Context, o RunOptions, io harness.IO) (*result.WhitepaperSuite, error) {
	if err := output.CheckPaths(o.JSON); err != nil {
		return nil, err
	}
	tg := o.Target
	if o.DryRun {
		return nil, dryRun(ctx, o, io)
	}
	if o.LocalRedis {
		addr, stop, err := target.StartRedisServer(io)
		if err != nil {
			return nil, err
		}
		defer stop()
		tg.Addr = addr
	}
	var id *result.ServerIdentity
	if o.Suite != "persistence" {
		id, _ = target.Identify(ctx, tg) // nil when the target will not say
	}
	o.Seed = harness.SeedOrNew(o.Seed)
	o.Version, o.Log = io.Version, io.Err
	var suite *result.WhitepaperSuite
	var err error
	switch o.Suite {
	case "cluster":
		suite, err = Cluster(ctx, tg, o.Options)
	case "pmem":
		suite, err = PMem(ctx, tg, o.YCSBOptions)
	case "essd":
		suite, err = ESSD(ctx, tg, o.YCSBOptions, o.Remote)
	case "persistence":
		po := o.Persistence
		po.Options.Seed, po.Options.Version, po.Options.Log, po.IO = o.Seed, o.Version, o.Log, io
		suite, err = Persistence(ctx, po) // each case names its own server
	default:
		suite, err = Enhanced(ctx, tg, o.Options)
	}
	if suite != nil && suite.Target != nil && id != nil {
		suite.Target.Server = id
	}
	if suite != nil && o.SLO != nil {
		suite.SLO = o.SLO.SLO.String()
	}
	if suite != nil && o.LocalRedis {
		suite.Scale += "; target: a redis-server started on this machine, not Tair (client and server share its cores)"
	}
	if suite != nil && len(suite.Cases) > 0 {
		if werr := Write(output.SummaryTo(io, o.JSON), suite); werr != nil {
			return suite, werr
		}
		if werr := output.Publish(ctx, io, o.JSON, suite); werr != nil {
			return suite, werr
		}
	}
	if err != nil {
		return suite, err
	}
	return suite, failure(suite)
}

// dryRun prints every case of the suite (loads included) on a plan.
func dryRun(ctx context.Context, o RunOptions, io harness.IO) error {
	p := harness.NewPlan(io.Out, "tairbench suite "+o.Suite)
	o.Plan, o.PlanTarget = p, target.Dry(o.Target.Addr, o.Target.InProcess)
	if o.LocalRedis {
		o.PlanTarget = "a redis-server this run would start on a free port"
	}
	o.Seed = harness.SeedOrNew(o.Seed)
	o.Version, o.Log = io.Version, io.Err
	var err error
	switch o.Suite {
	case "cluster":
		_, err = Cluster(ctx, o.Target, o.Options)
	case "pmem":
		_, err = PMem(ctx, o.Target, o.YCSBOptions)
	case "essd":
		_, err = ESSD(ctx, o.Target, o.YCSBOptions, o.Remote)
	case "persistence":
		po := o.Persistence
		po.defaults()
		where := "a redis-server this run would start on a free port"
		p.Load("fill", fmt.Sprintf("DEBUG POPULATE %d keys of %d bytes, before the capacity run and each case", po.Keys, po.ValueSize), 0)
		p.Run("capacity", persistenceCommand+" (persistence off)", where, engine.Config{Workers: po.Connections, Duration: 5 * time.Second, Warmup: time.Second})
		for _, c := range persistenceCases {
			p.RunAtShare(c.name+", event: "+orNone(c.event), persistenceCommand+" with "+strings.Join(c.args, " "), where,
				engine.Config{Workers: po.Connections, Duration: po.Duration}, po.Fraction)
		}
	default:
		_, err = Enhanced(ctx, o.Target, o.Options)
	}
	if err != nil {
		return err
	}
	p.Close()
	return nil
}

// failure is exit status 3 when a case's run failed (most commands
// failed, the target was unreachable or silent).
func failure(s *result.WhitepaperSuite) error {
	for _, c := range s.Cases {
		if why := report.FailureReason(c.Run); why != "" {
			return harness.RunFailed(fmt.Errorf("%s: %s", c.Name, why))
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
