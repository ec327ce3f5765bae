// Package run runs one benchmark through the engine and turns its
// statistics into a result.Run with its warnings.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/events"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// Spec is one run: what to measure and how.
type Spec struct {
	// Name names the run within a suite; Command is what it sends.
	Name    string
	Command string
	// Version is the tool version recorded in the result.
	Version string
	// Config describes the target and workload; Run fills in the engine's
	// part (connections, duration, count, warm-up, error budget).
	Config  result.RunConfig
	Engine  engine.Config
	Factory engine.Factory
	// Sampler, when set, reads the server's own counters once a second
	// during the run; Reconcile names the commands (lower case) whose
	// server-side calls must equal the client's count of commands.
	Sampler   Sampler
	Reconcile []string
	// Log receives a line when the server's statistics cannot be read.
	Log io.Writer
	// Operations describes a mixed workload's operation types (name,
	// command, weight), in the order of Engine.Operations; nil otherwise.
	Operations []result.Operation
	// Identify, when set, asks the target who it is before the run (the
	// result's target then names the server: its name, version, modules,
	// and whether it is tairbench's embedded server). An *Unusable error
	// stops the run before it starts; any other leaves the target unnamed.
	Identify func(context.Context) (*result.ServerIdentity, error)
	// Sinks receive the run as it goes, besides those its context
	// carries (WithSinks).
	Sinks []Sink
	// Actor, set for a target that can go through events (a RESP
	// server), carries out the events the run's context holds
	// (WithEvents).
	Actor events.Actor
	// Routing, set for a factory that routes over a Redis Cluster when
	// the target is one, says what its routing followed (nil for a
	// standalone target). Its workers may connect to every node, so the
	// server's client count is not held against the run's connections.
	Routing func() *result.ClusterRouting
}

// Run executes the spec and returns its result, which holds its
// histograms (result.Run.LatencyHistogram).
func Run(ctx context.Context, s Spec) (*result.Run, error) {
	silent, err := identify(ctx, &s)
	if err != nil {
		return nil, err
	}
	ev, err := prepareEvents(ctx, &s)
	if err != nil {
		return nil, err
	}
	live := observe(ctx, &s)
	var tl *timeline
	if s.Sampler != nil && silent != nil {
		// Its first reading would wait as long again for nothing.
		s.Sampler.Close()
		if s.Log != nil {
			fmt.Fprintf(s.Log, "server statistics unavailable (identification: %v): the run goes on without them\n", silent)
		}
	} else if s.Sampler != nil {
		defer s.Sampler.Close()
		var err error
		if tl, err = startTimeline(ctx, s.Sampler); err != nil && s.Log != nil {
			fmt.Fprintf(s.Log, "server statistics unavailable (%v): the run goes on without them\n", err)
		}
	}
	res, err := engine.Run(ctx, s.Engine, s.Factory)
	if ev != nil {
		ev.finish(res)
	}
	if err != nil {
		if tl != nil {
			tl.finish(context.Background(), time.Now(), 0)
		}
		return nil, err
	}
	var server *result.ServerTimeline
	if tl != nil {
		server = tl.finish(context.WithoutCancel(ctx), res.StartedAt.Add(s.Engine.Warmup), res.Elapsed)
		if len(s.Reconcile) > 0 {
			t := res.Snapshot.Totals
			cv := clientView{Counted: t.Ops + t.WarmupOps + t.AfterDeadlineOps, Lost: t.LostOps, Connections: s.Engine.Workers,
				Interrupted: res.StopReason == engine.StopInterrupted, Follows: s.Config.Target != nil && s.Config.Target.MasterName != ""}
			if s.Routing != nil {
				cv.Connections = 0 // each worker may connect to every node
			}
			server.Reconciliation = tl.reconcile(s.Reconcile, cv, res.StartedAt.Add(s.Engine.Warmup))
			if server.Reconciliation == nil {
				server.Missing = append(server.Missing, "commandstats")
			}
		}
	}
	r := assemble(s, res, server)
	if ev != nil {
		r.Events = ev.part
		markSeries(r)
	}
	live.final(r)
	return r, nil
}

// assemble converts an engine result and the server's timeline (nil when
// not sampled) into a result.Run with its warnings.
func assemble(s Spec, res *engine.Result, server *result.ServerTimeline) *result.Run {
	snap := res.Snapshot
	cfg := s.Config
	cfg.Connections = s.Engine.Workers
	cfg.DurationS = s.Engine.Duration.Seconds()
	cfg.Count = s.Engine.Ops
	cfg.WarmupS = s.Engine.Warmup.Seconds()
	cfg.MaxErrors = s.Engine.MaxErrors
	r := &result.Run{
		Header:     result.Header{Schema: result.SchemaRun, Version: s.Version, StartedAt: res.StartedAt.UTC()},
		Name:       s.Name,
		Command:    s.Command,
		Config:     cfg,
		Seeds:      result.Seeds(res.Seeds),
		DurationMS: float64(res.Elapsed) / float64(time.Millisecond),
		WarmupMS:   float64(s.Engine.Warmup) / float64(time.Millisecond),
		StopReason: string(res.StopReason),
		Totals:     snap.Totals,
		Errors:     snap.Errors,
		Series:     snap.Series,
	}
	if r.Errors == nil {
		r.Errors = []result.ErrorCount{}
	}
	if r.Series == nil {
		r.Series = []result.Interval{}
	}
	r.Totals.LatencyPerOp = r.Totals.OpsPerRequest == 1
	cores := runtime.NumCPU()
	c := result.Client{
		CPUUserMS:       float64(res.CPU.User) / 1e6,
		CPUSysMS:        float64(res.CPU.Sys) / 1e6,
		Cores:           cores,
		InProcessServer: cfg.Target != nil && cfg.Target.InProcess,
	}
	c.Host, _ = os.Hostname()
	if total := snap.Totals.Ops + snap.Totals.WarmupOps; total > 0 {
		c.CPUPerOpUS = float64(res.CPU.Total()) / 1e3 / float64(total)
	}
	if res.CPU.Wall > 0 {
		c.CPUUtil = float64(res.CPU.Total()) / float64(res.CPU.Wall)
		// A client using nearly all cores cannot tell its own limits from the server's.
		c.Saturated = c.CPUUtil >= 0.9*float64(cores) && res.CPU.Wall > 200*time.Millisecond
	}
	r.Client = c
	for i, o := range snap.Operations {
		if i < len(s.Operations) {
			o.Command, o.Weight, o.MissesHidden = s.Operations[i].Command, s.Operations[i].Weight, s.Operations[i].MissesHidden
		}
		o.Histogram = result.EncodeHistogram(snap.OpHistograms[i])
		if i < len(snap.OpCorrected) {
			o.HistogramCorrected = result.EncodeHistogram(snap.OpCorrected[i])
		}
		r.Operations = append(r.Operations, o)
	}
	r.Availability = result.Availability(res.Availability)
	if s.Routing != nil {
		r.Cluster = s.Routing()
	}
	r.Server = server
	r.Histogram = result.EncodeHistogram(snap.Histogram)
	r.HistogramCorrected = result.EncodeHistogram(snap.Corrected)
	if sc := r.Totals.Schedule; sc != nil {
		sc.Rate, sc.Arrivals = s.Engine.Rate, s.Engine.Arrivals
		if sc.Arrivals == "" {
			sc.Arrivals = engine.ArrivalsConstant
		}
		sc.AchievedRate = r.Totals.RequestsPerSec
		if d := res.Elapsed.Seconds(); d > 0 && sc.Sent+sc.NotSent > 0 {
			sc.AchievedRate = float64(sc.Sent) / d
		}
		sc.SendGridUS = float64(res.SendGrid) / 1e3
	}
	r.Warnings = report.Warnings(r)
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	return r
}

// Unusable is an Identify error that says the target cannot serve the run
// at all (a refused login: every command would fail; a server that does
// not speak the protocol).
type Unusable struct{ Err error }

func (u *Unusable) Error() string { return u.Err.Error() }

// Unwrap gives the cause.
func (u *Unusable) Unwrap() error { return u.Err }

// identify records who the target is in a copy of the spec's target.
// silent is the identification's timeout when the target did not answer
// it in time (the run still starts: it measures the silence).
func identify(ctx context.Context, s *Spec) (silent, err error) {
	if s.Identify == nil || s.Config.Target == nil {
		return nil, nil
	}
	id, err := s.Identify(ctx)
	var u *Unusable
	if errors.As(err, &u) {
		return nil, fmt.Errorf("%s: %s: the run did not start", s.Config.Target.Addr, u.Err)
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return err, nil
	}
	if err != nil {
		return nil, nil // the run will say what else is wrong with the target
	}
	t := *s.Config.Target
	t.Server = id
	s.Config.Target = &t
	return nil, nil
}
