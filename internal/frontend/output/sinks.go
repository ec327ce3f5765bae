package output

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/metrics"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// Sinks are the live outputs a user asked for: every run of the command
// reports to each while it runs. Today: tairbench's per-second progress
// lines and the Prometheus endpoint. (The result document goes to the
// document sinks: Publish.)
type Sinks struct {
	// Progress prints tairbench's per-second lines on standard error for
	// each run, and after each run the seconds no tick printed.
	Progress bool
	// MetricsAddr serves the runs' metrics on HOST:PORT ("" none);
	// MetricsLinger is how long, after the runs, to wait for a last
	// scrape (0: 30 s).
	MetricsAddr   string
	MetricsLinger time.Duration
	// Store keeps every result document the command publishes in this
	// results store ("" none); Tags (k=v) are stored with each.
	Store string
	Tags  []string
	// Events are the events every run goes through (not an output: they
	// reach each run through the same context as the sinks).
	Events Events
}

// opener opens one sink when the options ask for it (nil otherwise) and
// returns the function that closes it after the runs.
type opener func(ctx context.Context, io harness.IO, s Sinks) (run.Sink, func() error, error)

// sinkList is every sink a command can open, one entry a sink.
var sinkList = []opener{
	openProgress,
	openMetrics,
}

// Open opens every sink asked for and returns ctx carrying them (every
// run under it reports to each) and the function that closes them.
func (s Sinks) Open(ctx context.Context, io harness.IO) (context.Context, func() error, error) {
	plan, err := s.Events.Plan()
	if err != nil {
		return ctx, nil, err
	}
	ctx = run.WithEvents(ctx, plan)
	var closers []func() error
	closeAll := func() error {
		var first error
		for i := len(closers) - 1; i >= 0; i-- {
			if err := closers[i](); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	if s.Store != "" {
		sink, err := openStore(ctx, io, s)
		if err != nil {
			return ctx, nil, err
		}
		ctx = WithDocumentSinks(ctx, sink)
	}
	for _, open := range sinkList {
		sink, closer, err := open(ctx, io, s)
		if err != nil {
			_ = closeAll()
			return ctx, nil, err
		}
		if sink != nil {
			ctx = run.WithSinks(ctx, sink)
			closers = append(closers, closer)
		}
	}
	return ctx, closeAll, nil
}

// Around runs f with the sinks open, then closes them; f's error wins.
func Around[T any](ctx context.Context, io harness.IO, s Sinks, f func(context.Context) (T, error)) (T, error) {
	ctx, closeAll, err := s.Open(ctx, io)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := f(ctx)
	if cerr := closeAll(); err == nil {
		err = cerr
	}
	return v, err
}

// Run is Around for a function with no value.
func (s Sinks) Run(ctx context.Context, io harness.IO, f func(context.Context) error) error {
	_, err := Around(ctx, io, s, func(ctx context.Context) (struct{}, error) { return struct{}{}, f(ctx) })
	return err
}

// progressSink is tairbench's per-second lines as a sink.
type progressSink struct{ io harness.IO }

// progressStream prints one run's lines.
type progressStream struct {
	tick func(stats.Progress)
	tail func(*result.Run)
}

// Begin starts the run's lines.
func (p progressSink) Begin(run.Labels) run.Stream {
	tick, tail := ProgressWithTail(p.io)
	return progressStream{tick, tail}
}

// Observe prints the second's line.
func (p progressStream) Observe(pr stats.Progress) { p.tick(pr) }

// Final prints the seconds of the result no tick printed.
func (p progressStream) Final(r *result.Run) { p.tail(r) }

// openProgress opens the lines when asked for.
func openProgress(_ context.Context, io harness.IO, s Sinks) (run.Sink, func() error, error) {
	if !s.Progress {
		return nil, nil, nil
	}
	return progressSink{io}, func() error { return nil }, nil
}

// metricsSink is the Prometheus endpoint as a sink.
type metricsSink struct{ e *metrics.Exporter }

// WantsTotals marks the endpoint as reading the cumulative histograms.
func (metricsSink) WantsTotals() {}

// Begin adds the run to the endpoint.
func (m metricsSink) Begin(l run.Labels) run.Stream {
	return m.e.Begin(metrics.Labels{Workload: l.Workload, Target: l.Target, Server: l.Server, Shard: l.Shard, Connections: l.Connections})
}

// openMetrics starts the endpoint on MetricsAddr; closing it waits up to
// MetricsLinger for a last scrape.
func openMetrics(ctx context.Context, io harness.IO, s Sinks) (run.Sink, func() error, error) {
	if s.MetricsAddr == "" {
		return nil, nil, nil
	}
	linger := s.MetricsLinger
	if linger == 0 {
		linger = 30 * time.Second
	}
	id := make([]byte, 6)
	_, _ = crand.Read(id)
	exp, err := metrics.Start(s.MetricsAddr, metrics.Labels{RunID: hex.EncodeToString(id), Version: io.Version})
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	fmt.Fprintf(io.Err, "metrics on http://%s/metrics\n", exp.Addr())
	return metricsSink{exp}, func() error { return exp.Close(ctx, linger, io.Err) }, nil
}

// Execution is how one run goes: its sinks (progress unless Out.Quiet),
// its outputs, whether the first second a threshold already fails stops
// it (AbortOnFail), and whether most commands failing still exits 0.
type Execution struct {
	Sinks       Sinks
	Out         Outputs
	AbortOnFail bool
	AllowErrors bool
	// With, when set, adds to the result before it is finished.
	With func(*result.Run)
}

// Execute runs spec as e says and finishes its result: the summary, the
// files and the document sinks; the error follows the thresholds and the
// errors.
func (e Execution) Execute(ctx context.Context, io harness.IO, spec run.Spec) (*result.Run, error) {
	sinks := e.Sinks
	sinks.Progress = !e.Out.Quiet
	ctx, closeMetrics, err := sinks.Open(ctx, io)
	if err != nil {
		return nil, err
	}
	var aborted atomic.Pointer[string]
	if e.AbortOnFail {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		spec.Engine.Progress = AbortOnFail(e.Out.Thresholds, spec.Engine.Progress, func(why string) {
			aborted.Store(&why)
			cancel()
		})
	}
	res, err := run.Run(ctx, spec)
	if err != nil {
		_ = closeMetrics()
		return nil, err
	}
	if e.With != nil {
		e.With(res)
	}
	if why := aborted.Load(); why != nil {
		res.StopReason = result.StopThreshold
		res.Warnings = append(res.Warnings, "stopped early by --abort-on-fail: threshold "+*why+" failed")
	}
	ferr := Finish(ctx, io, res, e.Out, e.AllowErrors)
	if cerr := closeMetrics(); cerr != nil && ferr == nil {
		ferr = cerr
	}
	return res, ferr
}
