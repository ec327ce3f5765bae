package bitmap

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/bitmaps"
	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/tmplrun"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/result"
)

// timeOp runs op on every structure through the engine: closed-loop for
// the duration, and open-loop at the rate when one is given. A run with
// errors stops the comparison: its latencies would be those of errors.
// Where one answer took so long (slowest, from the cross-check) that the
// duration would hold fewer than four per connection, the closed-loop run
// is a count instead: four commands per connection, however long.
func (o *Options) timeOp(ctx context.Context, io harness.IO, stores map[string]*bitmaps.Store, p point, op bitmaps.Op,
	slowest map[string]time.Duration) (result.BitmapOperation, error) {
	res := result.BitmapOperation{Name: op.Name, Question: op.Question}
	keys := keysFor(op, p)
	for _, name := range o.Structures {
		r := result.BitmapOpResult{Structure: name}
		switch {
		case op.Unsupported[name] != "":
			r.Unsupported = op.Unsupported[name]
		case keys == 0:
			r.Unsupported = fmt.Sprintf("needs %d keys; this comparison has %d (give --ids more than once, or --keys)", op.Keys, len(p.sets))
		}
		if r.Unsupported != "" {
			res.Results = append(res.Results, r)
			continue
		}
		s := stores[name]
		r.Command = s.Template(op, keys, p.universe)
		var err error
		var count int64
		if slowest[name]*time.Duration(4*o.Connections) > o.Duration {
			count = int64(4 * o.Connections)
		}
		r.Closed, r.ServerUsecPerCall, err = o.timeServed(ctx, io, s, op, r.Command, p, count)
		if err == nil && o.Rate > 0 {
			r.Open, err = o.timeRun(ctx, io, s, op, r.Command, p, o.Rate, 0)
		}
		res.Results = append(res.Results, r)
		if err != nil {
			return res, fmt.Errorf("%s on %s: %w", op.Name, name, err)
		}
	}
	return res, nil
}

// timeServed is the closed-loop timeRun with the server's own time per
// call of the command over it (INFO commandstats before and after; 0 when
// the server keeps none).
func (o *Options) timeServed(ctx context.Context, io harness.IO, s *bitmaps.Store, op bitmaps.Op, tmpl string, p point,
	count int64) (*result.Run, float64, error) {
	name, _, _ := strings.Cut(strings.TrimSpace(tmpl), " ")
	calls0, usec0, serr := s.CommandTime(ctx, name)
	r, err := o.timeRun(ctx, io, s, op, tmpl, p, 0, count)
	if err != nil || serr != nil {
		return r, 0, err
	}
	calls1, usec1, serr := s.CommandTime(ctx, name)
	if serr != nil || calls1 <= calls0 || usec1 <= usec0 {
		return r, 0, nil
	}
	return r, float64(usec1-usec0) / float64(calls1-calls0), nil
}

func (o *Options) timeRun(ctx context.Context, io harness.IO, s *bitmaps.Store, op bitmaps.Op, tmpl string, p point, rate float64,
	count int64) (*result.Run, error) {
	var opts cmdtmpl.Options
	opts.Ranges[1] = cmdtmpl.Range{Max: p.universe}
	opts.Ranges[2] = cmdtmpl.Range{Offset: 1, Max: max(p.sets[0].IDs.GetCardinality(), 1)}
	ts := redis.TemplateSpec{Template: tmpl, Options: opts, ServerStats: o.ServerStats}
	w, err := ts.Workload()
	if err != nil {
		return nil, err
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(s.Kind + "/" + op.Name))
	cfg := engine.Config{Workers: o.Connections, Duration: o.Duration, Rate: rate, Seed: engine.WorkerSeed(o.Seed^h.Sum64(), 0)}
	loop := "closed"
	if count > 0 {
		cfg.Duration, cfg.Ops = 0, count
		loop = fmt.Sprintf("closed, %d cmds", count)
	}
	name := s.Kind + " " + op.Name
	spec := tmplrun.FromTemplate(ts, name, io.Version, s.Target, w, cfg)
	r, err := run.Run(ctx, spec)
	if err != nil {
		return nil, err
	}
	t := r.Totals
	if rate > 0 {
		loop = fmt.Sprintf("open %.0f/s", rate)
	}
	fmt.Fprintf(io.Err, "timed  %-13s %-12s %-14s %10.0f ops/s  mean %8.3f ms  p99 %8.3f ms\n", op.Name, s.Kind, loop,
		t.OpsPerSec, t.Latency.Mean/1000, t.Latency.P99/1000)
	if t.Errors > 0 {
		msg := ""
		if len(r.Errors) > 0 {
			msg = ": " + r.Errors[0].Message
		}
		return r, fmt.Errorf("%d of %d commands failed%s", t.Errors, t.Ops, msg)
	}
	if t.Ops == 0 {
		return r, fmt.Errorf("no command completed in %s", o.Duration)
	}
	return r, nil
}
