package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/bench"
	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/result"
)

// seconds is a duration flag that takes whole seconds ("30", as the
// whitepaper's tool does) or a Go duration ("1m30s", "500ms").
type seconds struct{ d *time.Duration }

func (s seconds) String() string { return s.d.String() }
func (s seconds) Type() string   { return "seconds" }
func (s seconds) Set(v string) error {
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n < 0 {
			return errors.New("must not be negative")
		}
		*s.d = time.Duration(n * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is neither seconds nor a duration such as 1m30s", v)
	}
	*s.d = d
	return nil
}

// targetFlags are the connection flags shared by every subcommand that
// talks to a server.
type targetFlags struct {
	host, auth, user, password string
	port, db, resp             int
	timeout                    time.Duration
	tls, tlsInsecure           bool
	tlsCA, tlsCert, tlsKey     string
	tlsServerName              string
	cluster, embedded          bool
}

func (t *targetFlags) register(fs *pflag.FlagSet) {
	// -h is the host, as in redis-benchmark and the whitepaper's tool; help is --help.
	fs.Bool("help", false, "help for this command")
	fs.StringVarP(&t.host, "host", "h", "127.0.0.1", "server host (or host:port)")
	fs.IntVar(&t.port, "port", 6379, "server port")
	fs.StringVarP(&t.auth, "auth", "a", "", `password, or "user:password" (Tair's form; an ACL user on Redis 6+)`)
	fs.StringVar(&t.user, "user", "", "ACL user name")
	fs.StringVar(&t.password, "password", "", "password (prefer the TAIRBENCH_PASSWORD environment variable)")
	fs.IntVar(&t.db, "db", 0, "database number (SELECT)")
	fs.IntVar(&t.resp, "resp", 2, "protocol version: 2 or 3")
	fs.DurationVar(&t.timeout, "timeout", 10*time.Second, "connect and per-request timeout")
	fs.BoolVar(&t.tls, "tls", false, "connect with TLS")
	fs.StringVar(&t.tlsCA, "tls-ca", "", "CA certificate file (PEM) to verify the server")
	fs.StringVar(&t.tlsCert, "tls-cert", "", "client certificate file (PEM)")
	fs.StringVar(&t.tlsKey, "tls-key", "", "client key file (PEM)")
	fs.BoolVar(&t.tlsInsecure, "tls-insecure", false, "do not verify the server's certificate")
	fs.StringVar(&t.tlsServerName, "tls-server-name", "", "server name to verify (default: the host)")
	fs.BoolVar(&t.cluster, "cluster", false, "slot-aware routing through go-redis's cluster client")
	fs.BoolVar(&t.embedded, "embedded", false, "start the embedded server in this process and target it")
}

// resolve starts the embedded server if asked and returns the target and a
// function that stops the server (never nil).
func (t *targetFlags) resolve(s Streams) (redis.Target, func(), error) {
	stop, err := t.startEmbedded(s)
	if err != nil {
		return redis.Target{}, nil, err
	}
	tg, err := t.target()
	if err != nil {
		stop()
		return redis.Target{}, nil, err
	}
	return tg, stop, nil
}

// startEmbedded starts the in-process server when --embedded is set and
// points the target at it. The returned stop function is never nil.
func (t *targetFlags) startEmbedded(s Streams) (func(), error) {
	if !t.embedded {
		return func() {}, nil
	}
	pw := t.password
	if pw == "" {
		pw = t.auth
		if u, p, ok := strings.Cut(t.auth, ":"); ok && u == "default" {
			pw = p
		}
	}
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Password: pw})
	if err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(srv.Addr())
	t.host = host
	t.port, _ = strconv.Atoi(port)
	fmt.Fprintf(s.Err, "embedded server listening on %s\n", srv.Addr())
	return func() { _ = srv.Close() }, nil
}

func (t *targetFlags) target() (redis.Target, error) {
	addr := t.host
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(t.host, strconv.Itoa(t.port))
	}
	if t.port <= 0 || t.port > 65535 {
		return redis.Target{}, fmt.Errorf("bad port %d", t.port)
	}
	if t.resp != 2 && t.resp != 3 {
		return redis.Target{}, fmt.Errorf("--resp must be 2 or 3, got %d", t.resp)
	}
	pw := t.password
	if pw == "" {
		pw = os.Getenv("TAIRBENCH_PASSWORD")
	}
	tg := redis.Target{Addr: addr, Auth: t.auth, User: t.user, Password: pw, DB: t.db, Protocol: t.resp, Timeout: t.timeout}
	if t.tls || t.tlsCA != "" || t.tlsInsecure || t.tlsCert != "" {
		tg.TLS = &redis.TLSOptions{CAFile: t.tlsCA, CertFile: t.tlsCert, KeyFile: t.tlsKey, Insecure: t.tlsInsecure, ServerName: t.tlsServerName}
	}
	return tg, nil
}

// outputFlags select the result files.
type outputFlags struct {
	json, csv, hgrm string
	quiet           bool
}

func (o *outputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.json, "json", "", "write the result as JSON to this file (- for stdout)")
	fs.StringVar(&o.csv, "csv", "", "write the per-second series as CSV to this file")
	fs.StringVar(&o.hgrm, "hgrm", "", "write the latency percentile distribution (.hgrm) to this file")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no per-second progress lines")
}

type redisOptions struct {
	target     targetFlags
	out        outputFlags
	command    string
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
}

func newRedisCmd(s Streams) *cobra.Command {
	o := &redisOptions{duration: 30 * time.Second}
	cmd := &cobra.Command{
		Use:     "redis",
		Aliases: []string{"bench"},
		Short:   "Run a command template against a Tair or Redis server (the whitepaper's tool)",
		Long: `Run one command template from -p connections for -d seconds (or -c commands).

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
		RunE: func(c *cobra.Command, _ []string) error {
			return runRedis(c.Context(), c, o, s)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.target.register(fs)
	fs.StringVar(&o.command, "command", "TR.GETBIT foo-__RAND__ __RAND2__", "command template")
	fs.IntVarP(&o.parallel, "parallel", "p", 4, "connections (one worker each)")
	fs.Int64VarP(&o.count, "count", "c", 0, "total commands; stops the run (overrides -d)")
	fs.VarP(seconds{&o.duration}, "duration", "d", "duration in seconds (or 1m30s)")
	fs.Var(seconds{&o.warmup}, "warmup", "warm-up excluded from the results, in seconds")
	fs.Uint64VarP(&o.r1, "r", "r", 100_000_000, "range of __RAND__: [0, r)")
	fs.Uint64Var(&o.r2, "r2", 100_000_000, "range of __RAND2__: [0, r2)")
	fs.StringArrayVar(&o.rands, "rand", nil, "range N (1-9) of __RANDN__ as N=SIZE[:uniform|zipf[:THETA]|seq]; repeatable")
	fs.IntVar(&o.dataSize, "data-size", 64, "size of __DATA__ values in bytes")
	fs.IntVar(&o.batching, "batching", 0, "wrap N commands in MULTI/EXEC per request")
	fs.IntVarP(&o.pipeline, "pipeline", "P", 0, "pipeline N commands per request (no MULTI)")
	fs.Uint64Var(&o.seed, "seed", 0, "base random seed (0: a new one, printed in the result)")
	fs.Int64Var(&o.maxErrors, "max-errors", 0, "stop after this many errors (0: never)")
	fs.BoolVar(&o.allowError, "allow-errors", false, "exit 0 even when most commands failed")
	o.out.register(fs)
	return cmd
}

func (o *redisOptions) ranges(fs *pflag.FlagSet) (cmdtmpl.Options, error) {
	var opts cmdtmpl.Options
	opts.Ranges[1] = cmdtmpl.Range{Max: o.r1}
	opts.Ranges[2] = cmdtmpl.Range{Max: o.r2}
	if o.r1 == 0 || o.r2 == 0 {
		return opts, errors.New("-r and -r2 must be above 0")
	}
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

func (o *redisOptions) workload(fs *pflag.FlagSet) (redis.Workload, error) {
	tp, err := cmdtmpl.Parse(o.command)
	if err != nil {
		return redis.Workload{}, fmt.Errorf("bad -command: %w", err)
	}
	opts, err := o.ranges(fs)
	if err != nil {
		return redis.Workload{}, err
	}
	prog, err := cmdtmpl.Compile(tp, opts)
	if err != nil {
		return redis.Workload{}, fmt.Errorf("bad -command: %w", err)
	}
	w := redis.Workload{Program: prog, Mode: redis.Single, N: 1}
	switch {
	case o.batching < 0 || o.pipeline < 0:
		return w, errors.New("-batching and -P must not be negative")
	case o.batching > 0 && o.pipeline > 0:
		return w, errors.New("-batching (MULTI/EXEC) and -P (pipelining) cannot be combined")
	case o.batching > 0:
		w.Mode, w.N = redis.Batch, o.batching
	case o.pipeline > 0:
		w.Mode, w.N = redis.Pipeline, o.pipeline
	}
	return w, nil
}

func modeName(w redis.Workload) string {
	switch w.Mode {
	case redis.Batch:
		return fmt.Sprintf("MULTI/EXEC batches of %d", w.N)
	case redis.Pipeline:
		return fmt.Sprintf("pipeline of %d", w.N)
	default:
		return "one command per round trip"
	}
}

func runRedis(ctx context.Context, c *cobra.Command, o *redisOptions, s Streams) error {
	fs := c.Flags()
	if o.parallel < 1 {
		return &ExitError{Code: ExitError1, Err: errors.New("-p must be at least 1")}
	}
	tg, stopServer, err := o.target.resolve(s)
	if err != nil {
		return &ExitError{Code: ExitError1, Err: err}
	}
	defer stopServer()
	w, err := o.workload(fs)
	if err != nil {
		return &ExitError{Code: ExitError1, Err: err}
	}
	dur := o.duration
	if fs.Changed("count") && o.count > 0 {
		if fs.Changed("duration") {
			fmt.Fprintf(s.Err, "warning: -c %d and -d were both given: -c (total commands) wins and -d is ignored, as in the whitepaper's tool\n", o.count)
		}
		if o.count < int64(o.parallel) {
			fmt.Fprintf(s.Err, "warning: -c %d is smaller than -p %d: only %d command(s) will run; the whitepaper's '-c 1' means a one-request run\n",
				o.count, o.parallel, o.count)
		}
		dur = 0
	} else if o.count < 0 {
		return &ExitError{Code: ExitError1, Err: errors.New("-c must not be negative")}
	}
	if dur <= 0 && o.count <= 0 {
		return &ExitError{Code: ExitError1, Err: errors.New("need -d above 0 or -c above 0")}
	}
	seed := o.seed
	if seed == 0 {
		seed = engine.NewSeed()
	}
	f := &redis.Factory{Target: tg, Workload: w, Cluster: o.target.cluster}
	spec := bench.Spec{
		Command: o.command,
		Config: map[string]any{
			"target": tg.Redacted(), "cluster": o.target.cluster, "mode": modeName(w), "connections": o.parallel,
			"duration_s": dur.Seconds(), "count": o.count, "warmup_s": o.warmup.Seconds(),
			"ranges": w.Program.RangeSpecs(), "data_size": o.dataSize, "batching": o.batching, "pipeline": o.pipeline,
			"max_errors": o.maxErrors,
		},
		Engine: engine.Config{
			Workers: o.parallel, Duration: dur, Ops: o.count, OpsPerRequest: w.OpsPerRequest(),
			Warmup: o.warmup, MaxErrors: o.maxErrors, Seed: seed,
		},
		Factory:         f,
		InProcessServer: o.target.embedded,
	}
	if !o.out.quiet {
		spec.Engine.Progress = progressPrinter(s)
	}
	fmt.Fprintf(s.Err, "tairbench %s → %s, %d connections, %s, seed %d\n", o.command, tg.Addr, o.parallel, modeName(w), seed)
	run, hist, err := bench.Run(ctx, spec)
	if err != nil {
		return &ExitError{Code: ExitError1, Err: err}
	}
	return finish(run, hist, &o.out, s, o.allowError)
}

func progressPrinter(s Streams) func(stats.Progress) {
	return func(p stats.Progress) {
		iv := p.Interval
		fmt.Fprintf(s.Err, "[%4.0fs] %10.0f ops/s  avg %7.3f ms  p99 %7.3f ms  errors %d (total %d)\n",
			p.Elapsed.Seconds(), iv.OpsPerSec, iv.MeanUS/1000, iv.P99US/1000, iv.Errors, p.Errors)
	}
}

// finish prints the summary, writes the result files and picks the exit code.
func finish(run *result.Run, h *hdr.Histogram, out *outputFlags, s Streams, allowErrors bool) error {
	if err := report.Text(s.Out, run, h); err != nil {
		return &ExitError{Code: ExitError1, Err: err}
	}
	if err := writeOutputs(run, h, out, s); err != nil {
		return &ExitError{Code: ExitError1, Err: err}
	}
	if report.Failed(run) && !allowErrors {
		return &ExitError{Code: ExitRunFailed, Err: fmt.Errorf("%.1f%% of commands failed (use --allow-errors to exit 0)", 100*run.Totals.ErrorRate)}
	}
	return nil
}
