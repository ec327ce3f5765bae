package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/bitmap"
	"github.com/tairbench/tairbench/internal/frontend/common"
)

// bitmapFlags are 'tairbench bitmap compare' flags.
type bitmapFlags struct {
	bitmap.Words
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
	f := &bitmapFlags{Words: bitmap.Words{Options: common.Defaults(), Duration: 2 * time.Second}}
	// Generated IDs are the same run to run unless --seed says otherwise;
	// loading a large set takes longer than a dialect's request.
	f.Seed, f.Timeout = 1, 30*time.Second
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
or --ids-format u32/u64 little-endian; gzip, bzip2 and zstd are detected), --from-key
HOST:PORT/KEY (an existing set, bitmap or TairRoaring key), or generated
(--cardinality, --universe, --shape, --keys, --size-skew).

Defaults: TairRoaring on tairbench's embedded server (in this process, not
Tair) and the Redis structures on a redis-server started on a free port.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runBitmapCompare(c.Context(), f, a) },
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&f.Roaring, "roaring", "", "HOST:PORT of the server for TairRoaring (default: the embedded server, in this process)")
	fs.StringVar(&f.RoaringAuth, "roaring-auth", "", "its password, or user:password")
	fs.StringVar(&f.Redis, "redis", "", "HOST:PORT of the server for Redis bitmaps and sets (default: a redis-server started on a free port)")
	fs.StringVar(&f.RedisAuth, "redis-auth", "", "its password, or user:password")
	fs.StringArrayVar(&f.IDs, "ids", nil, "a file of IDs, one key per file (repeatable)")
	fs.StringVar(&f.IDsFormat, "ids-format", bitmap.FormatText, "text (one integer a line), u32 or u64 (little-endian records)")
	fs.StringArrayVar(&f.FromKeys, "from-key", nil, "HOST:PORT/KEY: read an existing set, bitmap or TairRoaring key as one key's IDs (repeatable)")
	fs.StringVar(&f.Cardinalities, "cardinality", "100000", "generated IDs per key: one number or a sweep (1e3,1e5,1e7)")
	fs.StringVar(&f.Universe, "universe", "2^24", "generated IDs are below this (at most 2^32)")
	fs.StringVar(&f.Shape, "shape", bitmap.ShapeUniform, "generated IDs' spread: "+strings.Join(bitmap.Shapes, ", "))
	fs.IntVar(&f.Keys, "keys", 2, "generated keys per point")
	fs.Float64Var(&f.SizeSkew, "size-skew", 0, "key i holds cardinality/(i+1)^skew IDs (0: all alike; 1: a power law of tag sizes)")
	fs.Uint64Var(&f.Block, "block", 65536, "block size of the clustered and zipf shapes")
	fs.Uint64Var(&f.RunLength, "run-length", 1000, "run length of the runs shape")
	fs.StringSliceVar(&f.Structures, "structures", nil, "structures to compare (default all: "+strings.Join(bitmap.Structures, ", ")+")")
	fs.StringSliceVar(&f.Ops, "ops", nil, "operations to run (default all)")
	fs.IntVarP(&f.Connections, "connections", "c", 8, "connections of each timed run")
	fs.VarP(seconds(&f.Duration), "duration", "d", "seconds each timed run lasts")
	fs.Float64Var(&f.Rate, "rate", 0, "also run each operation open-loop at this many requests/s (latency from the intended start)")
	fs.IntVar(&f.Probes, "probes", 100, "parameters each operation's cross-check asks every structure")
	fs.StringVar(&f.MaxMemory, "max-memory", "2GiB", "refuse a plan above this, all structures together (0: no bound)")
	fs.BoolVar(&f.PlanOnly, "plan", false, "print the plan (bytes per structure) and stop before loading (as --dry-run)")
	f.Options.Register(fs, "")
	return cmd
}

func runBitmapCompare(ctx context.Context, f *bitmapFlags, a *app) error {
	return bitmap.Main(ctx, f.Words, a.io())
}
