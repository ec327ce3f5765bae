package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/engines"
	"github.com/tairbench/tairbench/internal/frontend/vector"
)

// vectorOptions are 'tairbench vector' flags.
type vectorOptions struct {
	vector.Words
	target targetFlags
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
	cmd.AddCommand(newVectorSuiteCmd(a))
	return cmd
}

func runVector(ctx context.Context, o *vectorOptions, a *app) error {
	w := o.Words
	w.Server = o.target.Options
	return vector.Main(ctx, w, a.io())
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
	o.Algorithm = "HNSW" // each case names its own
	o.register(cmd.Flags(), false)
	fs := cmd.Flags()
	fs.StringVar(&o.cases, "cases", "", "cases to run, comma-separated (default: all whose data is present)")
	fs.IntVar(&o.Data.NQ, "nq", 0, "queries per case: the first NQ (0: all)")
	fs.StringVar(&o.jsonDir, "json-dir", "", "write each case's result as CASE.json in this folder")
	return cmd
}

func runVectorSuite(ctx context.Context, o *vectorSuiteOptions, a *app) error {
	w := vector.SuiteWords{Words: o.Words, Cases: o.cases, JSONDir: o.jsonDir}
	w.Server = o.target.Options
	return vector.SuiteMain(ctx, w, a.io())
}

// register binds the flags 'vector' and 'vector suite' share; data adds
// the dataset's (the suite's cases name their own).
func (o *vectorOptions) register(fs *pflag.FlagSet, data bool) {
	o.target.registerAddr(fs)
	// The generated data and the query order are the same run to run
	// unless --seed says otherwise.
	o.Options = common.Defaults()
	o.Seed = 1
	o.Options.Register(fs, "")
	fs.StringVar(&o.Engines, "engines", "", "engines to run, comma-separated: "+engines.VectorNames()+" (default: tairvector, and elasticsearch too with --es)")
	fs.StringVar(&o.ES, "es", "", "Elasticsearch URL (http://host:port)")
	fs.StringVar(&o.ESAuth, "es-auth", "", `Elasticsearch basic auth "user:password"`)
	fs.StringVar(&o.Index, "index", "tairbench-vectors", "index name (dropped and created)")
	fs.StringVar(&o.Data.Dir, "data-dir", ".cache/vector", "prepared datasets (NAME/train.npy, NAME/test.npy)")
	fs.StringVar(&o.Data.TruthDir, "truth-dir", ".cache/vector/truth", "ground truth cache (empty: compute every time)")
	fs.IntVarP(&o.Data.K, "k", "k", 10, "neighbours per query (recall@k)")
	fs.IntVar(&o.M, "m", 16, "HNSW: links per node (M)")
	fs.IntVar(&o.EfConstruct, "ef-construct", 100, "HNSW: build breadth (ef_construct / ef_construction)")
	fs.StringVar(&o.EfSearch, "ef-search", "10,20,40,80,160", "TairVector HNSW: ef_search values to sweep")
	fs.StringVar(&o.NumCandidates, "num-candidates", "10,20,40,80,160", "Elasticsearch HNSW: num_candidates values to sweep")
	fs.IntVarP(&o.Connections, "connections", "c", 4, "search connections (the whitepaper's parallelism)")
	fs.IntVar(&o.LoadConnections, "load-connections", 8, "insert connections (the whitepaper's write threads)")
	fs.IntVar(&o.Batch, "batch", 100, "vectors per insert request (pipelined TVS.HSET, one _bulk)")
	o.Duration, o.Warmup = 5*time.Second, time.Second
	fs.VarP(seconds(&o.Duration), "duration", "d", "closed-loop time per sweep point (seconds, or a duration: 500ms)")
	fs.Var(seconds(&o.Warmup), "warmup", "queries sent before each point is measured (JIT, caches)")
	fs.Float64Var(&o.Rate, "rate", 0, "also run each point open-loop at this many queries/s")
	if data {
		fs.StringVar(&o.Data.Data, "data", "clustered", "clustered, a prepared set in --data-dir (random-s-100, wiki-minilm, …), or a .fvecs/.bvecs/.npy file")
		fs.StringVar(&o.Data.Queries, "queries", "", "query vectors file for a --data file")
		fs.IntVar(&o.Data.N, "n", 100000, "clustered: base vectors")
		fs.IntVar(&o.Data.NQ, "nq", 1000, "queries (clustered: generated; others: the first NQ, 0 for all)")
		fs.IntVar(&o.Data.Dims, "dims", 128, "clustered: dimensions")
		fs.IntVar(&o.Data.Centres, "centres", 1000, "clustered: cluster centres")
		fs.StringVar(&o.Data.Metric, "metric", "L2", "distance: L2, IP or COSINE")
		fs.StringVar(&o.Algorithm, "algorithm", "HNSW", "HNSW or FLAT")
		fs.BoolVar(&o.Stream, "stream", false, "run the streaming case in place of the sweeps: insert while searching, recall and latency over time, and the insert-to-searchable delay")
		fs.Float64Var(&o.StreamInitial, "stream-initial", 0.5, "stream: the share of the vectors loaded before the stream")
		fs.Float64Var(&o.StreamInsertRate, "stream-insert-rate", 1000, "stream: vectors inserted per second")
		fs.Float64Var(&o.StreamSearchRate, "stream-search-rate", 200, "stream: queries per second")
		fs.StringVar(&o.FilterSelectivity, "filter-selectivity", "", "also sweep with every search filtered to these shares of the vectors, e.g. 0.01,0.1,0.5 (each vector gets an attribute)")
	}
}
