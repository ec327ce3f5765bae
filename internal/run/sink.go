package run

import (
	"context"
	"strings"

	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// Labels name one run for a sink: what it sends, where, from how many
// connections, and who the target said it is.
type Labels struct {
	// Workload is the run's command (its name when it has none).
	Workload string
	// Target is the address; Server who the target said it is
	// ("tairbench embedded server, not Tair", "redis 7.0.15"; "" unknown).
	Target, Server string
	Shard          string
	Connections    int
}

// Sink receives a command's runs as they go: the live metrics endpoint
// is one. Sinks reach a run through its context (WithSinks) or its Spec,
// so that no front-end names one.
type Sink interface {
	// Begin starts one run's stream.
	Begin(Labels) Stream
}

// Stream is one run as a sink sees it.
type Stream interface {
	// Observe takes each second's progress (with the run's cumulative
	// histograms when a sink of the run wants them: TotalsSink); it runs
	// on the engine's tick and must not block.
	Observe(stats.Progress)
	// Final takes the finished result: the figures the result file holds.
	Final(*result.Run)
}

// TotalsSink is a sink whose streams read the run's cumulative
// histograms on each tick (a live metrics endpoint): the engine then
// copies them each second, which it spares a run whose sinks do not.
type TotalsSink interface {
	Sink
	// WantsTotals marks the sink as reading the cumulative histograms.
	WantsTotals()
}

type sinksKey struct{}

// WithSinks returns ctx carrying sinks besides those it carries already:
// every run under it reports to each.
func WithSinks(ctx context.Context, sinks ...Sink) context.Context {
	if len(sinks) == 0 {
		return ctx
	}
	all := append(append([]Sink(nil), SinksFrom(ctx)...), sinks...)
	return context.WithValue(ctx, sinksKey{}, all)
}

// SinksFrom returns the sinks ctx carries.
func SinksFrom(ctx context.Context) []Sink {
	s, _ := ctx.Value(sinksKey{}).([]Sink)
	return s
}

// labels names the spec's run for its sinks.
func labels(s *Spec) Labels {
	l := Labels{Shard: s.Config.Shard, Workload: s.Command, Connections: s.Engine.Workers}
	if l.Workload == "" {
		l.Workload = s.Name
	}
	if t := s.Config.Target; t != nil {
		l.Target = t.Addr
		switch {
		case t.NotTair():
			l.Server = "tairbench embedded server, not Tair"
		case t.Server != nil:
			l.Server = strings.TrimSpace(t.Server.Name + " " + t.Server.Version)
		}
	}
	return l
}

// streams is a run's open streams, one a sink.
type streams []Stream

// final hands each stream the result.
func (ss streams) final(r *result.Run) {
	for _, st := range ss {
		st.Final(r)
	}
}

// observe begins the run on every sink of the spec and ctx, if any: the
// engine then hands each tick's cumulative histograms to them.
func observe(ctx context.Context, s *Spec) streams {
	sinks := append(append([]Sink(nil), s.Sinks...), SinksFrom(ctx)...)
	if len(sinks) == 0 {
		return nil
	}
	l := labels(s)
	ss := make(streams, len(sinks))
	for i, k := range sinks {
		ss[i] = k.Begin(l)
	}
	for _, k := range sinks {
		if _, ok := k.(TotalsSink); ok {
			s.Engine.ProgressTotals = true
		}
	}
	prev := s.Engine.Progress
	s.Engine.Progress = func(p stats.Progress) {
		if prev != nil {
			prev(p)
		}
		for _, st := range ss {
			st.Observe(p)
		}
	}
	return ss
}
