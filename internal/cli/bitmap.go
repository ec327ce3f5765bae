package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/driver/bitmaps"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/flagval"
	"github.com/tairbench/tairbench/internal/frontend/bitmap"
	"github.com/tairbench/tairbench/internal/frontend/harness"
)

// bitmapFlags are 'tairbench bitmap compare' flags.
type bitmapFlags struct {
	roaring, roaringAuth, redis, redisAuth string
	ids, fromKeys                          []string
	idsFormat, shape, cards, universe      string
	keys                                   int
	skew                                   float64
	block, runLen                          uint64
	structures, ops                        []string
	conns, probes                          int
	duration                               time.Duration
	rate                                   float64
	maxMemory, jsonPath                    string
	planOnly                               bool
	seed                                   uint64
	metrics                                metricsFlags
}

func newBitmapCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bitmap",
		Short: "TairRoaring, Redis bitmaps or Redis sets for your IDs: memory and speed side by side",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newBitmapCompareCmd(a))
	return cmd
}

func newBitmapCompareCmd(a *app) *cobra.Command {
	f := &bitmapFlags{}
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Load the same IDs as each structure, compare memory, cross-check answers and time every operation",
		Example: `  tairbench bitmap compare --cardinality 1e3,1e5,1e6 --universe 2^24 --shape clustered
  tairbench bitmap compare --ids users-a.txt --ids users-b.txt.gz --redis 10.0.0.5:6379 --roaring 10.0.0.6:6379`,
		Long: `Loads the same sets of integer IDs as TairRoaring bitmaps (TR.*), Redis
bitmaps (SETBIT/BITCOUNT/BITOP) and Redis sets (SADD/SISMEMBER/SINTERCARD),
prints the plan first (bytes per structure; --max-memory refuses a larger
one), then per structure MEMORY USAGE, the payload bytes, INFO memory's
delta and the encoding. Every operation (membership, count, count in a
range, rank, k-th member, intersection and union counts of two and of all
keys, BITOP into a key, add) is asked of each structure with the same
parameters and the answers are checked against the IDs loaded: any
difference stops the run and is named. Then each is timed through the
engine (closed loop; --rate adds an open-loop run). With several
--cardinality values, a table shows which structure wins each measure
and where the winner changes.

The IDs: --ids FILE (repeatable: one key a file; text, one integer per line,
or --ids-format u32/u64 little-endian; gzip is detected), --from-key
HOST:PORT/KEY (an existing set, bitmap or TairRoaring key), or generated
(--cardinality, --universe, --shape, --keys, --size-skew).

Defaults: TairRoaring on tairbench's embedded server (in this process, not
Tair) and the Redis structures on a redis-server started on a free port.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runBitmapCompare(c.Context(), f, a) },
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&f.roaring, "roaring", "", "HOST:PORT of the server for TairRoaring (default: the embedded server, in this process)")
	fs.StringVar(&f.roaringAuth, "roaring-auth", "", "its password, or user:password")
	fs.StringVar(&f.redis, "redis", "", "HOST:PORT of the server for Redis bitmaps and sets (default: a redis-server started on a free port)")
	fs.StringVar(&f.redisAuth, "redis-auth", "", "its password, or user:password")
	fs.StringArrayVar(&f.ids, "ids", nil, "a file of IDs, one key per file (repeatable)")
	fs.StringVar(&f.idsFormat, "ids-format", bitmap.FormatText, "text (one integer a line), u32 or u64 (little-endian records)")
	fs.StringArrayVar(&f.fromKeys, "from-key", nil, "HOST:PORT/KEY: read an existing set, bitmap or TairRoaring key as one key's IDs (repeatable)")
	fs.StringVar(&f.cards, "cardinality", "100000", "generated IDs per key: one number or a sweep (1e3,1e5,1e7)")
	fs.StringVar(&f.universe, "universe", "2^24", "generated IDs are below this (at most 2^32)")
	fs.StringVar(&f.shape, "shape", bitmap.ShapeUniform, "generated IDs' spread: "+strings.Join(bitmap.Shapes, ", "))
	fs.IntVar(&f.keys, "keys", 2, "generated keys per point")
	fs.Float64Var(&f.skew, "size-skew", 0, "key i holds cardinality/(i+1)^skew IDs (0: all alike; 1: a power law of tag sizes)")
	fs.Uint64Var(&f.block, "block", 65536, "block size of the clustered and zipf shapes")
	fs.Uint64Var(&f.runLen, "run-length", 1000, "run length of the runs shape")
	fs.StringSliceVar(&f.structures, "structures", nil, "structures to compare (default all: "+strings.Join(bitmaps.Structures, ", ")+")")
	fs.StringSliceVar(&f.ops, "ops", nil, "operations to run (default all)")
	fs.IntVarP(&f.conns, "connections", "c", 8, "connections of each timed run")
	fs.VarP(seconds(&f.duration), "duration", "d", "seconds each timed run lasts")
	fs.Float64Var(&f.rate, "rate", 0, "also run each operation open-loop at this many requests/s (latency from the intended start)")
	fs.IntVar(&f.probes, "probes", 100, "parameters each operation's cross-check asks every structure")
	fs.StringVar(&f.maxMemory, "max-memory", "2GiB", "refuse a plan above this, all structures together (0: no bound)")
	fs.BoolVar(&f.planOnly, "plan", false, "print the plan (bytes per structure) and stop before loading")
	fs.BoolVar(&f.planOnly, "dry-run", false, "the same as --plan")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the generated IDs and the drawn parameters")
	fs.StringVar(&f.jsonPath, "json", "", "write the result (tairbench.bitmap/v1) to this file (- for stdout)")
	f.metrics.register(fs)
	f.duration = 2 * time.Second
	return cmd
}

func runBitmapCompare(ctx context.Context, f *bitmapFlags, a *app) error {
	o, err := f.options(ctx)
	if err != nil {
		return err
	}
	if o.Roaring.Addr == "" && !o.PlanOnly && wants(o.Structures, bitmaps.TairRoaring) {
		stop, err := harness.StartEmbedded(a.io(), &o.Roaring)
		if err != nil {
			return err
		}
		defer stop()
	}
	if o.Redis.Addr == "" && !o.PlanOnly && (wants(o.Structures, bitmaps.RedisBitmap) || wants(o.Structures, bitmaps.RedisSet)) {
		addr, stop, err := harness.StartRedisServer(a.io())
		if err != nil {
			return err
		}
		defer stop()
		o.Redis.Addr = addr
	}
	return f.metrics.around(ctx, a, func(ctx context.Context) error {
		_, err := bitmap.Run(ctx, o, a.io())
		return err
	})
}

func wants(list []string, s string) bool {
	if len(list) == 0 {
		return true
	}
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (f *bitmapFlags) options(ctx context.Context) (bitmap.Options, error) {
	o := bitmap.Options{Structures: f.structures, Ops: f.ops, Keys: f.keys, SizeSkew: f.skew, Connections: f.conns,
		Duration: f.duration, Rate: f.rate, Probes: f.probes, Seed: f.seed, JSON: f.jsonPath, PlanOnly: f.planOnly}
	o.Roaring = endpoint.Target{Addr: f.roaring, Auth: f.roaringAuth, Protocol: 2, Timeout: 30 * time.Second}
	o.Redis = endpoint.Target{Addr: f.redis, Auth: f.redisAuth, Protocol: 2, Timeout: 30 * time.Second}
	var err error
	if o.MaxMemory, err = flagval.ParseBytes(f.maxMemory); err != nil {
		return o, fmt.Errorf("--max-memory %w", err)
	}
	if len(f.ids) > 0 || len(f.fromKeys) > 0 {
		return o, f.readSets(ctx, &o)
	}
	u, err := flagval.ParseCount(f.universe)
	if err != nil {
		return o, fmt.Errorf("--universe %w", err)
	}
	o.Gen = bitmap.GenSpec{Shape: f.shape, Universe: u, Block: f.block, RunLength: f.runLen}
	for _, c := range strings.Split(f.cards, ",") {
		n, err := flagval.ParseCount(c)
		if err != nil {
			return o, fmt.Errorf("--cardinality %w", err)
		}
		g := o.Gen
		g.Cardinality = n
		if err := g.Validate(); err != nil {
			return o, fmt.Errorf("--cardinality %d, --universe %d, --shape %s: %w", n, u, f.shape, err)
		}
		o.Cardinalities = append(o.Cardinalities, n)
	}
	return o, nil
}

// readSets reads the user's IDs: every file and key, before anything is loaded.
func (f *bitmapFlags) readSets(ctx context.Context, o *bitmap.Options) error {
	o.Data = "ids"
	for _, path := range f.ids {
		set, err := bitmap.ReadIDFile(path, f.idsFormat)
		if err != nil {
			return fmt.Errorf("%w (nothing loaded)", err)
		}
		o.Sets = append(o.Sets, set)
	}
	for _, ref := range f.fromKeys {
		addr, key, ok := strings.Cut(ref, "/")
		if !ok || key == "" || !strings.Contains(addr, ":") {
			return fmt.Errorf("--from-key %q: want HOST:PORT/KEY", ref)
		}
		o.Data = "from-key"
		bm, kind, err := bitmaps.ReadKey(ctx, endpoint.Target{Addr: addr, Protocol: 2, Timeout: 30 * time.Second}, key)
		if err != nil {
			return fmt.Errorf("--from-key %s: %w", ref, err)
		}
		o.Sets = append(o.Sets, bitmap.IDSet{Source: fmt.Sprintf("%s key %s (%s)", addr, key, kind), IDs: bm, Read: bm.GetCardinality()})
	}
	if len(o.Sets) == 0 {
		return errors.New("no IDs given")
	}
	return nil
}
