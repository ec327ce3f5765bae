package cli

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/engines"
	"github.com/tairbench/tairbench/internal/frontend/search"
)

// searchFlags are the flags 'search' and 'search compare' share: how
// engines are reached, what a run writes and tairbench's own options.
type searchFlags struct {
	common.Options
	search.Reach
	target      targetFlags // TairSearch's login, TLS and database
	bulk        int
	allowErrors bool
	quiet       bool
}

func (f *searchFlags) register(fs *pflag.FlagSet) {
	f.Options = common.Defaults()
	f.target.Port = 6379
	fs.StringVar(&f.target.Auth, "auth", "", `TairSearch password or "user:password"`)
	f.target.registerLogin(fs)
	fs.StringVar(&f.Index, "index", "wiki", "index name")
	fs.StringVar(&f.Refresh, "refresh-interval", "1s", "Elasticsearch refresh interval")
	fs.BoolVar(&f.Realtime, "realtime", false, "Elasticsearch: refresh on every write (the whitepaper's real-time case)")
	fs.IntVar(&f.bulk, "bulk", 1, "documents per write request (TFT.MADDDOC / _bulk); 1 sends one document per request")
	fs.BoolVar(&f.allowErrors, "allow-errors", false, "exit 0 even when most requests failed")
	fs.BoolVar(&f.quiet, "quiet", false, "no per-second progress lines")
	f.Options.Register(fs, "")
}

// reach is how the engines are reached, the flags parsed.
func (f *searchFlags) reach() search.Reach {
	r := f.Reach
	r.Server = f.target.Options
	return r
}

// searchOptions are 'tairbench search' flags (TairSearchBench's letters).
type searchOptions struct {
	searchFlags
	typ     string
	engine  string
	file    string
	n       uint64
	query   string
	addr    string
	noCache bool
	keep    bool
	gate    gateFlags
}

func newSearchCmd(a *app) *cobra.Command {
	o := &searchOptions{}
	cmd := &cobra.Command{
		Use:   "search",
		Short: "TairSearch and Elasticsearch benchmarks on Wikipedia abstracts (TairSearchBench's flags)",
		Long: `Write Wikipedia abstracts into one engine, or run one query against it, with the
flags of the whitepaper's TairSearchBench:

  tairbench search -t write -e tairsearch -f enwiki-abstract.xml -c 30 -n 5000000 -a 127.0.0.1:6379
  tairbench search -t search -e elasticsearch -c 30 -n 100000 -q '{"query":{"term":{"abstract":"hello"}}}' -a http://127.0.0.1:9200

'tairbench search compare' runs the whitepaper's whole comparison on both engines.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := searchTraps(a.Err, c.Flags(), o.addr, o.Connections); err != nil {
				return err
			}
			return runSearch(c.Context(), o, a)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.typ, "type", "t", "", "write or search")
	fs.StringVarP(&o.engine, "engine", "e", "tairsearch", "the engine: "+engines.SearchNames())
	fs.StringVarP(&o.file, "file", "f", "", "abstract dump to ingest (plain, .gz, .bz2 or .zst)")
	fs.IntVarP(&o.Connections, "concurrency", "c", 30, "connections")
	fs.Uint64VarP(&o.n, "n", "n", 10000, "documents to write, or queries to run")
	fs.StringVarP(&o.query, "query", "q", "", "search query (JSON, or @FILE holding it); a mix of queries is a track: 'tairbench search run'")
	fs.StringVarP(&o.addr, "addr", "a", "", "address: host:port for TairSearch, http://host:port for Elasticsearch")
	o.gate.register(fs)
	fs.BoolVar(&o.noCache, "no-cache", false, "search: disable the engine's result cache (use_cache / request_cache)")
	fs.BoolVar(&o.keep, "keep-index", false, "write: keep an existing index (default: drop it and create it with the whitepaper's mapping)")
	o.register(fs)
	cmd.AddCommand(newCompareCmd(a))
	cmd.AddCommand(newTrackRunCmd(a))
	return cmd
}

func runSearch(ctx context.Context, o *searchOptions, a *app) error {
	w := search.Words{Options: o.Options, Reach: o.reach(), Addr: o.addr, Query: o.query, Quiet: o.quiet, Gate: o.gate.Gate,
		Bench: search.Options{Type: o.typ, Engine: o.engine, File: o.file, N: o.n, NoCache: o.noCache,
			Keep: o.keep, Bulk: o.bulk, AllowErrors: o.allowErrors}}
	return search.Main(ctx, w, a.io())
}

// compareOptions are 'tairbench search compare' flags.
type compareOptions struct {
	searchFlags
	file     string
	docs     int64
	tairAddr string
	esAddr   string
	esAuth   string
	queries  int64
	noCacheN int64
	term     string
	agg      string
	skip     bool
	known    int
	ths      []string
}

func newCompareCmd(a *app) *cobra.Command {
	o := &compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "The whitepaper's comparison: write, term query, aggregation with caches on and off, on TairSearch and Elasticsearch",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runCompare(c.Context(), o, a) },
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.file, "file", "f", "", "abstract dump (plain, .gz, .bz2 or .zst)")
	fs.Int64VarP(&o.docs, "n", "n", 0, "documents to write (0: the whole file)")
	fs.IntVarP(&o.Connections, "concurrency", "c", 30, "connections, the same for both engines")
	fs.StringVar(&o.tairAddr, "tair", "", "TairSearch address host:port")
	fs.StringVar(&o.esAddr, "es", "", "Elasticsearch URL")
	fs.StringVar(&o.esAuth, "es-auth", "", `Elasticsearch basic auth "user:password"`)
	fs.Int64Var(&o.queries, "queries", 100000, "queries per run")
	fs.Int64Var(&o.noCacheN, "no-cache-queries", 0, "queries for the cache-off aggregation runs (default: --queries/10, as the whitepaper)")
	fs.StringVar(&o.term, "term-query", search.TermQuery, "the term query")
	fs.StringVar(&o.agg, "agg-query", search.AggQuery, "the aggregation query")
	fs.BoolVar(&o.skip, "skip-parity", false, "time the queries even if the engines disagree on hits")
	fs.IntVar(&o.known, "known-items", 100, "documents whose titles, searched in the abstracts, judge each engine's ranking (recall@10, MRR@10, NDCG@10; 0: none)")
	fs.StringArrayVar(&o.ths, "threshold", nil, "a bar on the known items' relevance, [ENGINE:]METRIC@K>VALUE, e.g. ndcg@10>0.5; exit 99 when missed (repeatable)")
	o.register(fs)
	return cmd
}

func runCompare(ctx context.Context, o *compareOptions, a *app) error {
	w := search.CompareWords{Options: o.Options, Reach: o.reach(), TairAddr: o.tairAddr,
		Compare: search.RunCompareOptions{ES: o.esAddr, ESAuth: o.esAuth, AllowErrors: o.allowErrors, Thresholds: o.ths,
			CompareOptions: search.CompareOptions{File: o.file, Docs: o.docs, Concurrency: o.Connections, Bulk: o.bulk,
				Queries: o.queries, NoCacheQueries: o.noCacheN, TermQuery: o.term, AggQuery: o.agg, SkipParity: o.skip, KnownItems: o.known}}}
	return search.CompareMain(ctx, w, a.io())
}
