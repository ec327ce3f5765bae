// Package replay is `tairbench replay`: a trace (from tairbench capture)
// sent again, each captured connection on a connection of its own, its
// commands in their order at their captured gaps divided by --speed,
// open loop, latency from each command's intended time.
package replay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/replay"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/run/capacity"
	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/pkg/result"
)

// Options are one replay.
type Options struct {
	// Options are tairbench's own (Embedded, JSON, Timeout, sinks).
	common.Options
	Target endpoint.Target
	// Trace is the file to replay.
	Trace string
	// Speed divides the captured gaps (2: twice the rate).
	Speed float64
	// KeyPrefix goes before every key, to keep the replay off live keys.
	KeyPrefix string
	// Only is "", "reads" or "writes".
	Only string
	// SkipUnknown drops commands the target does not know, counted.
	SkipUnknown bool
	// Preload writes, before the replay, every key it reads and never
	// writes; PreloadSize is each value's size (0: the trace's median SET
	// value, else 64 bytes).
	Preload     bool
	PreloadSize int
	// MaxMemory refuses a replay whose commands take more (bytes).
	MaxMemory uint64
	MaxErrors int64
	// AllowErrors exits 0 even when most commands failed.
	AllowErrors bool
	// AbortOnFail stops at the first second a threshold already fails.
	AbortOnFail bool
	// Shard is this client's part of a replay from several machines: its
	// connections are those whose number modulo N is I.
	Shard harness.Shard
	Out   output.Outputs
	// Translate, when set (TranslateBitmaps), replays the trace twice: as
	// it was on Redis (at Redis, else the target) and translated on the
	// target, side by side.
	Translate string
	Redis     *endpoint.Target
	// SLO, when set, makes the replay a capacity search over its speed:
	// the highest rate (a speed of the trace's own) that meets it; its
	// first step is speed 1 unless SLOStartGiven.
	SLO           *capacity.Options
	SLOStartGiven bool
}

// maxBytes is MaxMemory as a replay's bound.
func maxBytes(o Options) int64 { return int64(min(o.MaxMemory, math.MaxInt64)) }

// check refuses bad options before the trace is read.
func (o Options) check() (replay.Only, error) {
	only, err := replay.ParseOnly(o.Only)
	switch {
	case o.Trace == "":
		return only, errors.New("name the trace to replay (tairbench replay TRACE)")
	case err != nil:
		return only, fmt.Errorf("--only %w", err)
	case !(o.Speed > 0) || math.IsInf(o.Speed, 0):
		return only, fmt.Errorf("--speed %v: want a number above 0 (2: twice the captured rate)", o.Speed)
	case o.Target.Cluster:
		return only, errors.New("--cluster: a replay goes to one server today (replay each node's capture against its node)")
	case o.PreloadSize < 0:
		return only, errors.New("--preload-size must not be negative")
	case o.SLO != nil && len(o.Out.Thresholds) > 0:
		return only, errors.New("--threshold and --slo cannot be combined: a threshold judges one run, a capacity search runs many (its SLO is the threshold)")
	case o.SLO != nil && o.Translate != "":
		return only, errors.New("--slo and --translate cannot be combined: search each structure's speed with its own replay")
	case o.AbortOnFail && len(o.Out.Thresholds) == 0:
		return only, errors.New("--abort-on-fail needs a --threshold to judge")
	case o.KeyPrefix != "" && strings.ContainsAny(o.KeyPrefix, " \r\n"):
		return only, fmt.Errorf("--key-prefix %q: no spaces or line breaks", o.KeyPrefix)
	}
	return only, nil
}

// Run replays the trace against the target and prints and writes the
// result. The trace is read whole, and the target asked where its
// commands' keys are, before anything is sent.
func Run(ctx context.Context, o Options, io harness.IO) (*result.Run, error) {
	o.Out.JSON = o.JSON
	if err := output.CheckPaths(o.Out.JSON, o.Out.CSV, o.Out.HGRM); err != nil {
		return nil, err
	}
	only, err := o.check()
	if err != nil {
		return nil, err
	}
	if o.Translate != "" {
		if err := checkTranslate(o); err != nil {
			return nil, err
		}
		if o.DryRun {
			return nil, dryRunTranslate(o, io)
		}
		d, err := translate(ctx, o, io)
		if d == nil {
			return nil, err
		}
		return d.Translated, err
	}
	census, err := scan(o.Trace)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(io.Err, "%s: %d commands from %d connections over %s (%s)\n", o.Trace, census.Commands, census.Connections,
		census.Span.Round(time.Millisecond), census.Meta.Source)
	if o.DryRun {
		return nil, dryRun(o, census, io)
	}
	tg, stop, err := target.Embed(io, o.Target, nil, o.Embedded)
	if err != nil {
		return nil, err
	}
	defer stop()
	specs, err := driver.CommandSpecs(ctx, tg, census.NameList())
	if err != nil {
		return nil, fmt.Errorf("asking the target where the trace's keys are: %w", err)
	}
	shard := o.Shard
	ro := replay.Options{KeyPrefix: o.KeyPrefix, Only: only, SkipUnknown: o.SkipUnknown, Shard: shard.I, Shards: shard.N,
		MaxBytes: maxBytes(o)}
	s, err := build(o.Trace, census, specs, ro, o.Preload)
	if err != nil {
		return nil, err
	}
	describe(io, o, s)
	var pre *result.Preload
	if o.Preload {
		if pre, err = preload(ctx, io, tg, s, o.PreloadSize); err != nil {
			return nil, err
		}
	}
	if o.SLO != nil {
		return nil, searchSpeed(ctx, o, io, tg, census, s)
	}
	cur := &cursors{}
	spec := runSpec(o, io, tg, census, s, cur)
	return output.Execution{Sinks: o.Sinks, Out: o.Out, AbortOnFail: o.AbortOnFail, AllowErrors: o.AllowErrors,
		With: func(res *result.Run) {
			res.Preload = pre
			cur.note(res)
		}}.Execute(ctx, io, spec)
}

// openTrace opens the trace file.
func openTrace(path string) (*trace.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := trace.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, func() { r.Close(); f.Close() }, nil
}

// scan reads the whole trace once, refusing one cut short or corrupt.
func scan(path string) (*replay.Census, error) {
	r, done, err := openTrace(path)
	if err != nil {
		return nil, err
	}
	defer done()
	c, err := replay.Scan(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// build reads the trace again into its schedule.
func build(path string, c *replay.Census, specs replay.Specs, o replay.Options, track bool) (*replay.Schedule, error) {
	r, done, err := openTrace(path)
	if err != nil {
		return nil, err
	}
	defer done()
	s, err := replay.Build(r, c, specs, o, track)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(s.Conns) == 0 {
		return nil, fmt.Errorf("%s: this shard has none of the trace's connections", path)
	}
	return s, nil
}

// describe prints what will be sent, and what will not and why.
func describe(io harness.IO, o Options, s *replay.Schedule) {
	fmt.Fprintf(io.Err, "replay: %d commands on %d connections at speed %g (%.0f commands/s on average), %d MB in memory\n",
		s.Commands, len(s.Conns), o.Speed, float64(s.Commands)/max(s.Span.Seconds()/o.Speed, 1e-3), s.Bytes>>20)
	for _, d := range s.Dropped {
		fmt.Fprintf(io.Err, "replay: not sent: %d × %s\n", d.N, d.Name)
	}
	if s.Selects > 0 {
		fmt.Fprintf(io.Err, "replay: %d SELECTs added where a captured connection was in another database\n", s.Selects)
	}
}

// runSpec is the replay's run: one worker per captured connection, each
// on its own schedule.
func runSpec(o Options, io harness.IO, tg endpoint.Target, c *replay.Census, s *replay.Schedule, cur *cursors) run.Spec {
	speed := o.Speed
	span := time.Duration(float64(s.Span) / speed)
	// The run ends when every connection has sent its last command; it is
	// cut at twice the span and 10 s more should the target not keep up.
	cfg := engine.Config{Workers: len(s.Conns), Duration: 2*span + 10*time.Second, MaxErrors: o.MaxErrors,
		Rate: float64(s.Commands) / max(span.Seconds(), 1e-3), Arrivals: engine.ArrivalsCaptured, Operations: s.Ops, Seed: 1,
		SchedulesEnd:   true,
		RequestTimeout: tg.RequestTimeout(),
		Pacers: func(id, _ int, _ uint64, end time.Duration) engine.Pacer {
			return s.Pacer(id, speed, end)
		}}
	cfg.StartAt = o.Shard.StartAt
	w := driver.Workload{Mode: driver.Single, N: 1, Sources: func(id int) driver.Source {
		if cur != nil {
			return cur.add(s.Source(id))
		}
		return s.Source(id)
	}}
	rc := &result.ReplayConfig{Trace: filepath.Base(o.Trace), Source: c.Meta.Source, Speed: speed, Commands: s.Commands,
		Connections: len(s.Conns), SpanS: s.Span.Seconds(), KeyPrefix: o.KeyPrefix, Only: o.Only, Selects: s.Selects}
	for _, d := range s.Dropped {
		rc.Dropped = append(rc.Dropped, result.ReplayDrop{What: d.Name, Count: d.N})
	}
	spec := run.Spec{
		Name:    "replay",
		Command: fmt.Sprintf("replay %s at speed %g", filepath.Base(o.Trace), speed),
		Version: io.Version,
		Config:  result.RunConfig{Target: tg.Result(), Mode: "each captured connection's commands at their captured times", Replay: rc},
		Engine:  cfg,
		Factory: &driver.Factory{Target: tg, Workload: w, Workers: len(s.Conns)},
		Log:     io.Err,
	}
	o.Shard.Record(&spec.Config)
	target.Identified(&spec, tg)
	weights := map[string]int64{}
	for _, m := range s.Mix {
		name := m.Name
		if !slices.Contains(s.Ops, name) {
			name = replay.Other
		}
		weights[name] += m.N
	}
	for _, op := range s.Ops {
		spec.Operations = append(spec.Operations, result.Operation{Name: op, Command: op, Weight: int(weights[op]),
			MissesHidden: op == replay.Other || !driver.ReplyShowsMiss(op)})
	}
	if !o.NoServerStats {
		spec.Sampler = driver.NewInfoSampler(tg)
		var why string
		if spec.Reconcile, why = reconciled(s); why != "" {
			fmt.Fprintf(io.Err, "replay: the server's command counts are not held against the replay's: %s\n", why)
		}
	}
	return spec
}

// reconciled names the commands whose server-side calls must add up to
// the replay's commands, or says why there are none: the server sampler
// sends INFO itself.
func reconciled(s *replay.Schedule) ([]string, string) {
	var out []string
	for _, m := range s.Mix {
		if m.Name == "INFO" {
			return nil, "the replay sends INFO, as tairbench's own server sampler does"
		}
		out = append(out, strings.ToLower(m.Name))
	}
	return out, ""
}

// dryRunTranslate prints a translated replay without reaching a server.
func dryRunTranslate(o Options, io harness.IO) error {
	p := harness.NewPlan(io.Out, "tairbench replay --translate "+o.Translate)
	redis := target.Dry(o.Target.Addr, o.Embedded)
	if o.Redis != nil {
		redis = o.Redis.Addr
	}
	p.Note("replay %s as it was on %s (keys prefixed %q)", o.Trace, redis, o.KeyPrefix+"redis:")
	p.Note("replay it translated to TairRoaring on %s (keys prefixed %q)", target.Dry(o.Target.Addr, o.Embedded), o.KeyPrefix+"tairroaring:")
	p.Note("then ask both structures the commands on up to %d bitmap keys and compare every answer; weigh up to %d keys on each", agreeKeys, weighKeys)
	p.Close()
	return nil
}

// dryRun prints the replay without reaching the target.
func dryRun(o Options, c *replay.Census, io harness.IO) error {
	p := harness.NewPlan(io.Out, "tairbench replay")
	span := time.Duration(float64(c.Span) / o.Speed)
	p.Note("replay %s (%d commands, %d connections) at speed %g: about %s, %.0f commands/s on average, open loop",
		o.Trace, c.Commands, c.Connections, o.Speed, span.Round(time.Millisecond), float64(c.Commands)/max(span.Seconds(), 1e-3))
	p.Note("target: %s (asked with COMMAND INFO where each command's keys are before anything is sent)", target.Dry(o.Target.Addr, o.Embedded))
	if o.KeyPrefix != "" {
		p.Note("every key prefixed with %q", o.KeyPrefix)
	}
	if o.Preload {
		p.Note("preload: every key the trace reads and never writes, before the replay")
	}
	if o.SLO != nil {
		p.Note("capacity search: the highest speed at which the replay holds %s (each step the trace from its start)", o.SLO.SLO.String())
	}
	for _, t := range o.Out.Thresholds {
		p.Note("threshold %s", t.Source)
	}
	p.Close()
	return nil
}
