package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/tairbench/tairbench/internal/flagval"
	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	redisfront "github.com/tairbench/tairbench/internal/frontend/redis"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// redisOptions are 'tairbench redis' flags.
type redisOptions struct {
	// own are tairbench's own options, declared once (common.Options).
	own         common.Options
	target      targetFlags
	out         outputFlags
	abortOnFail bool
	preload     bool
	maxMemory   string
	commands    []string
	ratio       string
	parallel    int
	count       int64
	duration    time.Duration
	warmup      time.Duration
	r1, r2      uint64
	rands       []string
	dataSize    int
	batching    int
	pipeline    int
	window      int
	maxErrors   int64
	allowError  bool
	rate        float64
	rateTimes   float64
	workload    string
	arrivals    string
	sendGrid    time.Duration
	slo         flagval.Capacity
	shard       shardFlags
	// verifyWrites, waitReplicas and waitTimeout are the write ledger's.
	verifyWrites bool
	waitReplicas int
	waitTimeout  time.Duration
}

func newRedisCmd(a *app) *cobra.Command {
	o := &redisOptions{duration: 30 * time.Second, own: common.Defaults()}
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
run completed but at least half of its commands failed, 130 or 143 when
SIGINT or SIGTERM stopped it (its partial result is written).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runRedis(c.Context(), c.Flags(), o, a) },
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.target.registerAddr(fs)
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
	fs.IntVar(&o.window, "window", 0, "keep N commands in flight per connection, one more sent per reply (memtier's --pipeline); with --rate, each command at its own intended start while fewer than N are in flight")
	fs.Var(flagval.Rate{PerSecond: &o.rate, Times: &o.rateTimes}, "rate", "open-loop: requests per second in all, on a schedule (or, with --workload, a multiple of its rate: 2x); latency is also measured from each request's intended start (0: closed-loop)")
	fs.StringVar(&o.workload, "workload", "", "run a workload file (tairbench fit's): its commands, ranges, sizes, connections, at --rate Nx its rate (default 1x)")
	fs.StringVar(&o.arrivals, "arrivals", redisfront.ArrivalsConstant, "open-loop schedule: constant or poisson")
	fs.DurationVar(&o.sendGrid, "send-grid", 0, "open-loop: send on this grid (e.g. 250us), each request at the first tick at or after its intended start, for less client CPU per request (latency still counts from that start; arrivals move to their ticks); 0: each request at its own start")
	o.slo.Register(fs)
	o.shard.register(fs)
	fs.Int64Var(&o.maxErrors, "max-errors", 0, "stop after this many errors (0: never)")
	fs.BoolVar(&o.allowError, "allow-errors", false, "exit 0 even when most commands failed")
	o.out.registerFiles(fs)
	o.own.Register(fs, "")
	fs.BoolVar(&o.preload, "preload", false, "before the run, fill every key the read commands can draw (timed apart, its own phase in the JSON)")
	fs.StringVar(&o.maxMemory, "max-memory", "1GiB", "--preload refuses to write more than this")
	fs.BoolVar(&o.abortOnFail, "abort-on-fail", false, "stop the run at the first second a --threshold on latency or errors already fails")
	fs.BoolVar(&o.verifyWrites, "verify-writes", false, "write ledger: every write an INCR of a counter of the run's, read back after it; acknowledged writes lost fail the run (--threshold lost_writes<N to allow some)")
	fs.IntVar(&o.waitReplicas, "wait-replicas", 0, "with --verify-writes: follow each write with WAIT N; a write is acknowledged when N replicas have it")
	fs.DurationVar(&o.waitTimeout, "wait-timeout", time.Second, "with --wait-replicas: WAIT's timeout")
	return cmd
}

func runRedis(ctx context.Context, fs *pflag.FlagSet, o *redisOptions, a *app) error {
	redisTraps(a.Err, fs, o.target.Host, o.parallel)
	shard, err := harness.ParseShard(o.shard.shard, o.shard.startAt)
	if err != nil {
		return err
	}
	tg, err := o.own.Target(o.target.Options).Build()
	if err != nil {
		return err
	}
	ro := redisfront.Options{Options: o.own, Target: tg, Commands: o.commands, Ratio: o.ratio,
		Parallel: o.parallel, Count: o.count, Duration: o.duration, Warmup: o.warmup,
		CountGiven: fs.Changed("count"), DurationGiven: fs.Changed("duration"),
		R1: o.r1, R2: o.r2, Rands: o.rands, DataSize: o.dataSize, Batching: o.batching, Pipeline: o.pipeline, Window: o.window,
		BatchingGiven: fs.Changed("batching"), PipelineGiven: fs.Changed("pipeline"),
		MaxErrors: o.maxErrors, AllowErrors: o.allowError, Rate: o.rate, Arrivals: o.arrivals, SendGrid: o.sendGrid,
		Shard: shard, AbortOnFail: o.abortOnFail, Preload: o.preload,
		Workload: o.workload, RateTimes: o.rateTimes, ParallelGiven: fs.Changed("parallel"),
		VerifyWrites: o.verifyWrites, WaitReplicas: o.waitReplicas, WaitTimeout: o.waitTimeout}
	if o.workload != "" || o.verifyWrites {
		for _, f := range []string{"command", "ratio", "r", "r2", "rand", "data-size"} {
			if fs.Changed(f) {
				ro.TemplateFlags = append(ro.TemplateFlags, "-"+f)
			}
		}
		if !fs.Changed("rate") {
			ro.RateTimes = 1
		}
	}
	if ro.PreloadMax, err = flagval.ParseBytes(o.maxMemory); err != nil {
		return fmt.Errorf("--max-memory %w", err)
	}
	if ro.Out, err = o.out.Parse(); err != nil {
		return err
	}
	if ro.SLO, err = o.slo.Optional(); err != nil {
		return err
	}
	_, err = redisfront.Run(ctx, ro, a.io())
	return err
}
