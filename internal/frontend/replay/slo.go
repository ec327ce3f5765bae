package replay

import (
	"context"
	"fmt"
	"time"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/replay"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/pkg/result"
)

// searchSpeed finds the highest speed at which the replay meets the SLO:
// a capacity search over the rate, each step the trace replayed from its
// start at rate ÷ the trace's own rate, for the step's warm-up and window
// (or the trace's end, when it comes first at that speed; said so).
func searchSpeed(ctx context.Context, o Options, io harness.IO, tg endpoint.Target, c *replay.Census, s *replay.Schedule) error {
	base := float64(s.Commands) / max(s.Span.Seconds(), 1e-3)
	opts := *o.SLO
	if !o.SLOStartGiven {
		opts.Start = base // speed 1 first
	}
	fmt.Fprintf(io.Err, "replay: the trace runs at %.0f commands/s at speed 1; each step's rate is a speed of that\n", base)
	at := func(ctx context.Context, rate float64, window, warmup time.Duration) (*result.Run, error) {
		so := o
		so.Speed = rate / base
		spec := runSpec(so, io, tg, c, s, nil)
		spec.Name = fmt.Sprintf("rate %.0f (speed %.3g)", rate, so.Speed)
		e := &spec.Engine
		e.Duration, e.Warmup, e.Progress = warmup+window, warmup, nil
		if span := time.Duration(float64(s.Span) / so.Speed); span < warmup+window {
			fmt.Fprintf(io.Err, "replay: at speed %.3g the trace lasts %s, less than the step's %s: the step measures it whole\n",
				so.Speed, span.Round(time.Millisecond), warmup+window)
		}
		return run.Run(ctx, spec)
	}
	return o.Sinks.Run(ctx, io, func(ctx context.Context) error {
		return output.SearchCapacityAt(ctx, io, opts, o.Out.JSON, at)
	})
}
