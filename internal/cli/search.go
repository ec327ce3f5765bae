package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/search"
	"github.com/tairbench/tairbench/internal/threshold"
)

// searchFlags are the flags 'search' and 'search compare' share: how
// engines are reached and what a run writes.
type searchFlags struct {
	target      targetFlags // TairSearch's login, TLS, database and --embedded
	index       string
	refresh     string
	realtime    bool
	bulk        int
	allowErrors bool
	concurrency int
	seed        uint64
	jsonPath    string
	quiet       bool
	noServer    bool
	metrics     metricsFlags
}

func (f *searchFlags) register(fs *pflag.FlagSet) {
	f.target.port = 6379
	fs.StringVar(&f.target.auth, "auth", "", `TairSearch password or "user:password"`)
	f.target.registerConn(fs)
	fs.StringVar(&f.index, "index", "wiki", "index name")
	fs.StringVar(&f.refresh, "refresh-interval", "1s", "Elasticsearch refresh interval")
	fs.BoolVar(&f.realtime, "realtime", false, "Elasticsearch: refresh on every write (the whitepaper's real-time case)")
	fs.IntVar(&f.bulk, "bulk", 1, "documents per write request (TFT.MADDDOC / _bulk); 1 sends one document per request")
	fs.BoolVar(&f.allowErrors, "allow-errors", false, "exit 0 even when most requests failed")
	fs.Uint64Var(&f.seed, "seed", 0, "base random seed (0: a new one)")
	fs.StringVar(&f.jsonPath, "json", "", "write the result as JSON to this file (- for stdout)")
	fs.BoolVar(&f.quiet, "quiet", false, "no per-second progress lines")
	fs.BoolVar(&f.noServer, "no-server-stats", false, "do not sample the engine's own statistics once a second")
	f.metrics.register(fs)
}

// tairTarget resolves TairSearch's target at addr, or the embedded server.
func (f *searchFlags) tairTarget(a *app, addr string) (endpoint.Target, func(), error) {
	if addr != "" {
		f.target.host = addr
	}
	if !f.target.embedded && addr == "" {
		return endpoint.Target{}, func() {}, errors.New("TairSearch's address is required, or --embedded")
	}
	return f.target.resolve(a)
}

// engineOptions are the engine settings the flags give.
func (f *searchFlags) engineOptions(t endpoint.Target) fts.Options {
	return fts.Options{Target: t, Index: f.index, RefreshInterval: f.refresh, Realtime: f.realtime, Connections: f.concurrency}
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
	dryRun  bool
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
			if err := searchTraps(a.Err, c.Flags(), o.addr, o.concurrency); err != nil {
				return err
			}
			return runSearch(c.Context(), o, a)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.typ, "type", "t", "", "write or search")
	fs.StringVarP(&o.engine, "engine", "e", "tairsearch", "tairsearch or elasticsearch")
	fs.StringVarP(&o.file, "file", "f", "", "abstract dump to ingest (plain, .gz or .bz2)")
	fs.IntVarP(&o.concurrency, "concurrency", "c", 30, "connections")
	fs.Uint64VarP(&o.n, "n", "n", 10000, "documents to write, or queries to run")
	fs.StringVarP(&o.query, "query", "q", "", "search query (JSON, or @FILE holding it); a mix of queries is a track: 'tairbench search run'")
	fs.StringVarP(&o.addr, "addr", "a", "", "address: host:port for TairSearch, http://host:port for Elasticsearch")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the write or queries that would run and send nothing")
	o.gate.register(fs)
	fs.BoolVar(&o.noCache, "no-cache", false, "search: disable the engine's result cache (use_cache / request_cache)")
	fs.BoolVar(&o.keep, "keep-index", false, "write: keep an existing index (default: drop it and create it with the whitepaper's mapping)")
	o.register(fs)
	cmd.AddCommand(newCompareCmd(a))
	cmd.AddCommand(newTrackRunCmd(a))
	return cmd
}

func runSearch(ctx context.Context, o *searchOptions, a *app) error {
	query, err := oneQuery(o.query)
	if err != nil {
		return err
	}
	so := search.Options{Type: o.typ, Engine: o.engine, File: o.file, N: o.n, Query: query, NoCache: o.noCache,
		Keep: o.keep, Bulk: o.bulk, Seed: o.seed, NoServerStats: o.noServer, AllowErrors: o.allowErrors,
		Out: harness.Outputs{JSON: o.jsonPath, Quiet: o.quiet, JUnit: o.gate.junit}}
	so.Connections = o.concurrency
	if so.Out.Thresholds, err = threshold.ParseAll(o.gate.thresholds); err != nil {
		return err
	}
	if err := harness.CheckPaths(o.gate.junit); err != nil {
		return err
	}
	if err := so.Validate(); err != nil {
		return err
	}
	if o.dryRun {
		so.Index = o.index
		target := harness.Dry(o.addr, o.target.embedded)
		if o.engine == "elasticsearch" && o.addr == "" {
			target = "Elasticsearch at -a (required)"
		}
		return search.DryRun(so, target, a.io())
	}
	var tg endpoint.Target
	stop := func() {}
	if o.target.embedded || o.engine == "tairsearch" {
		var err error
		if tg, stop, err = o.tairTarget(a, o.addr); err != nil {
			return err
		}
		so.Engine = "tairsearch"
	} else {
		if o.addr == "" {
			return errors.New("-a (the engine's address) is required")
		}
		tg = endpoint.Target{Addr: o.addr, Auth: o.target.auth, Timeout: o.target.timeout}
	}
	defer stop()
	so.Options = o.engineOptions(tg)
	return o.metrics.around(ctx, a, func(ctx context.Context) error {
		_, err := search.Run(ctx, so, a.io())
		return err
	})
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
	fs.StringVarP(&o.file, "file", "f", "", "abstract dump (plain, .gz or .bz2)")
	fs.Int64VarP(&o.docs, "n", "n", 0, "documents to write (0: the whole file)")
	fs.IntVarP(&o.concurrency, "concurrency", "c", 30, "connections, the same for both engines")
	fs.StringVar(&o.tairAddr, "tair", "", "TairSearch address host:port")
	fs.StringVar(&o.esAddr, "es", "", "Elasticsearch URL")
	fs.StringVar(&o.esAuth, "es-auth", "", `Elasticsearch basic auth "user:password"`)
	fs.Int64Var(&o.queries, "queries", 100000, "queries per run")
	fs.Int64Var(&o.noCacheN, "no-cache-queries", 0, "queries for the cache-off aggregation runs (default: --queries/10, as the whitepaper)")
	fs.StringVar(&o.term, "term-query", search.TermQuery, "the term query")
	fs.StringVar(&o.agg, "agg-query", search.AggQuery, "the aggregation query")
	fs.BoolVar(&o.skip, "skip-parity", false, "time the queries even if the engines disagree on hits")
	o.register(fs)
	return cmd
}

func runCompare(ctx context.Context, o *compareOptions, a *app) error {
	co := search.RunCompareOptions{ES: o.esAddr, ESAuth: o.esAuth, JSON: o.jsonPath, AllowErrors: o.allowErrors,
		Engine: o.engineOptions(endpoint.Target{}),
		CompareOptions: search.CompareOptions{File: o.file, Docs: o.docs, Concurrency: o.concurrency, Bulk: o.bulk,
			Queries: o.queries, NoCacheQueries: o.noCacheN, TermQuery: o.term, AggQuery: o.agg, SkipParity: o.skip, Seed: o.seed}}
	if o.file == "" || o.esAddr == "" {
		_, err := search.RunCompare(ctx, co, a.io()) // refuses, naming the flag
		return err
	}
	if _, err := os.Stat(o.file); err != nil {
		return err
	}
	tg, stop, err := o.tairTarget(a, o.tairAddr)
	if err != nil {
		return fmt.Errorf("%w (--tair ADDR)", err)
	}
	defer stop()
	co.Tair = tg
	err = o.metrics.around(ctx, a, func(ctx context.Context) error {
		_, err := search.RunCompare(ctx, co, a.io())
		return err
	})
	return err
}

// oneQuery reads -q: one JSON query, given inline or as @FILE (a weighted
// mix of queries is a track; -q given twice is refused as every
// single-value flag is).
func oneQuery(q string) (string, error) {
	path, ok := strings.CutPrefix(q, "@")
	if !ok {
		return q, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("-q @%s: %w", path, err)
	}
	q = strings.TrimSpace(string(b))
	if !json.Valid([]byte(q)) {
		return "", fmt.Errorf("-q @%s: the file is not one JSON query", path)
	}
	return q, nil
}
