package run

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/events"
	"github.com/tairbench/tairbench/pkg/result"
)

type eventsKey struct{}

// WithEvents returns ctx carrying plan: every run under it goes through
// its events (a run whose target cannot is refused before it starts).
func WithEvents(ctx context.Context, plan *events.Plan) context.Context {
	if plan.Empty() && EventsFrom(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, eventsKey{}, plan) // an empty plan clears what ctx carried
}

// EventsFrom returns the plan ctx carries (nil: none).
func EventsFrom(ctx context.Context) *events.Plan {
	p, _ := ctx.Value(eventsKey{}).(*events.Plan)
	return p
}

// eventGrace is how long, after the load, an event still running may
// take to complete (a fork's save).
const eventGrace = 10 * time.Second

// eventRun is one run's events: issued from the measured time's start.
type eventRun struct {
	plan     *events.Plan
	mu       sync.Mutex
	runner   *events.Runner
	measured time.Time
	tick     time.Duration
	part     *result.Events
}

// prepareEvents checks the events ctx carries against the spec's run and
// target, and hooks their start to the measured time's: nil without
// events.
func prepareEvents(ctx context.Context, s *Spec) (*eventRun, error) {
	plan := EventsFrom(ctx)
	if plan.Empty() {
		return nil, nil
	}
	if s.Actor == nil {
		return nil, errors.New("events need a RESP target to carry them out; this run's has none")
	}
	if err := plan.Check(s.Engine.Duration); err != nil {
		return nil, err
	}
	timeline := plan.Timeline()
	if err := events.Check(ctx, s.Actor, timeline); err != nil {
		return nil, err
	}
	e := &eventRun{plan: plan, tick: s.Engine.Tick}
	s.Engine.KeepSeconds = true
	prev := s.Engine.Started
	actor := s.Actor
	s.Engine.Started = func(t time.Time) {
		if prev != nil {
			prev(t)
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		e.measured = t
		e.runner = events.Start(context.WithoutCancel(ctx), actor, timeline, t)
	}
	return e, nil
}

// finish ends the events (those running get eventGrace) and scores them
// against the engine's result (nil when the run failed).
func (e *eventRun) finish(res *engine.Result) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.runner == nil {
		return
	}
	records := e.runner.Stop(eventGrace)
	if res == nil {
		return
	}
	e.part = e.plan.Score(records, events.Series{Rows: res.Snapshot.Series, Seconds: res.Snapshot.Seconds,
		Interval: e.tick, Elapsed: res.Elapsed, Start: e.measured})
}

// markSeries puts each event's issue and completion in the second of the
// series it fell in.
func markSeries(r *result.Run) {
	if r.Events == nil || len(r.Series) == 0 {
		return
	}
	mark := func(at *float64, what string) {
		if at == nil || *at < 0 {
			return
		}
		i := min(int(*at), len(r.Series)-1)
		r.Series[i].Events = append(r.Series[i].Events, fmt.Sprintf("%s at %.3f s", what, *at))
	}
	for _, e := range r.Events.Events {
		name := e.Text
		if e.Cycle > 0 {
			name = fmt.Sprintf("%s #%d", e.Text, e.Cycle)
		}
		mark(e.IssuedS, name+" issued")
		mark(e.CompletedS, name+" completed")
	}
}
