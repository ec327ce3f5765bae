package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/tairbench/tairbench/internal/flagval"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/endpoint"

	"github.com/tairbench/tairbench/internal/run/capacity"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// redisOptions are 'tairbench redis' flags.
type redisOptions struct {
	target     targetFlags
	out        outputFlags
	commands   []string
	ratio      string
	parallel   int
	count      int64
	duration   time.Duration
	warmup     time.Duration
	r1, r2     uint64
	rands      []string
	dataSize   int
	batching   int
	pipeline   int
	seed       uint64
	maxErrors  int64
	allowError bool
	rate       float64
	arrivals   string
	noServer   bool
	slo        flagval.Capacity
	dist       distFlags
}

func newRedisCmd(a *app) *cobra.Command {
	o := &redisOptions{duration: 30 * time.Second}
	cmd := &cobra.Command{
		Use:     "redis",
		Aliases: []string{"bench"},
		Short:   "Run a command template against a Tair or Redis server (the whitepaper's tool)",
		Long: `Run one command template from -p connections for -d seconds (or -c commands).
Several -command flags make a mixed workload: each request draws one of them,
by the weights of --ratio (memtier's 1:1 form; equal weights by default), and
the summary and JSON keep every statistic per command as well as in total.

Placeholders: __RAND__ and __RAND2__ draw from [0, -r) and [0, -r2);
__RAND3__ … __RAND9__ take their range from --rand 3=SIZE[:uniform|zipf[:THETA]|seq];
__RAND{t}__ (or __RAND2{t}__) repeats one drawn value wherever the same tag appears
in a command; __DATA__ is a value of --data-size bytes whose content varies.

Single-dash long flags work as in the whitepaper's tool:
  tairbench redis -h HOST -a user:password -d 30 -r 100000 -r2 10000000 \
    -command "TR.SETBIT foo-__RAND__ __RAND2__ 1" -p 20

Exit status: 0 on success, 1 on bad input or a failed connection, 3 when the
run completed but at least half of its commands failed.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runRedis(c.Context(), c.Flags(), o, a) },
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.target.register(fs)
	fs.StringArrayVar(&o.commands, "command", []string{"TR.GETBIT foo-__RAND__ __RAND2__"}, "command template; repeat for a mixed workload")
	fs.StringVar(&o.ratio, "ratio", "", "weights of the -command templates, as 1:3 (default: equal)")
	fs.IntVarP(&o.parallel, "parallel", "p", 4, "connections (one worker each)")
	fs.Int64VarP(&o.count, "count", "c", 0, "total commands; stops the run (overrides -d)")
	fs.VarP(seconds(&o.duration), "duration", "d", "duration in seconds (or 1m30s)")
	fs.Var(seconds(&o.warmup), "warmup", "warm-up excluded from the results, in seconds")
	fs.Uint64VarP(&o.r1, "r", "r", 100_000_000, "range of __RAND__: [0, r)")
	fs.Uint64Var(&o.r2, "r2", 100_000_000, "range of __RAND2__: [0, r2)")
	fs.StringArrayVar(&o.rands, "rand", nil, "range N (1-9) of __RANDN__ as N=SIZE[:uniform|zipf[:THETA]|seq]; repeatable")
	fs.IntVar(&o.dataSize, "data-size", 64, "size of __DATA__ values in bytes")
	fs.IntVar(&o.batching, "batching", 0, "wrap N commands in MULTI/EXEC per request")
	fs.IntVarP(&o.pipeline, "pipeline", "P", 0, "pipeline N commands per request (no MULTI)")
	fs.Uint64Var(&o.seed, "seed", 0, "base random seed (0: a new one, printed in the result)")
	fs.Float64Var(&o.rate, "rate", 0, "open-loop: requests per second in all, on a schedule; latency is also measured from each request's intended start (0: closed-loop)")
	fs.StringVar(&o.arrivals, "arrivals", engine.ArrivalsConstant, "open-loop schedule: constant or poisson")
	fs.BoolVar(&o.noServer, "no-server-stats", false, "do not sample the server's INFO once a second")
	o.slo.Register(fs)
	o.dist.register(fs)
	fs.Int64Var(&o.maxErrors, "max-errors", 0, "stop after this many errors (0: never)")
	fs.BoolVar(&o.allowError, "allow-errors", false, "exit 0 even when most commands failed")
	o.out.register(fs)
	return cmd
}

// templateOptions returns the template's ranges and data size.
func (o *redisOptions) templateOptions() (cmdtmpl.Options, error) {
	var opts cmdtmpl.Options
	if o.r1 == 0 || o.r2 == 0 {
		return opts, errors.New("-r and -r2 must be above 0")
	}
	opts.Ranges[1] = cmdtmpl.Range{Max: o.r1}
	opts.Ranges[2] = cmdtmpl.Range{Max: o.r2}
	for _, spec := range o.rands {
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
	if o.dataSize < 0 {
		return opts, errors.New("--data-size must not be negative")
	}
	opts.DataSize = o.dataSize
	return opts, nil
}

// budget checks -c and -d and returns the duration to run (0 when -c bounds the run).
func (o *redisOptions) budget(fs *pflag.FlagSet, a *app) (time.Duration, error) {
	dur := o.duration
	switch {
	case o.count < 0:
		return 0, errors.New("-c must not be negative")
	case fs.Changed("count") && o.count > 0:
		if fs.Changed("duration") {
			fmt.Fprintf(a.Err, "warning: -c %d and -d were both given: -c (total commands) wins and -d is ignored, as in the whitepaper's tool\n", o.count)
		}
		if o.count < int64(o.parallel) {
			fmt.Fprintf(a.Err, "warning: -c %d is smaller than -p %d: only %d command(s) will run; the whitepaper's '-c 1' means a one-request run\n",
				o.count, o.parallel, o.count)
		}
		dur = 0
	}
	if dur <= 0 && o.count <= 0 {
		return 0, errors.New("need -d above 0 or -c above 0")
	}
	return dur, nil
}

// redisRun is what a 'tairbench redis' run and each capacity-search step share.
type redisRun struct {
	o    *redisOptions
	a    *app
	ts   redis.TemplateSpec
	w    redis.Workload
	tg   endpoint.Target
	seed uint64
	// startAt and shard: one client of several (--start-at, --shard).
	startAt time.Time
	shard   string
}

// spec is one run against the target with the given engine settings.
func (r *redisRun) spec(name string, cfg engine.Config) run.Spec {
	cfg.Workers, cfg.Seed, cfg.Arrivals, cfg.MaxErrors = r.o.parallel, r.seed, r.o.arrivals, r.o.maxErrors
	cfg.StartAt = r.startAt
	spec := run.FromTemplate(r.ts, name, r.a.version, r.tg, r.w, cfg)
	spec.Config.Shard = r.shard
	spec.Log = r.a.Err
	return spec
}

func runRedis(ctx context.Context, fs *pflag.FlagSet, o *redisOptions, a *app) error {
	if o.parallel < 1 {
		return errors.New("-p must be at least 1")
	}
	if o.rate < 0 || o.arrivals != engine.ArrivalsConstant && o.arrivals != engine.ArrivalsPoisson {
		return errors.New("--rate must not be negative and --arrivals must be constant or poisson")
	}
	opts, err := o.templateOptions()
	if err != nil {
		return err
	}
	mix, err := mixOf(o.commands, o.ratio)
	if err != nil {
		return err
	}
	shard, shards, startAt, err := o.dist.parse()
	if err != nil {
		return err
	}
	shardRanges(&opts, shard, shards)
	r := &redisRun{o: o, a: a, ts: redis.TemplateSpec{Template: o.commands[0], Mix: mix, Options: opts, Batching: o.batching,
		Pipeline: o.pipeline, ServerStats: !o.noServer}}
	if r.w, err = r.ts.Workload(); err != nil {
		return err
	}
	var dur time.Duration
	var slo capacity.Options
	if o.slo.Given() {
		slo, err = o.slo.Options()
	} else {
		dur, err = o.budget(fs, a)
	}
	if err != nil {
		return err
	}
	tg, stopServer, err := o.target.resolve(a)
	if err != nil {
		return err
	}
	defer stopServer()
	r.tg, r.seed = tg, shardSeed(seedOrNew(o.seed), shard, shards)
	r.startAt = startAt
	if shards > 1 {
		r.shard = fmt.Sprintf("%d/%d", shard, shards)
	}
	loop := "closed-loop"
	switch {
	case o.slo.Given():
		loop = "capacity search for " + slo.SLO.String()
	case o.rate > 0:
		loop = fmt.Sprintf("open-loop at %.0f requests/s (%s)", o.rate, o.arrivals)
	}
	fmt.Fprintf(a.Err, "tairbench %s → %s, %d connections, %s, %s, seed %d\n", describeMix(o.commands, mix), tg.Addr, o.parallel, r.w.ModeName(), loop, r.seed)
	if o.slo.Given() {
		return runCapacity(ctx, r, slo)
	}
	spec := r.spec("", engine.Config{Duration: dur, Ops: o.count, Warmup: o.warmup, Rate: o.rate})
	if !o.out.quiet {
		spec.Engine.Progress = progressPrinter(a)
	}
	run, hist, err := run.Run(ctx, spec)
	if err != nil {
		return err
	}
	return finish(a, run, hist, &o.out, o.allowError)
}

// mixOf turns several templates and a ratio ("1:3") into a mixed
// workload; one template is not a mix.
func mixOf(commands []string, ratio string) ([]redis.MixEntry, error) {
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
	mix := make([]redis.MixEntry, len(commands))
	for i, c := range commands {
		mix[i] = redis.MixEntry{Template: c, Weight: weights[i]}
	}
	return mix, nil
}

func describeMix(commands []string, mix []redis.MixEntry) string {
	if len(mix) == 0 {
		return commands[0]
	}
	parts := make([]string, len(mix))
	for i, m := range mix {
		parts[i] = fmt.Sprintf("%d× %s", m.Weight, m.Template)
	}
	return strings.Join(parts, " | ")
}

// runCapacity searches the highest rate that meets --slo.
func runCapacity(ctx context.Context, r *redisRun, opts capacity.Options) error {
	return searchCapacity(ctx, r.a, opts, r.o.out.json, func() (run.Spec, error) {
		return r.spec("", engine.Config{}), nil
	})
}

// searchCapacity runs a capacity search over mk's spec, prints its summary
// and writes its document (tairbench.capacity/v1) to jsonPath.
func searchCapacity(ctx context.Context, a *app, opts capacity.Options, jsonPath string, mk capacity.MakeSpec) error {
	opts.Log, opts.Version = a.Err, a.version
	c, err := capacity.SearchSpecs(ctx, opts, mk)
	if c != nil && len(c.Steps) > 0 {
		if werr := capacity.WriteSummary(summaryTo(a, jsonPath), c); werr != nil {
			return werr
		}
		if werr := writeDocument(a, jsonPath, c); werr != nil {
			return werr
		}
	}
	if err != nil {
		return err
	}
	if c.HighestHeld == 0 {
		return &ExitError{Code: ExitRunFailed, Err: fmt.Errorf("no rate tried held %s", c.SLO)}
	}
	return nil
}
