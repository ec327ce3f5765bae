package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/vector"
)

// vectorOptions are 'tairbench vector' flags.
type vectorOptions struct {
	target        targetFlags
	engines       string
	es, esAuth    string
	index         string
	data          vector.DataSpec
	algorithm     string
	m, efC        int
	efSearch      string
	numCandidates string
	conns, loadC  int
	batch         int
	duration      time.Duration
	warmup        time.Duration
	rate          float64
	jsonPath      string
}

func newVectorCmd(a *app) *cobra.Command {
	o := &vectorOptions{}
	cmd := &cobra.Command{
		Use:   "vector",
		Short: "Vector search, the ANN-benchmarks way: recall@k against exact ground truth, QPS at equal recall",
		Long: `Load a dataset into TairVector (Tair, or --embedded) and/or Elasticsearch 8 (--es),
then for each search parameter (--ef-search for TairVector, --num-candidates for
Elasticsearch) measure recall@k against exact ground truth, QPS and latency
through the engine; print QPS at recall >= 0.90, 0.95 and 0.99 side by side.

Data: --data clustered (generated, --n/--nq/--dims/--centres), random-s-100 or
random-xs-20 (ann-benchmarks' recipe, prepared by scripts/vector_data.py into
--data-dir), or a file (.fvecs, .bvecs, .npy; --queries FILE, or its last --nq rows).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runVector(c.Context(), o, a) },
	}
	o.register(cmd.Flags(), true)
	fs := cmd.Flags()
	fs.StringVar(&o.jsonPath, "json", "", "write the result as JSON to this file (- for stdout)")
	cmd.AddCommand(newVectorSuiteCmd(a))
	return cmd
}

// intList reads "10,20,40" (each at least 1).
func intList(flag, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--%s %q: want positive integers separated by commas", flag, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func (o *vectorOptions) options() (vector.Options, error) {
	vo := vector.Options{K: o.data.K, Algorithm: strings.ToUpper(o.algorithm), M: o.m, EfConstruct: o.efC,
		Connections: o.conns, LoadConnections: o.loadC, Batch: o.batch, Rate: o.rate}
	switch {
	case o.duration <= 0:
		return vo, fmt.Errorf("--duration %s: want a positive duration (5s, 1m)", o.duration)
	case vo.Algorithm != "HNSW" && vo.Algorithm != "FLAT":
		return vo, fmt.Errorf("--algorithm %q: want HNSW or FLAT", o.algorithm)
	case o.m < 1 || o.m > 100 || o.efC < 1 || o.efC > 1000:
		return vo, errors.New("--m must be 1..100 and --ef-construct 1..1000 (Tair's ranges)")
	case o.conns < 1 || o.loadC < 1 || o.batch < 1:
		return vo, errors.New("--connections, --load-connections and --batch must be at least 1")
	case o.rate < 0 || o.warmup < 0:
		return vo, errors.New("--rate and --warmup must not be negative")
	}
	vo.Duration, vo.Warmup = o.duration, o.warmup
	return vo, nil
}

// setup validates the flags, starts the embedded server when asked and
// connects the engines; the caller closes them with done.
func (o *vectorOptions) setup(ctx context.Context, a *app) (vo vector.Options, done func(), err error) {
	done = func() {}
	if vo, err = o.options(); err != nil {
		return vo, done, err
	}
	ef, err := intList("ef-search", o.efSearch)
	if err != nil {
		return vo, done, err
	}
	nc, err := intList("num-candidates", o.numCandidates)
	if err != nil {
		return vo, done, err
	}
	for _, v := range ef {
		if v > 1000 {
			return vo, done, fmt.Errorf("--ef-search %d: Tair takes 1..1000", v)
		}
	}
	tt := vector.Targets{Index: o.index, Connections: max(o.conns, o.loadC),
		ES: endpoint.Target{Addr: o.es, Auth: o.esAuth, Timeout: o.target.timeout}}
	var closers []func()
	done = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	for _, n := range strings.Split(o.engines, ",") {
		n = strings.TrimSpace(n)
		if n == "tairvector" {
			var stop func()
			if tt.Tair, stop, err = o.target.resolve(a); err != nil {
				return vo, done, err
			}
			closers = append(closers, stop)
		}
		e, err := vector.NewEngine(ctx, n, tt)
		if err != nil {
			return vo, done, err
		}
		closers = append(closers, func() { _ = e.Close() })
		sweep := ef
		if e.Param() == "num_candidates" {
			sweep = nc
		}
		vo.Engines = append(vo.Engines, vector.Engine{Engine: e, Sweep: sweep})
	}
	return vo, done, nil
}

func runVector(ctx context.Context, o *vectorOptions, a *app) error {
	if err := harness.CheckPaths(o.jsonPath); err != nil {
		return err
	}
	if _, err := o.options(); err != nil {
		return err
	}
	set, truth, err := o.data.Load()
	if err != nil {
		return err
	}
	vo, done, err := o.setup(ctx, a)
	defer done()
	if err != nil {
		return err
	}
	vo.Set, vo.Truth = set, truth
	doc, err := vector.Run(ctx, vo, a.io())
	if doc != nil && o.jsonPath != "" {
		if werr := harness.WriteDocument(a.io(), o.jsonPath, doc); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return harness.RunFailed(err)
	}
	return nil
}

// vectorSuiteOptions are 'tairbench vector suite' flags.
type vectorSuiteOptions struct {
	vectorOptions
	cases   string
	jsonDir string
}

func newVectorSuiteCmd(a *app) *cobra.Command {
	o := &vectorSuiteOptions{}
	names := make([]string, len(vector.Cases))
	for i, c := range vector.Cases {
		names[i] = c.Name
	}
	cmd := &cobra.Command{
		Use:   "suite",
		Short: "The TairVector whitepaper's method: HNSW on four ann-benchmarks sets, FLAT on Random-s-100 and MNIST",
		Long: `Run each case of the TairVector whitepaper whose data is in --data-dir:
` + strings.Join(names, ", ") + `.
random-s-100 is made here (python3 scripts/vector_data.py random-s-100 DIR); the
others are ann-benchmarks' HDF5 files: download NAME.hdf5, then
python3 scripts/vector_data.py hdf5 NAME.hdf5 DIR. Absent cases are named, not run.
The whitepaper's result tables could not be retrieved: each case says so
rather than show a figure.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runVectorSuite(c.Context(), o, a) },
	}
	o.algorithm = "HNSW" // each case names its own
	o.register(cmd.Flags(), false)
	fs := cmd.Flags()
	fs.StringVar(&o.cases, "cases", "", "cases to run, comma-separated (default: all whose data is present)")
	fs.IntVar(&o.data.NQ, "nq", 0, "queries per case: the first NQ (0: all)")
	fs.StringVar(&o.jsonDir, "json-dir", "", "write each case's result as CASE.json in this folder")
	return cmd
}

func runVectorSuite(ctx context.Context, o *vectorSuiteOptions, a *app) error {
	so := vector.SuiteOptions{Data: o.data}
	if o.cases != "" {
		so.Cases = strings.Split(o.cases, ",")
		for _, c := range so.Cases {
			if !slices.ContainsFunc(vector.Cases, func(k vector.Case) bool { return k.Name == c }) {
				return fmt.Errorf("--cases: unknown case %q", c)
			}
		}
	}
	if o.jsonDir != "" {
		if err := os.MkdirAll(o.jsonDir, 0o755); err != nil {
			return fmt.Errorf("--json-dir: %w", err)
		}
	}
	vo, done, err := o.setup(ctx, a)
	defer done()
	if err != nil {
		return err
	}
	so.Options = vo
	res, err := vector.RunSuite(ctx, so, a.io())
	if o.jsonDir != "" && res != nil {
		for i, doc := range res.Docs {
			if doc == nil {
				continue
			}
			path := filepath.Join(o.jsonDir, res.Cases[i]+".json")
			if werr := harness.WriteDocument(a.io(), path, doc); werr != nil && err == nil {
				err = werr
			}
		}
	}
	if err != nil {
		return harness.RunFailed(err)
	}
	return nil
}

// register binds the flags 'vector' and 'vector suite' share; data adds
// the dataset's (the suite's cases name their own).
func (o *vectorOptions) register(fs *pflag.FlagSet, data bool) {
	o.target.register(fs)
	fs.StringVar(&o.engines, "engines", "tairvector", "engines to run, comma-separated: tairvector, elasticsearch")
	fs.StringVar(&o.es, "es", "", "Elasticsearch URL (http://host:port)")
	fs.StringVar(&o.esAuth, "es-auth", "", `Elasticsearch basic auth "user:password"`)
	fs.StringVar(&o.index, "index", "tairbench-vectors", "index name (dropped and created)")
	fs.StringVar(&o.data.Dir, "data-dir", ".cache/vector", "prepared datasets (NAME/train.npy, NAME/test.npy)")
	fs.StringVar(&o.data.TruthDir, "truth-dir", ".cache/vector/truth", "ground truth cache (empty: compute every time)")
	fs.IntVarP(&o.data.K, "k", "k", 10, "neighbours per query (recall@k)")
	fs.IntVar(&o.m, "m", 16, "HNSW: links per node (M)")
	fs.IntVar(&o.efC, "ef-construct", 100, "HNSW: build breadth (ef_construct / ef_construction)")
	fs.StringVar(&o.efSearch, "ef-search", "10,20,40,80,160", "TairVector HNSW: ef_search values to sweep")
	fs.StringVar(&o.numCandidates, "num-candidates", "10,20,40,80,160", "Elasticsearch HNSW: num_candidates values to sweep")
	fs.IntVarP(&o.conns, "connections", "c", 4, "search connections (the whitepaper's parallelism)")
	fs.IntVar(&o.loadC, "load-connections", 8, "insert connections (the whitepaper's write threads)")
	fs.IntVar(&o.batch, "batch", 100, "vectors per insert request (pipelined TVS.HSET, one _bulk)")
	fs.DurationVarP(&o.duration, "duration", "d", 5*time.Second, "closed-loop time per sweep point")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "queries sent before each point is measured (JIT, caches)")
	fs.Float64Var(&o.rate, "rate", 0, "also run each point open-loop at this many queries/s")
	if data {
		fs.StringVar(&o.data.Data, "data", "clustered", "clustered, a prepared set in --data-dir (random-s-100, wiki-minilm, …), or a .fvecs/.bvecs/.npy file")
		fs.StringVar(&o.data.Queries, "queries", "", "query vectors file for a --data file")
		fs.IntVar(&o.data.N, "n", 100000, "clustered: base vectors")
		fs.IntVar(&o.data.NQ, "nq", 1000, "queries (clustered: generated; others: the first NQ, 0 for all)")
		fs.IntVar(&o.data.Dims, "dims", 128, "clustered: dimensions")
		fs.IntVar(&o.data.Centres, "centres", 1000, "clustered: cluster centres")
		fs.StringVar(&o.data.Metric, "metric", "L2", "distance: L2, IP or COSINE")
		fs.Uint64Var(&o.data.Seed, "seed", 1, "clustered: generator seed")
		fs.StringVar(&o.algorithm, "algorithm", "HNSW", "HNSW or FLAT")
	}
}
