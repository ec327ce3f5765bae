package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/frontend/engines"
	"github.com/tairbench/tairbench/internal/frontend/target"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/internal/threshold"
	"github.com/tairbench/tairbench/internal/wiki"
	"github.com/tairbench/tairbench/pkg/result"
)

// Whitepaper queries (TairSearch vs Elasticsearch 8, 5 million abstracts).
const (
	TermQuery = `{"query":{"term":{"abstract":"hello"}}}`
	AggQuery  = `{"size":0,"query":{"term":{"abstract":"hello"}},"aggs":{"a1":{"terms":{"field":"id","order":{"_key":"asc"}}}}}`
)

// GiveUp is how long a search run goes on with no usable connection to
// the engine before it stops (the cause is in its errors); GiveUpSilent
// is how long it goes on while every connection's requests time out (a
// paused or overloaded engine), so that a pause is measured, not ended.
const (
	GiveUp       = 3 * time.Second
	GiveUpSilent = 30 * time.Second
)

// WriteOptions configure an ingest run.
type WriteOptions struct {
	File        string
	Docs        int64 // 0: the whole file
	Concurrency int
	Bulk        int
	Seed        uint64
	Progress    func(p Progress)
	// Version is the tool version recorded in the result.
	Version string
	// NoServerStats turns off the engine's own timeline.
	NoServerStats bool
}

// Progress is the per-second progress callback's argument (see stats.Progress).
type Progress = stats.Progress

// RunWrite ingests documents from a file into e and returns the result.
func RunWrite(ctx context.Context, e fts.Engine, o WriteOptions) (*result.Run, error) {
	r, closer, err := wiki.Open(o.File)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	src := fts.NewDocSource(r, o.Docs)
	bulk := max(o.Bulk, 1)
	// The document source alone bounds the run (o.Docs, or the end of the
	// file): a request budget in the engine could run out while workers still
	// hold documents of their last chunk.
	cfg := engine.Config{Workers: max(o.Concurrency, 1), OpsPerRequest: bulk, Seed: o.Seed, Progress: o.Progress,
		Duration: 365 * 24 * time.Hour, GiveUp: GiveUp, GiveUpSilent: GiveUpSilent}
	rc := runConfig(e, modeOf(bulk))
	rc.Search.File, rc.Search.Docs, rc.Search.Bulk = o.File, o.Docs, bulk
	spec := run.Spec{Name: e.Name() + " write", Command: fmt.Sprintf("write %s", o.File), Version: o.Version,
		Config: rc, Engine: cfg, Factory: &fts.WriteFactory{Engine: e, Source: src, Bulk: bulk}, Identify: identify(rc, e)}
	if !o.NoServerStats {
		spec.Sampler = e.Sampler()
	}
	run, err := run.Run(ctx, spec)
	if err != nil {
		return nil, err
	}
	if err := src.Err(); err != nil {
		return run, fmt.Errorf("input %s: %w", o.File, err)
	}
	return run, nil
}

// runConfig describes a run against e: its RESP target, or its URL.
func runConfig(e fts.Engine, mode string) result.RunConfig {
	rc := result.RunConfig{Mode: mode, Search: &result.SearchRunConfig{Engine: e.Name()}}
	if t := e.Target(); strings.Contains(t.Addr, "://") {
		rc.Search.URL, rc.Target = t.Addr, target.ByURL(t)
	} else {
		rc.Target = t.Result()
	}
	return rc
}

// identify asks e's server who it is: through its RESP target, or the
// engine itself when it is reached by URL.
func identify(rc result.RunConfig, e fts.Engine) func(context.Context) (*result.ServerIdentity, error) {
	if rc.Search.URL != "" {
		return target.IdentifyByURL(e)
	}
	t := e.Target()
	return func(ctx context.Context) (*result.ServerIdentity, error) { return target.Identify(ctx, t) }
}

func modeOf(bulk int) string {
	if bulk > 1 {
		return fmt.Sprintf("bulk requests of %d documents", bulk)
	}
	return "one document per request"
}

// SearchOptions configure a query run.
type SearchOptions struct {
	Query   string
	Queries int64
	// Duration bounds the run instead of Queries when set.
	Duration    time.Duration
	Concurrency int
	Cache       bool
	Seed        uint64
	Progress    func(p Progress)
	// Version is the tool version recorded in the result.
	Version string
	// NoServerStats turns off the engine's own timeline.
	NoServerStats bool
}

// RunSearch runs o.Queries queries against e.
func RunSearch(ctx context.Context, e fts.Engine, o SearchOptions) (*result.Run, error) {
	cfg := engine.Config{Workers: max(o.Concurrency, 1), Ops: max(o.Queries, 1), OpsPerRequest: 1, Seed: o.Seed, Progress: o.Progress,
		GiveUp: GiveUp, GiveUpSilent: GiveUpSilent}
	if o.Duration > 0 {
		cfg.Ops, cfg.Duration = 0, o.Duration
	}
	cache := "off"
	if o.Cache {
		cache = "on"
	}
	rc := runConfig(e, "one query per request, cache "+cache)
	rc.Search.Queries, rc.Search.Cache = o.Queries, o.Cache
	spec := run.Spec{Name: e.Name() + " search", Command: o.Query, Version: o.Version,
		Config: rc, Engine: cfg, Factory: &fts.SearchFactory{Engine: e, Query: []byte(o.Query), Cache: o.Cache}, Identify: identify(rc, e)}
	if !o.NoServerStats {
		spec.Sampler = e.Sampler()
	}
	return run.Run(ctx, spec)
}

// CompareOptions configure a comparison.
type CompareOptions struct {
	Engines     []fts.Engine
	File        string
	Docs        int64
	Concurrency int
	Bulk        int
	// Queries per query run; NoCacheQueries for the cache-off aggregation
	// runs (the whitepaper ran 10x fewer on Elasticsearch).
	Queries, NoCacheQueries int64
	TermQuery, AggQuery     string
	// SkipParity times the queries even when the engines disagree on hits.
	SkipParity bool
	// KnownItems is how many documents' titles judge the engines' ranking
	// after the timed runs (0: none).
	KnownItems int
	Seed       uint64
	// NoServerStats turns off the engines' own timelines.
	NoServerStats bool
	Log           io.Writer
	// Version is the tool version recorded in the result.
	Version string
}

// ParityCheck is one query's hits on every engine (see result.ParityCheck).
type ParityCheck = result.ParityCheck

// EngineResult is one engine's part of a comparison (see result.EngineResult).
type EngineResult = result.EngineResult

// Comparison is the result of Compare (see result.SearchComparison).
type Comparison = result.SearchComparison

// ErrParity is returned when the engines disagree on hits before timing.
var ErrParity = errors.New("the engines return different hits")

// defaults fills the queries left out: the whitepaper's term and
// aggregation queries, and a tenth of Queries for the cache-off runs.
func (o *CompareOptions) defaults() {
	if o.TermQuery == "" {
		o.TermQuery = TermQuery
	}
	if o.AggQuery == "" {
		o.AggQuery = AggQuery
	}
	if o.NoCacheQueries <= 0 {
		o.NoCacheQueries = max(o.Queries/10, 1)
	}
}

// Compare ingests the same documents into every engine at equal
// concurrency, checks that they agree on the queries' hits, then times the
// term query and the aggregation with caches on and off.
func Compare(ctx context.Context, o CompareOptions) (*Comparison, error) {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	o.defaults()
	c := &Comparison{Header: result.NewHeader(result.SchemaSearch, o.Version), Warnings: []string{},
		Config: result.SearchConfig{File: o.File, Docs: o.Docs, Connections: o.Concurrency, Bulk: max(o.Bulk, 1),
			Queries: o.Queries, NoCacheQueries: o.NoCacheQueries, TermQuery: o.TermQuery, AggQuery: o.AggQuery,
			Engines: map[string]string{}}, PublishedQPS: map[string]float64{}}
	for k, r := range refs {
		c.PublishedQPS[k] = r.qps
	}
	for _, e := range o.Engines {
		c.Config.Engines[e.Name()] = e.Target().Addr
	}
	// Every engine must be usable before anything is written to any.
	for _, e := range o.Engines {
		if err := e.Check(ctx); err != nil {
			return c, err
		}
	}
	for _, e := range o.Engines {
		er := EngineResult{Engine: e.Name()}
		if err := e.Reset(ctx); err != nil {
			return c, err
		}
		var err error
		if er.MemoryBefore, err = memory(ctx, e); err != nil {
			return c, err
		}
		fmt.Fprintf(log, "%s: writing %s at concurrency %d\n", e.Name(), o.File, o.Concurrency)
		er.Write, err = RunWrite(ctx, e, WriteOptions{File: o.File, Docs: o.Docs, Concurrency: o.Concurrency, Bulk: o.Bulk, Seed: o.Seed,
			Version: o.Version, NoServerStats: o.NoServerStats})
		if err != nil {
			return c, fmt.Errorf("%s write: %w", e.Name(), err)
		}
		switch tg := er.Write.Config.Target; { // what the write run's identification said
		case tg.NotTair():
			c.Config.Engines[e.Name()] += " (embedded server, not Tair)"
		case tg != nil && tg.Server != nil && er.Write.Config.Search.URL != "":
			c.Config.Engines[e.Name()] += " (" + tg.Server.String() + ")"
		}
		if err := e.Refresh(ctx); err != nil {
			return c, err
		}
		if er.Docs, err = e.Count(ctx); err != nil {
			return c, err
		}
		if er.MemoryAfter, err = memory(ctx, e); err != nil {
			return c, err
		}
		fmt.Fprintf(log, "%s: %d documents searchable, %.0f docs/s\n", e.Name(), er.Docs, er.Write.Totals.OpsPerSec)
		c.Engines = append(c.Engines, er)
	}
	agree, err := parity(ctx, o, c)
	if err != nil {
		return c, err
	}
	if !agree {
		msg := "the engines disagree on hits: see parity in the result"
		if !o.SkipParity {
			return c, fmt.Errorf("%w (see the parity section; --skip-parity times them anyway)", ErrParity)
		}
		c.Warnings = append(c.Warnings, msg)
	}
	for i, e := range o.Engines {
		er := &c.Engines[i]
		runs := []struct {
			name  string
			dst   **result.Run
			q     string
			n     int64
			cache bool
		}{
			{"term query", &er.Term, o.TermQuery, o.Queries, false},
			{"aggregation, cache on", &er.AggCache, o.AggQuery, o.Queries, true},
			{"aggregation, cache off", &er.AggNoCache, o.AggQuery, o.NoCacheQueries, false},
		}
		for _, r := range runs {
			fmt.Fprintf(log, "%s: %s, %d queries\n", e.Name(), r.name, r.n)
			run, err := RunSearch(ctx, e, SearchOptions{Query: r.q, Queries: r.n, Concurrency: o.Concurrency, Cache: r.cache,
				Seed: o.Seed, Version: o.Version, NoServerStats: o.NoServerStats})
			if err != nil {
				return c, fmt.Errorf("%s %s: %w", e.Name(), r.name, err)
			}
			*r.dst = run
		}
	}
	if o.KnownItems > 0 {
		rel, warnings, err := knownItems(ctx, o, c.Engines[0].Docs, o.Engines, log)
		if err != nil {
			return c, err
		}
		c.Relevance, c.Warnings = rel, append(c.Warnings, warnings...)
	}
	for _, er := range c.Engines {
		for _, run := range []*result.Run{er.Write, er.Term, er.AggCache, er.AggNoCache} {
			if run == nil {
				continue
			}
			for _, w := range run.Warnings {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s %s: %s", er.Engine, run.Name, w))
			}
		}
	}
	return c, nil
}

// parity runs each query once on every engine before timing, recording
// their hits in c, and says whether all agree on total hits and buckets.
func parity(ctx context.Context, o CompareOptions, c *Comparison) (bool, error) {
	agree := true
	for _, q := range []string{o.TermQuery, o.AggQuery} {
		pc := ParityCheck{Query: q, Hits: map[string]result.Hits{}, Agree: true}
		var first *fts.Hits
		for _, e := range o.Engines {
			h, err := e.Probe(ctx, []byte(q))
			if err != nil {
				return false, err
			}
			pc.Hits[e.Name()] = hitsResult(h)
			if first == nil {
				first = &h
			} else if h.Total != first.Total || fmt.Sprint(h.Buckets) != fmt.Sprint(first.Buckets) {
				pc.Agree = false
			}
		}
		agree = agree && pc.Agree
		c.Parity = append(c.Parity, pc)
	}
	return agree, nil
}

// reference holds the whitepaper's figures (5,000,000 abstracts, 30 connections).
type reference struct {
	memory                string
	seconds, qps, latency float64
}

var refs = map[string]reference{
	"tairsearch write":            {"3.89 GB", 257.33, 19430.09, 1.54},
	"elasticsearch write":         {"5 GB memory, 1 GB disk", 1995.75, 2505.34, 11.97},
	"tairsearch term":             {"", 7.04, 14209.48, 2.11},
	"elasticsearch term":          {"", 39.56, 2528.23, 11.86},
	"tairsearch agg cache on":     {"", 1.75, 57025.44, 0.53},
	"tairsearch agg cache off":    {"", 124.98, 800.37, 37.48},
	"elasticsearch agg cache on":  {"", 12.86, 7780.01, 3.86},
	"elasticsearch agg cache off": {"", 121.95, 82.24, 364.60},
}

func memCell(er EngineResult) string {
	used := er.MemoryAfter.Used - er.MemoryBefore.Used
	if engines.AtURL(er.Engine) { // a JVM: its heap and its store
		return fmt.Sprintf("heap %s, store %s", report.MiB(er.MemoryAfter.Used), report.MiB(er.MemoryAfter.Store))
	}
	return report.MiB(used)
}

func runCells(run *result.Run) (string, string, string, string) {
	if run == nil {
		return "-", "-", "-", "-"
	}
	return fmt.Sprintf("%.2f", run.DurationMS/1000), fmt.Sprintf("%.0f", run.Totals.OpsPerSec),
		fmt.Sprintf("%.2f", run.Totals.Latency.Mean/1000), fmt.Sprintf("%.2f", run.Totals.Latency.P99/1000)
}

// WriteTables prints the whitepaper's three tables with its figures beside ours.
func WriteTables(w io.Writer, c *Comparison, label string) error {
	var b strings.Builder
	if label != "" {
		b.WriteString(label + "\n")
	}
	b.WriteString("\nParity (checked before timing):\n")
	for _, p := range c.Parity {
		state := "agree"
		if !p.Agree {
			state = "DISAGREE"
		}
		var parts []string
		for _, er := range c.Engines {
			h := p.Hits[er.Engine]
			parts = append(parts, fmt.Sprintf("%s %d hits, %d buckets", er.Engine, h.Total, len(h.Buckets)))
		}
		fmt.Fprintf(&b, "  %-8s %s: %s\n", state, p.Query, strings.Join(parts, "; "))
	}
	table := func(title string, rows [][]string) {
		fmt.Fprintf(&b, "\n%s\n", title)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
		}
		_ = tw.Flush()
	}
	head := []string{"", "memory", "total s", "QPS", "avg ms", "p99 ms", "whitepaper: memory", "total s", "QPS", "avg ms"}
	rows := [][]string{head}
	for _, er := range c.Engines {
		s, q, a, p := runCells(er.Write)
		ref := refs[er.Engine+" write"]
		rows = append(rows, []string{er.Engine, memCell(er), s, q, a, p, ref.memory, fmt.Sprintf("%.2f", ref.seconds),
			fmt.Sprintf("%.2f", ref.qps), fmt.Sprintf("%.2f", ref.latency)})
	}
	table("Write (documents/s; whitepaper: 5,000,000 documents at 30 connections)", rows)
	rows = [][]string{{"", "total s", "QPS", "avg ms", "p99 ms", "whitepaper: total s", "QPS", "avg ms"}}
	for _, er := range c.Engines {
		s, q, a, p := runCells(er.Term)
		ref := refs[er.Engine+" term"]
		rows = append(rows, []string{er.Engine, s, q, a, p, fmt.Sprintf("%.2f", ref.seconds), fmt.Sprintf("%.2f", ref.qps), fmt.Sprintf("%.2f", ref.latency)})
	}
	table("Term query", rows)
	rows = [][]string{{"", "total s", "QPS", "avg ms", "p99 ms", "whitepaper: total s", "QPS", "avg ms"}}
	for _, er := range c.Engines {
		for _, v := range []struct {
			name string
			run  *result.Run
		}{{"cache on", er.AggCache}, {"cache off", er.AggNoCache}} {
			s, q, a, p := runCells(v.run)
			ref := refs[er.Engine+" agg "+v.name]
			rows = append(rows, []string{er.Engine + " (" + v.name + ")", s, q, a, p, fmt.Sprintf("%.2f", ref.seconds),
				fmt.Sprintf("%.2f", ref.qps), fmt.Sprintf("%.2f", ref.latency)})
		}
	}
	table("Aggregation (terms on id, order by key)", rows)
	if c.Relevance != nil {
		b.WriteString("\n")
		report.WriteTable(&b, report.RelevanceTable(c.Relevance))
		threshold.Write(&b, c.Thresholds)
	}
	if len(c.Warnings) > 0 {
		b.WriteString("\n")
		report.WriteWarnings(&b, c.Warnings)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// memory is e's memory report as results hold it.
func memory(ctx context.Context, e fts.Engine) (result.Memory, error) {
	m, err := e.Memory(ctx)
	return result.Memory(m), err
}

// hitsResult is a probe's hits as results hold them.
func hitsResult(h fts.Hits) result.Hits {
	out := result.Hits{Total: h.Total, IDs: h.IDs}
	for _, b := range h.Buckets {
		out.Buckets = append(out.Buckets, result.Bucket(b))
	}
	return out
}
