package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/searchbench"
	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/wiki"
)

func init() {
	extraCommands = append(extraCommands, newSearchCmd, newWikiCmd)
}

// searchEngineFlags configure how engines are reached.
type searchEngineFlags struct {
	index, auth     string
	refresh         string
	realtime        bool
	embedded        bool
	bulk            int
	allowErrors     bool
	concurrency     int
	seed            uint64
	jsonPath        string
	quiet           bool
	stopEmbedded    func()
	embeddedAddress string
}

func (f *searchEngineFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.index, "index", "wiki", "index name")
	fs.StringVar(&f.auth, "auth", "", `password or "user:password"`)
	fs.StringVar(&f.refresh, "refresh-interval", "1s", "Elasticsearch refresh interval")
	fs.BoolVar(&f.realtime, "realtime", false, "Elasticsearch: refresh on every write (the whitepaper's real-time case)")
	fs.BoolVar(&f.embedded, "embedded", false, "TairSearch: start the embedded server in this process")
	fs.IntVar(&f.bulk, "bulk", 1, "documents per write request (TFT.MADDDOC / _bulk); 1 sends one document per request")
	fs.BoolVar(&f.allowErrors, "allow-errors", false, "exit 0 even when most requests failed")
	fs.Uint64Var(&f.seed, "seed", 0, "base random seed (0: a new one)")
	fs.StringVar(&f.jsonPath, "json", "", "write the result as JSON to this file")
	fs.BoolVar(&f.quiet, "quiet", false, "no per-second progress lines")
}

// startEmbedded starts the in-process server when asked and returns its address.
func (f *searchEngineFlags) startEmbedded(s Streams) (string, error) {
	f.stopEmbedded = func() {}
	if !f.embedded {
		return "", nil
	}
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		return "", err
	}
	f.stopEmbedded = func() { _ = srv.Close() }
	fmt.Fprintf(s.Err, "embedded server listening on %s\n", srv.Addr())
	return srv.Addr(), nil
}

func (f *searchEngineFlags) engine(name, addr string) (searchbench.Engine, error) {
	return searchbench.New(name, searchbench.Options{Addr: addr, Index: f.index, Auth: f.auth, RefreshInterval: f.refresh,
		Realtime: f.realtime, Connections: f.concurrency})
}

func newSearchCmd(s Streams) *cobra.Command {
	var (
		ef      searchEngineFlags
		typ     string
		eng     string
		file    string
		n       uint64
		query   string
		addr    string
		noCache bool
	)
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
			if ef.concurrency < 1 {
				return &ExitError{Code: ExitError1, Err: errors.New("-c must be at least 1")}
			}
			local, err := ef.startEmbedded(s)
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			defer ef.stopEmbedded()
			if local != "" {
				addr, eng = local, "tairsearch"
			}
			if addr == "" {
				return &ExitError{Code: ExitError1, Err: errors.New("-a (the engine's address) is required, or --embedded")}
			}
			e, err := ef.engine(eng, addr)
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			defer e.Close()
			seed := ef.seed
			if seed == 0 {
				seed = engine.NewSeed()
			}
			var progress func(searchbench.Progress)
			if !ef.quiet {
				progress = progressPrinter(s)
			}
			out := &outputFlags{json: ef.jsonPath}
			switch typ {
			case "write":
				if file == "" {
					return &ExitError{Code: ExitError1, Err: errors.New("-t write needs -f FILE (tairbench wiki gen makes one)")}
				}
				if local != "" {
					if err := e.Reset(c.Context()); err != nil {
						return &ExitError{Code: ExitError1, Err: err}
					}
				}
				run, h, err := searchbench.RunWrite(c.Context(), e, searchbench.WriteOptions{File: file, Docs: int64(n),
					Concurrency: ef.concurrency, Bulk: ef.bulk, Seed: seed, Progress: progress, InProcess: local != ""})
				if err != nil && run == nil {
					return &ExitError{Code: ExitError1, Err: err}
				}
				if mem, merr := e.Memory(c.Context()); merr == nil {
					fmt.Fprintf(s.Out, "memory       %s (%s)\n", mib(mem.Used), mem.Detail)
				}
				if ferr := finish(run, h, out, s, ef.allowErrors); ferr != nil {
					return ferr
				}
				if err != nil {
					return &ExitError{Code: ExitError1, Err: err}
				}
				return nil
			case "search":
				if query == "" {
					return &ExitError{Code: ExitError1, Err: errors.New("-t search needs -q QUERY")}
				}
				if !strings.HasPrefix(strings.TrimSpace(query), "{") {
					return &ExitError{Code: ExitError1, Err: errors.New("-q must be a JSON query")}
				}
				run, h, err := searchbench.RunSearch(c.Context(), e, searchbench.SearchOptions{Query: query, Queries: int64(n),
					Concurrency: ef.concurrency, Cache: !noCache, Seed: seed, Progress: progress, InProcess: local != ""})
				if err != nil {
					return &ExitError{Code: ExitError1, Err: err}
				}
				return finish(run, h, out, s, ef.allowErrors)
			}
			return &ExitError{Code: ExitError1, Err: fmt.Errorf("-t must be write or search, got %q", typ)}
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&typ, "type", "t", "", "write or search")
	fs.StringVarP(&eng, "engine", "e", "tairsearch", "tairsearch or elasticsearch")
	fs.StringVarP(&file, "file", "f", "", "abstract dump to ingest (plain, .gz or .bz2)")
	fs.IntVarP(&ef.concurrency, "concurrency", "c", 30, "connections")
	fs.Uint64VarP(&n, "n", "n", 10000, "documents to write, or queries to run")
	fs.StringVarP(&query, "query", "q", "", "search query (JSON)")
	fs.StringVarP(&addr, "addr", "a", "", "address: host:port for TairSearch, http://host:port for Elasticsearch")
	fs.BoolVar(&noCache, "no-cache", false, "search: disable the engine's result cache (use_cache / request_cache)")
	ef.register(cmd)
	cmd.AddCommand(newCompareCmd(s))
	return cmd
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func newCompareCmd(s Streams) *cobra.Command {
	var (
		ef       searchEngineFlags
		file     string
		docs     int64
		tairAddr string
		esAddr   string
		queries  int64
		noCacheN int64
		term     string
		agg      string
		skip     bool
	)
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "The whitepaper's comparison: write, term query, aggregation with caches on and off, on TairSearch and Elasticsearch",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if file == "" {
				return &ExitError{Code: ExitError1, Err: errors.New("-f FILE is required (tairbench wiki gen --docs N --out FILE makes one)")}
			}
			if _, err := os.Stat(file); err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			local, err := ef.startEmbedded(s)
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			defer ef.stopEmbedded()
			if local != "" {
				tairAddr = local
			}
			if tairAddr == "" || esAddr == "" {
				return &ExitError{Code: ExitError1, Err: errors.New("need --tair ADDR (or --embedded) and --es URL")}
			}
			ts, err := ef.engine("tairsearch", tairAddr)
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			es, err := ef.engine("elasticsearch", esAddr)
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			seed := ef.seed
			if seed == 0 {
				seed = engine.NewSeed()
			}
			cmp, err := searchbench.Compare(c.Context(), searchbench.CompareOptions{
				Engines: []searchbench.Engine{ts, es}, File: file, Docs: docs, Concurrency: ef.concurrency, Bulk: ef.bulk,
				Queries: queries, NoCacheQueries: noCacheN, TermQuery: term, AggQuery: agg, SkipParity: skip,
				InProcess: map[string]bool{"tairsearch": local != ""}, Seed: seed, Log: s.Err,
			})
			label := fmt.Sprintf("TairSearch (%s) vs Elasticsearch (%s), %s, %d connections", tairAddr, esAddr, file, ef.concurrency)
			if local != "" {
				label += "\nTairSearch here is tairbench's embedded server, not Tair; the whitepaper columns are the published figures."
			}
			if cmp != nil && len(cmp.Engines) > 0 {
				_ = searchbench.WriteTables(s.Out, cmp, label)
				if ef.jsonPath != "" {
					if werr := writeJSON(ef.jsonPath, cmp); werr != nil {
						return &ExitError{Code: ExitError1, Err: werr}
					}
					fmt.Fprintf(s.Err, "result written to %s\n", ef.jsonPath)
				}
			}
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			for _, er := range cmp.Engines {
				if er.Write != nil && report.Failed(er.Write) && !ef.allowErrors {
					return &ExitError{Code: ExitRunFailed, Err: fmt.Errorf("%s: most writes failed", er.Engine)}
				}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&file, "file", "f", "", "abstract dump (plain, .gz or .bz2)")
	fs.Int64VarP(&docs, "n", "n", 0, "documents to write (0: the whole file)")
	fs.IntVarP(&ef.concurrency, "concurrency", "c", 30, "connections, the same for both engines")
	fs.StringVar(&tairAddr, "tair", "", "TairSearch address host:port")
	fs.StringVar(&esAddr, "es", "", "Elasticsearch URL")
	fs.Int64Var(&queries, "queries", 100000, "queries per run")
	fs.Int64Var(&noCacheN, "no-cache-queries", 0, "queries for the cache-off aggregation runs (default: --queries/10, as the whitepaper)")
	fs.StringVar(&term, "term-query", searchbench.TermQuery, "the term query")
	fs.StringVar(&agg, "agg-query", searchbench.AggQuery, "the aggregation query")
	fs.BoolVar(&skip, "skip-parity", false, "time the queries even if the engines disagree on hits")
	ef.register(cmd)
	return cmd
}

func newWikiCmd(s Streams) *cobra.Command {
	cmd := &cobra.Command{Use: "wiki", Short: "Wikipedia abstract dumps: generate and inspect"}
	var docs int64
	var out string
	var seed uint64
	gen := &cobra.Command{
		Use:   "gen",
		Short: "Generate an abstract dump of any size from the real samples' vocabulary, titles and lengths",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if docs < 1 || out == "" {
				return &ExitError{Code: ExitError1, Err: errors.New("need --docs N (at least 1) and --out FILE")}
			}
			f, err := os.Create(out)
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			if err := wiki.Generate(f, wiki.GenOptions{Docs: docs, Seed: seed}); err != nil {
				f.Close()
				return &ExitError{Code: ExitError1, Err: err}
			}
			if err := f.Close(); err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			st, _ := os.Stat(out)
			fmt.Fprintf(s.Err, "wrote %d documents (%s) to %s\n", docs, mib(st.Size()), out)
			return nil
		},
	}
	gen.Flags().Int64Var(&docs, "docs", 100000, "number of documents (5000000 for the whitepaper's scale)")
	gen.Flags().StringVar(&out, "out", "", "output file")
	gen.Flags().Uint64Var(&seed, "seed", 1, "seed (the same seed gives the same bytes)")
	count := &cobra.Command{
		Use:   "count FILE",
		Short: "Read a dump and report its documents (checks that it parses)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			r, closer, err := wiki.Open(args[0])
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			defer closer.Close()
			var d wiki.Doc
			n := int64(0)
			for {
				err := r.Next(&d)
				if err != nil {
					if errors.Is(err, io.EOF) {
						break
					}
					return &ExitError{Code: ExitError1, Err: fmt.Errorf("%s: %w", args[0], err)}
				}
				n++
			}
			fmt.Fprintf(s.Out, "%d documents\n", n)
			return nil
		},
	}
	cmd.AddCommand(gen, count)
	return cmd
}
