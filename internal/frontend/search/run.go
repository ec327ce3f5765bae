package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tairbench/tairbench/internal/driver/elastic"
	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/driver/tairsearch"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/relevance"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// Options are 'tairbench search': one engine, written to or queried, with
// TairSearchBench's settings (its flag letters name them in errors).
type Options struct {
	// Type is "write" or "search"; Engine names the engine (New).
	Type, Engine string
	// Engine's connection, index and refresh settings; Connections is
	// also the run's concurrency.
	fts.Options
	// File is the abstract dump a write ingests; N the documents to write
	// or the queries to run; Query the query a search runs.
	File  string
	N     uint64
	Query string
	// NoCache turns the engine's result cache off; Keep keeps an existing
	// index (a write otherwise drops it and creates the whitepaper's).
	NoCache, Keep bool
	// Bulk is documents per write request.
	Bulk          int
	Seed          uint64
	NoServerStats bool
	AllowErrors   bool
	Out           output.Outputs
}

// Validate checks the options, naming TairSearchBench's flags.
func (o Options) Validate() error {
	switch {
	case o.Connections < 1:
		return errors.New("-c must be at least 1")
	case o.Type == "write" && o.File == "":
		return errors.New("-t write needs -f FILE (tairbench wiki gen makes one)")
	case o.Type == "search" && o.Query == "":
		return errors.New("-t search needs -q QUERY")
	case o.Type == "search" && !strings.HasPrefix(strings.TrimSpace(o.Query), "{"):
		return errors.New("-q must be a JSON query")
	case o.Type != "write" && o.Type != "search":
		return fmt.Errorf("-t must be write or search, got %q", o.Type)
	}
	return nil
}

// Run writes documents into one engine, or runs one query against it,
// and prints and writes the run's result.
func Run(ctx context.Context, o Options, io harness.IO) (*result.Run, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := output.CheckPaths(o.Out.JSON, o.Out.CSV, o.Out.HGRM); err != nil {
		return nil, err
	}
	e, err := New(o.Engine, o.Options)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if err := e.Check(ctx); err != nil {
		return nil, err
	}
	if o.Type == "search" {
		so := SearchOptions{Query: o.Query, Queries: int64(o.N), Concurrency: o.Connections, Cache: !o.NoCache,
			Seed: harness.SeedOrNew(o.Seed), Version: io.Version, NoServerStats: o.NoServerStats}
		r, err := RunSearch(ctx, e, so)
		if err != nil {
			return nil, err
		}
		return r, output.Finish(ctx, io, r, o.Out, o.AllowErrors)
	}
	if err := notJSONLines(o.File); err != nil {
		return nil, err
	}
	prepare := e.Reset
	if o.Keep {
		prepare = e.Ensure
	}
	if err := prepare(ctx); err != nil {
		return nil, err
	}
	wo := WriteOptions{File: o.File, Docs: int64(o.N), Concurrency: o.Connections, Bulk: o.Bulk,
		Seed: harness.SeedOrNew(o.Seed), Version: io.Version, NoServerStats: o.NoServerStats}
	r, err := RunWrite(ctx, e, wo)
	if err != nil && r == nil {
		return nil, err
	}
	if mem, merr := e.Memory(ctx); merr == nil {
		fmt.Fprintf(output.SummaryTo(io, o.Out.JSON), "memory       %s (%s)\n", report.MiB(mem.Used), mem.Detail)
	}
	if ferr := output.Finish(ctx, io, r, o.Out, o.AllowErrors); ferr != nil {
		return r, ferr
	}
	return r, err
}

// RunCompareOptions are 'tairbench search compare': the comparison and
// where its engines are.
type RunCompareOptions struct {
	CompareOptions
	// Tair is TairSearch's target (started by the command line with
	// --embedded); ES is Elasticsearch's URL and ESAuth its login.
	Tair       endpoint.Target
	ES, ESAuth string
	// Engine holds both engines' index and refresh settings.
	Engine      fts.Options
	JSON        string
	AllowErrors bool
	// Thresholds are bars on the known items' relevance ("ndcg@10>0.5");
	// a failed one exits 99.
	Thresholds []string
}

// relevanceBars checks --known-items and reads --threshold against it.
func (o RunCompareOptions) relevanceBars() ([]relevance.Threshold, error) {
	if o.KnownItems < 0 {
		return nil, fmt.Errorf("--known-items %d: want 0 (none) or more", o.KnownItems)
	}
	var ths []relevance.Threshold
	for _, t := range o.Thresholds {
		th, err := relevance.ParseThreshold(t)
		if err != nil {
			return nil, err
		}
		if o.KnownItems == 0 {
			return nil, fmt.Errorf("threshold %q: --known-items 0 leaves no relevance to judge", t)
		}
		if err := th.Fits(10); err != nil {
			return nil, err
		}
		ths = append(ths, th)
	}
	return ths, nil
}

// RunCompare runs the whitepaper's comparison on TairSearch and
// Elasticsearch, prints its tables beside the published figures and
// writes the comparison document.
func RunCompare(ctx context.Context, o RunCompareOptions, io harness.IO) (*Comparison, error) {
	if err := output.CheckPaths(o.JSON); err != nil {
		return nil, err
	}
	if o.File == "" {
		return nil, errors.New("-f FILE is required (tairbench wiki gen --docs N --out FILE makes one)")
	}
	if _, err := os.Stat(o.File); err != nil {
		return nil, err
	}
	if o.ES == "" {
		return nil, errors.New("need --es URL")
	}
	ths, err := o.relevanceBars()
	if err != nil {
		return nil, err
	}
	eo := o.Engine
	eo.Target, eo.Connections = o.Tair, o.Concurrency
	ts, err := tairsearch.Engine.Search(eo)
	if err != nil {
		return nil, err
	}
	// --timeout bounds both engines' requests.
	eo.Target = endpoint.Target{Addr: o.ES, Auth: o.ESAuth, Timeout: o.Tair.Timeout}
	es, err := elastic.Engine.Search(eo)
	if err != nil {
		return nil, err
	}
	co := o.CompareOptions
	co.Engines, co.Seed, co.Log, co.Version = []fts.Engine{ts, es}, harness.SeedOrNew(co.Seed), io.Err, io.Version
	cmp, err := Compare(ctx, co)
	where := func(engine, addr string) string { // as the runs' identification named it
		if cmp != nil && cmp.Config.Engines[engine] != "" {
			return cmp.Config.Engines[engine]
		}
		return addr
	}
	label := fmt.Sprintf("TairSearch at %s vs Elasticsearch at %s, %s, %d connections", where("tairsearch", o.Tair.Addr),
		where("elasticsearch", o.ES), o.File, o.Concurrency)
	if o.Tair.InProcess {
		label += "\nTairSearch here is tairbench's embedded server, not Tair; the whitepaper columns are the published figures."
	}
	if cmp != nil && cmp.Relevance != nil {
		for _, th := range ths {
			cmp.Thresholds = append(cmp.Thresholds, th.Check(cmp.Relevance)...)
		}
	}
	if cmp != nil && len(cmp.Engines) > 0 {
		_ = WriteTables(output.SummaryTo(io, o.JSON), cmp, label)
		if werr := output.Publish(ctx, io, o.JSON, cmp); werr != nil {
			return cmp, werr
		}
	}
	if err != nil {
		return cmp, err
	}
	for _, er := range cmp.Engines {
		if er.Write != nil && report.Failed(er.Write) && !o.AllowErrors {
			return cmp, harness.RunFailed(fmt.Errorf("%s: most writes failed", er.Engine))
		}
	}
	return cmp, output.ThresholdsFailed(cmp.Thresholds)
}

// DryRun prints the write or the queries as they would run on target,
// and sends nothing.
func DryRun(o Options, target string, io harness.IO) error {
	if err := o.Validate(); err != nil {
		return err
	}
	p := harness.NewPlan(io.Out, "tairbench search")
	what := fmt.Sprintf("write %d documents of %s into index %s, %d a request", o.N, o.File, o.Index, max(o.Bulk, 1))
	if o.Type == "search" {
		what = fmt.Sprintf("%d queries on index %s: %s", o.N, o.Index, o.Query)
	}
	p.Run(o.Engine+" "+o.Type, what, target, engine.Config{Workers: o.Connections, Ops: int64(o.N)})
	p.Close()
	return nil
}

// CompareDryRun prints the comparison's runs on TairSearch (at tair) and
// Elasticsearch, and sends nothing.
func CompareDryRun(o RunCompareOptions, tair string, io harness.IO) error {
	if err := output.CheckPaths(o.JSON); err != nil {
		return err
	}
	o.defaults()
	p := harness.NewPlan(io.Out, "tairbench search compare")
	docs := "every document"
	if o.Docs > 0 {
		docs = fmt.Sprintf("%d documents", o.Docs)
	}
	p.Note("each engine's index %s is dropped and created; the hits of both queries are compared before timing", o.Engine.Index)
	for _, e := range []struct{ name, at string }{{tairsearch.Engine.Name, tair}, {elastic.Engine.Name, o.ES}} {
		p.RunToEnd(e.name+" write", fmt.Sprintf("write %s of %s, %d a request", docs, o.File, max(o.Bulk, 1)), e.at,
			engine.Config{Workers: o.Concurrency, Ops: o.Docs})
		p.Run(e.name+" term query", o.TermQuery, e.at, engine.Config{Workers: o.Concurrency, Ops: o.Queries})
		p.Run(e.name+" aggregation, cache on", o.AggQuery, e.at, engine.Config{Workers: o.Concurrency, Ops: o.Queries})
		p.Run(e.name+" aggregation, cache off", o.AggQuery, e.at, engine.Config{Workers: o.Concurrency, Ops: o.NoCacheQueries})
	}
	p.Close()
	return nil
}

// notJSONLines refuses a JSON-lines file given to -t write, which reads a
// Wikipedia abstract dump: read as XML it would write nothing.
func notJSONLines(path string) error {
	why := ""
	for _, ext := range []string{".jsonl", ".ndjson"} {
		if strings.Contains(strings.ToLower(path), ext) {
			why = "its name says JSON lines"
		}
	}
	if f, err := os.Open(path); err == nil {
		head := make([]byte, 64)
		n, _ := f.Read(head)
		f.Close()
		if t := strings.TrimSpace(string(head[:n])); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			why = "it starts with JSON"
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("-f %s is not a Wikipedia abstract dump (%s): your own documents run in a track, "+
		"tairbench search run TRACK.json (docs/search.md shows one)", path, why)
}
