// Package redis is the 'tairbench redis' front-end, the whitepaper's own
// tool: one command template (or several, drawn by a ratio) from N
// connections, single, pipelined or in MULTI/EXEC batches, closed- or
// open-loop, or a capacity search; its errors name the tool's flags.
package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/frontend/tmplrun"
	"github.com/tairbench/tairbench/internal/ledger"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/run/capacity"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/result"
)

// The open-loop schedules Options.Arrivals names.
const (
	ArrivalsConstant = engine.ArrivalsConstant
	ArrivalsPoisson  = engine.ArrivalsPoisson
)

// Options are one 'tairbench redis' run.
type Options struct {
	// Options are tairbench's own: Embedded starts the embedded server in
	// this process for Target (once the options are known to be good);
	// JSON is the result file (Out.JSON is set from it); Timeout is
	// Target's, which the caller builds.
	common.Options
	// Target is the server.
	Target endpoint.Target
	// Commands are the templates; Ratio their weights ("1:3").
	Commands []string
	Ratio    string
	// Parallel is the connections; Count the total commands (it bounds
	// the run instead of Duration); CountGiven and DurationGiven say
	// which the user set.
	Parallel                  int
	Count                     int64
	Duration, Warmup          time.Duration
	CountGiven, DurationGiven bool
	// R1 and R2 are the ranges of __RAND__ and __RAND2__; Rands the
	// N=SIZE[:dist] specs of the others; DataSize the __DATA__ size.
	R1, R2   uint64
	Rands    []string
	DataSize int
	// Batching wraps N commands in MULTI/EXEC, Pipeline sends N a write;
	// BatchingGiven and PipelineGiven say the user set them (0 is then
	// refused: it would silently mean "none").
	Batching, Pipeline           int
	BatchingGiven, PipelineGiven bool
	// Window keeps N commands in flight per connection, one more sent
	// for each reply (memtier's --pipeline); 0: off.
	Window      int
	MaxErrors   int64
	AllowErrors bool
	// Rate above 0 makes the run open-loop; Arrivals spaces it.
	Rate     float64
	Arrivals string
	// SendGrid is the open loop's send grid (engine.Config.SendGrid); 0
	// wakes every request at its own intended start.
	SendGrid time.Duration
	// SLO, when set, makes the run a capacity search for it.
	SLO *capacity.Options
	// Shard is this client's part of a load from several machines.
	Shard harness.Shard
	Out   output.Outputs
	// AbortOnFail stops the run at the first second a threshold already
	// fails (see threshold.Live).
	AbortOnFail bool
	// Preload fills the keys the read commands draw before the run;
	// PreloadMax refuses a fill above it (bytes, 0: no bound).
	Preload    bool
	PreloadMax uint64
	// Workload, when set, is a workload file (tairbench fit's): its
	// operations are the commands, each with its ranges and data size.
	// RateTimes above 0 runs it at that multiple of its rate; its
	// connections are -p's unless ParallelGiven. TemplateFlags names the
	// template flags the user gave, refused beside it.
	Workload      string
	RateTimes     float64
	ParallelGiven bool
	TemplateFlags []string
	// VerifyWrites makes every write an INCR of a counter of the run's
	// (a write ledger), read back after the run; WaitReplicas above 0
	// follows each with WAIT WaitReplicas WaitTimeout.
	VerifyWrites bool
	WaitReplicas int
	WaitTimeout  time.Duration

	mix []driver.MixEntry // the workload file's operations
}

// Run checks the options, runs the template against the target and
// prints and writes the result (or the capacity search's).
func Run(ctx context.Context, o Options, io harness.IO) (*result.Run, error) {
	o.Out.JSON = o.JSON // tairbench's own option is the one source
	if err := output.CheckPaths(o.Out.JSON, o.Out.CSV, o.Out.HGRM); err != nil {
		return nil, err
	}
	var err error
	if o.VerifyWrites || o.WaitReplicas != 0 {
		if err := ledgerConflicts(o); err != nil {
			return nil, err
		}
		o.Commands, o.Ratio = []string{"INCR " + ledgerPrefix + "__RAND__"}, ""
	}
	if o.mix, err = fromWorkload(&o); err != nil {
		return nil, err
	}
	r, err := prepare(o, io)
	if err != nil {
		return nil, err
	}
	if o.VerifyWrites {
		r.withLedger()
	}
	if err := sloConflicts(o); err != nil {
		return nil, err
	}
	if err := thresholdOps(o, r.w); err != nil {
		return nil, err
	}
	dur := time.Duration(0)
	if o.SLO == nil {
		if dur, err = budget(o, io); err != nil {
			return nil, err
		}
	}
	if o.DryRun {
		return nil, r.dryRun(dur)
	}
	tg, stop, err := target.Embed(io, o.Target, nil, o.Embedded)
	if err != nil {
		return nil, err
	}
	defer stop()
	r.tg, r.seed = tg, o.Shard.Seed(harness.SeedOrNew(o.Seed))
	loop := "closed-loop"
	switch {
	case o.SLO != nil:
		loop = "capacity search for " + o.SLO.SLO.String()
	case o.Rate > 0:
		loop = fmt.Sprintf("open-loop at %.0f requests/s (%s)", o.Rate, o.Arrivals)
	}
	fmt.Fprintf(io.Err, "tairbench %s → %s, %d connections, %s, %s, seed %d\n", describeMix(o.Commands, r.ts.Mix), tg.Addr, o.Parallel, r.w.ModeName(), loop, r.seed)
	var pre *result.Preload
	if o.Preload {
		if pre, err = r.preload(ctx); err != nil {
			return nil, err
		}
	}
	if o.SLO != nil { // the steps log their own lines; the metrics and the store are open
		_, err := output.Around(ctx, io, o.Sinks, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, output.SearchCapacity(ctx, io, *o.SLO, o.Out.JSON, func() (run.Spec, error) {
				return r.spec("", engine.Config{}), nil
			})
		})
		return nil, err
	}
	spec := r.spec("", engine.Config{Duration: dur, Ops: o.Count, Warmup: o.Warmup, Rate: o.Rate})
	if r.ledger != nil {
		if err := r.resetLedger(ctx); err != nil {
			return nil, err
		}
		spec.Command = r.ledgerCommand()
		if r.ledger.Wait > 0 {
			spec.Reconcile = []string{"incr", "wait"} // a write is both
			if tc := spec.Config.Template; tc != nil {
				tc.Pipeline = r.ledger.CommandsPerRequest() // its latency is per request of both
			}
		}
	}
	return output.Execution{Sinks: o.Sinks, Out: o.Out, AbortOnFail: o.AbortOnFail, AllowErrors: o.AllowErrors,
		With: func(res *result.Run) {
			res.Preload = pre
			if r.ledger != nil {
				r.readLedger(context.WithoutCancel(ctx), res)
			}
		}}.Execute(ctx, io, spec)
}

// dryRun prints the run (and the fill and thresholds) without sending.
func (r *runner) dryRun(dur time.Duration) error {
	o := r.o
	p := harness.NewPlan(r.io.Out, "tairbench redis")
	if o.Preload {
		plans, err := planPreload(o, r.ts.Options)
		if err != nil {
			return err
		}
		for _, pl := range plans {
			p.Load("preload "+pl.read, fmt.Sprintf("%s, each %s, about %d MB", pl.template, pl.shape, pl.bytes>>20), pl.keys)
		}
	}
	r.tg, r.seed = o.Target, o.Shard.Seed(harness.SeedOrNew(o.Seed))
	dry := target.Dry(o.Target.Addr, o.Embedded)
	if o.SLO != nil {
		spec := r.spec("", engine.Config{Duration: o.SLO.Window, Warmup: o.SLO.Warmup, Rate: o.SLO.Start})
		p.Search("run", o.SLO.SLO.String(), spec.Command, dry, spec.Engine, o.SLO.MostRuns())
	} else {
		spec := r.spec("", engine.Config{Duration: dur, Ops: o.Count, Warmup: o.Warmup, Rate: o.Rate})
		spec.Engine.OpsPerRequest = r.w.OpsPerRequest()
		p.Run("run", spec.Command, dry, spec.Engine)
	}
	for _, t := range o.Out.Thresholds {
		p.Note("threshold %s", t.Source)
	}
	p.Close()
	return nil
}

// sloConflicts refuses the options a capacity search would ignore: its
// steps last the SLO window at rates it chooses (thresholds judge one run).
func sloConflicts(o Options) error {
	if o.SLO == nil {
		return nil
	}
	switch {
	case o.DurationGiven:
		return errors.New("-d and --slo cannot be combined: each capacity-search step lasts --slo-window (after --slo-warmup)")
	case o.CountGiven:
		return errors.New("-c and --slo cannot be combined: each capacity-search step lasts --slo-window (after --slo-warmup)")
	case o.Rate > 0:
		return errors.New("--rate and --slo cannot be combined: the search chooses the rates (give the first with --slo-start)")
	case len(o.Out.Thresholds) > 0:
		return errors.New("--threshold and --slo cannot be combined: a threshold judges one run, a capacity search runs many (its SLO is the threshold)")
	}
	return nil
}

// thresholdOps refuses --abort-on-fail without a threshold and a
// threshold naming an operation the run does not have.
func thresholdOps(o Options, w driver.Workload) error {
	if o.AbortOnFail && len(o.Out.Thresholds) == 0 {
		return errors.New("--abort-on-fail needs a --threshold to judge")
	}
	names := w.OpNames()
	if len(names) == 0 && len(o.Commands) > 0 {
		name, _, _ := strings.Cut(strings.TrimSpace(o.Commands[0]), " ")
		names = []string{strings.ToUpper(name)}
	}
	for _, t := range o.Out.Thresholds {
		if t.Op == "" {
			continue
		}
		found := false
		for _, n := range names {
			found = found || strings.EqualFold(n, t.Op)
		}
		if !found {
			return fmt.Errorf("--threshold %s: this run has no operation %s (it has %s)", t.Source, t.Op, strings.Join(names, ", "))
		}
	}
	return nil
}

// runner is what a run and each capacity-search step share.
type runner struct {
	o    Options
	io   harness.IO
	ts   driver.TemplateSpec
	w    driver.Workload
	tg   endpoint.Target
	seed uint64
	// ledger, with --verify-writes, is the run's write ledger.
	ledger *ledger.Ledger
}

// prepare checks the options and compiles the templates.
func prepare(o Options, io harness.IO) (*runner, error) {
	switch {
	case o.Parallel < 1:
		return nil, errors.New("-p must be at least 1")
	case o.PipelineGiven && o.Pipeline < 1:
		return nil, errors.New("-P must be at least 1 (leave it out for one command per round trip)")
	case o.BatchingGiven && o.Batching < 1:
		return nil, errors.New("-batching must be at least 1 (leave it out for no MULTI/EXEC)")
	case o.Window < 0:
		return nil, errors.New("-window must not be negative")
	case o.Window > 0 && (o.Pipeline > 0 || o.Batching > 0):
		return nil, errors.New("-window keeps N commands in flight; it cannot be combined with -P or -batching")
	case o.Window > 0 && o.SendGrid > 0:
		return nil, errors.New("--send-grid paces one request in flight per connection; with -window each command goes at its own intended start (leave --send-grid out)")
	}
	if o.SendGrid < 0 || o.SendGrid > time.Second {
		return nil, fmt.Errorf("--send-grid %s: want 0 (each request at its own start) to 1s", o.SendGrid)
	}
	if o.Rate < 0 || o.Arrivals != engine.ArrivalsConstant && o.Arrivals != engine.ArrivalsPoisson {
		return nil, errors.New("--rate must not be negative and --arrivals must be constant or poisson")
	}
	opts, err := templateOptions(o)
	if err != nil {
		return nil, err
	}
	mix := o.mix
	if mix == nil {
		if mix, err = mixOf(o.Commands, o.Ratio); err != nil {
			return nil, err
		}
	}
	o.Shard.Ranges(&opts)
	for _, m := range mix {
		if m.Options != nil {
			o.Shard.Ranges(m.Options)
		}
	}
	if len(mix) == 1 { // one operation: the spec's own template
		opts, mix = *mix[0].Options, nil
	}
	r := &runner{o: o, io: io, ts: driver.TemplateSpec{Template: o.Commands[0], Mix: mix, Options: opts, Batching: o.Batching,
		Pipeline: o.Pipeline, Window: o.Window, ServerStats: !o.NoServerStats}}
	if r.w, err = r.ts.Workload(); err != nil {
		return nil, flagNames(err)
	}
	return r, nil
}

// flagNames says which of the tool's flags a driver's complaint is about.
func flagNames(err error) error {
	var te *driver.TemplateError
	switch {
	case errors.As(err, &te):
		return fmt.Errorf("bad -command %q: %w", te.Template, te.Err)
	case errors.Is(err, driver.ErrNegativeGroup):
		return errors.New("-batching and -P must not be negative")
	case errors.Is(err, driver.ErrBatchAndPipeline):
		return errors.New("-batching (MULTI/EXEC) and -P (pipelining) cannot be combined")
	case errors.Is(err, driver.ErrZeroWeights):
		return errors.New("the weights of a mixed workload (--ratio) add up to 0")
	}
	return err
}

// spec is one run against the target with the given engine settings.
func (r *runner) spec(name string, cfg engine.Config) run.Spec {
	cfg.Workers, cfg.Seed, cfg.Arrivals, cfg.MaxErrors = r.o.Parallel, r.seed, r.o.Arrivals, r.o.MaxErrors
	cfg.SendGrid = r.o.SendGrid
	cfg.StartAt = r.o.Shard.StartAt
	spec := tmplrun.FromTemplate(r.ts, name, r.io.Version, r.tg, r.w, cfg)
	r.o.Shard.Record(&spec.Config)
	spec.Log = r.io.Err
	return spec
}

// templateOptions returns the template's ranges and data size.
func templateOptions(o Options) (cmdtmpl.Options, error) {
	var opts cmdtmpl.Options
	if o.R1 == 0 || o.R2 == 0 {
		return opts, errors.New("-r and -r2 must be above 0")
	}
	opts.Ranges[1] = cmdtmpl.Range{Max: o.R1}
	opts.Ranges[2] = cmdtmpl.Range{Max: o.R2}
	for _, spec := range o.Rands {
		k, v, ok := strings.Cut(spec, "=")
		n, err := strconv.Atoi(k)
		if !ok || err != nil || n < 1 || n > cmdtmpl.MaxRanges {
			return opts, fmt.Errorf("--rand %q: want N=SIZE[:dist] with N from 1 to 9", spec)
		}
		r, err := cmdtmpl.ParseRange(v)
		if err != nil {
			return opts, fmt.Errorf("--rand: %w", err)
		}
		opts.Ranges[n] = r
	}
	if o.DataSize < 0 {
		return opts, errors.New("--data-size must not be negative")
	}
	opts.DataSize = o.DataSize
	return opts, nil
}

// budget checks -c and -d and returns the duration to run (0 when -c
// bounds the run), warning when -c shadows -d or is below -p.
func budget(o Options, io harness.IO) (time.Duration, error) {
	dur := o.Duration
	switch {
	case o.Count < 0:
		return 0, errors.New("-c must not be negative")
	case o.CountGiven && o.Count > 0:
		if o.DurationGiven {
			fmt.Fprintf(io.Err, "warning: -c %d and -d were both given: -c (total commands) wins and -d is ignored, as in the whitepaper's tool\n", o.Count)
		}
		if o.Count < int64(o.Parallel) {
			fmt.Fprintf(io.Err, "warning: -c %d is smaller than -p %d: only %d command(s) will run; the whitepaper's '-c 1' means a one-request run\n",
				o.Count, o.Parallel, o.Count)
		}
		dur = 0
	}
	if dur <= 0 && o.Count <= 0 {
		return 0, errors.New("need -d above 0 or -c above 0")
	}
	return dur, nil
}

// mixOf turns several templates and a ratio ("1:3") into a mixed
// workload; one template is not a mix.
func mixOf(commands []string, ratio string) ([]driver.MixEntry, error) {
	if len(commands) == 0 {
		return nil, errors.New("need a -command")
	}
	weights := make([]int, len(commands))
	for i := range weights {
		weights[i] = 1
	}
	if ratio != "" {
		parts := strings.Split(ratio, ":")
		if len(parts) != len(commands) {
			return nil, fmt.Errorf("--ratio %q has %d weights for %d -command templates", ratio, len(parts), len(commands))
		}
		for i, p := range parts {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("--ratio %q: weights are whole numbers of 0 or more", ratio)
			}
			weights[i] = n
		}
	}
	if len(commands) == 1 {
		return nil, nil
	}
	mix := make([]driver.MixEntry, len(commands))
	for i, c := range commands {
		mix[i] = driver.MixEntry{Template: c, Weight: weights[i]}
	}
	return mix, nil
}

func describeMix(commands []string, mix []driver.MixEntry) string {
	if len(mix) == 0 {
		return commands[0]
	}
	parts := make([]string, len(mix))
	for i, m := range mix {
		parts[i] = fmt.Sprintf("%d× %s", m.Weight, m.Template)
	}
	return strings.Join(parts, " | ")
}
