// Package vector is `tairbench vector`: load a dataset into TairVector
// (Tair or the embedded server) and/or Elasticsearch, then sweep the search
// parameter (ef_search, num_candidates) and measure recall@k against exact
// ground truth, QPS and latency through the engine, insert throughput,
// build time and memory: the ANN-benchmarks method the TairVector
// whitepaper follows, with QPS compared at equal recall.
package vector

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/driver/vectors"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/engines"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/vecdata"
	"github.com/tairbench/tairbench/pkg/result"
)

// Engine is one engine to run and its sweep of the search parameter
// (empty: one point, the engine's default).
type Engine struct {
	Engine vectors.Engine
	Sweep  []int
}

// Options configure a benchmark.
type Options struct {
	Engines []Engine
	Set     *vecdata.Set
	Truth   *vecdata.Truth
	K       int
	// Algorithm is HNSW or FLAT; M and EfConstruct build HNSW.
	Algorithm       string
	M, EfConstruct  int
	Connections     int
	LoadConnections int
	// Batch is the vectors per insert request (pipeline or _bulk).
	Batch    int
	Duration time.Duration
	// Warmup runs each point's queries this long before measuring.
	Warmup time.Duration
	// Rate, when set, adds an open-loop run per point at this many queries/s.
	Rate float64
	Seed uint64
	// ServerStats samples each engine's own counters during every run.
	ServerStats bool
	// Selectivities, when set, give every base vector an attribute and
	// sweep again once per share, each search filtered to that share.
	Selectivities []float64
	// Stream, when set, runs the streaming case in place of the sweeps.
	Stream *StreamCase

	attrs   []int32
	filters []filterCase
}

// filterCase is one filtered sweep: the filter and its exact truth.
type filterCase struct {
	selectivity float64
	filter      vectors.Filter
	truth       *vecdata.Truth
}

// attribute is the integer attribute filtered sweeps select on.
const attribute = "attr"

// prepareFilters gives the base vectors their attribute and computes each
// selectivity's filtered ground truth: the k nearest among the vectors whose
// attribute is below ⌈share·n⌉.
func (o *Options) prepareFilters() error {
	if len(o.Selectivities) == 0 {
		return nil
	}
	n := o.Set.N()
	o.attrs = vecdata.Attributes(n, o.Seed)
	for _, sel := range o.Selectivities {
		below := int(math.Ceil(sel * float64(n)))
		if below < o.K {
			return fmt.Errorf("--filter-selectivity %g keeps %d of %d vectors, fewer than k=%d", sel, below, n, o.K)
		}
		keep := func(id uint32) bool { return o.attrs[id] < int32(below) }
		o.filters = append(o.filters, filterCase{selectivity: sel, filter: vectors.Filter{Field: attribute, Below: below},
			truth: vecdata.GroundTruthWhere(o.Set, o.K, keep)})
	}
	return nil
}

// GiveUp is how long a run waits for an unreachable engine.
const GiveUp = 10 * time.Second

// Run loads the set into every engine and sweeps each; it prints the
// table on io.Out and returns the result document.
func Run(ctx context.Context, o Options, io harness.IO) (*result.VectorBench, error) {
	s := o.Set
	doc := &result.VectorBench{Header: result.NewHeader(result.SchemaVector, io.Version), Config: result.VectorConfig{
		Dataset: s.Name, Source: s.Source, Dims: s.Dims, Metric: s.Metric.String(), Base: s.N(), Queries: s.NQ(), K: o.K,
		Algorithm: o.Algorithm, Connections: o.Connections, LoadConnections: o.LoadConnections, Batch: o.Batch,
		DurationMS: float64(o.Duration) / float64(time.Millisecond), WarmupMS: float64(o.Warmup) / float64(time.Millisecond),
		Rate: o.Rate, Selectivities: o.Selectivities, Stream: o.Stream != nil}}
	if err := o.prepareFilters(); err != nil {
		return doc, err
	}
	if o.Algorithm == "HNSW" {
		doc.Config.M, doc.Config.EfConstruct = o.M, o.EfConstruct
	}
	for _, e := range o.Engines {
		er, err := o.runEngine(ctx, e, io)
		if er != nil {
			doc.Engines = append(doc.Engines, *er)
		}
		if err != nil {
			return doc, fmt.Errorf("%s: %w", e.Engine.Name(), err)
		}
	}
	doc.Warnings = warnings(doc)
	Render(io.Out, doc)
	return doc, nil
}

func (o *Options) runEngine(ctx context.Context, e Engine, io harness.IO) (*result.VectorEngine, error) {
	en := e.Engine
	if err := en.Check(ctx); err != nil {
		return nil, err
	}
	er := &result.VectorEngine{Engine: en.Name(), Target: en.Target().Addr, Param: en.Param()}
	spec := vectors.IndexSpec{Dims: o.Set.Dims, Metric: o.Set.Metric, Algorithm: o.Algorithm, M: o.M, EfConstruct: o.EfConstruct}
	if o.attrs != nil {
		spec.Attribute = attribute
	}
	if err := en.Create(ctx, spec); err != nil {
		return nil, err
	}
	start := time.Now()
	load, err := o.load(ctx, en, io)
	er.Load = load
	if load != nil { // what its identification said, in process or not
		switch tg := load.Config.Target; {
		case tg.NotTair() && tg.InProcess:
			er.Target += " (tairbench's embedded server, not Tair, in this process)"
		case tg.NotTair():
			er.Target += " (tairbench's embedded server, not Tair)"
		case tg != nil && tg.Server != nil && load.Config.Search != nil:
			er.Target += " (" + tg.Server.String() + ")"
		}
	}
	if err != nil {
		return er, err
	}
	loaded := time.Since(start)
	if err := en.Finish(ctx); err != nil {
		return er, err
	}
	er.BuildSeconds = time.Since(start).Seconds()
	er.InsertPerSec = float64(o.initialVectors()) / loaded.Seconds()
	fmt.Fprintf(io.Err, "loaded %d vectors into %s in %.1f s (%.0f vectors/s); searchable after %.1f s\n",
		o.initialVectors(), en.Name(), loaded.Seconds(), er.InsertPerSec, er.BuildSeconds)
	if m, err := en.Memory(ctx); err == nil {
		er.Memory = result.VectorMemory{Index: m.Index, Used: m.Used, Detail: m.Detail}
	} else {
		fmt.Fprintf(io.Err, "%s: memory not read: %v\n", en.Name(), err)
	}
	sweep := e.Sweep
	if o.Algorithm == "FLAT" || len(sweep) == 0 {
		sweep = []int{0}
	}
	if o.Stream != nil { // at the sweep's widest search
		er.Stream, err = o.stream(ctx, en, sweep[len(sweep)-1], io)
		return er, err
	}
	for _, p := range sweep {
		pt, err := o.point(ctx, en, p, filterCase{truth: o.Truth}, io)
		if pt != nil {
			er.Points = append(er.Points, *pt)
		}
		if err != nil {
			return er, err
		}
	}
	er.AtRecall = AtRecall(er.Points, recallTargets)
	for _, fc := range o.filters {
		vf := result.VectorFiltered{Selectivity: fc.selectivity, Matching: fc.filter.Below,
			Filter: fmt.Sprintf("%s < %d", fc.filter.Field, fc.filter.Below)}
		for _, p := range sweep {
			pt, err := o.point(ctx, en, p, fc, io)
			if pt != nil {
				vf.Points = append(vf.Points, *pt)
			}
			if err != nil {
				er.Filtered = append(er.Filtered, vf)
				return er, err
			}
		}
		vf.AtRecall = AtRecall(vf.Points, recallTargets)
		er.Filtered = append(er.Filtered, vf)
	}
	return er, nil
}

// recallTargets are the recalls QPS is read at.
var recallTargets = []float64{0.9, 0.95, 0.99}

// load inserts every base vector through the engine (the initial share
// when the stream runs).
func (o *Options) load(ctx context.Context, en vectors.Engine, io harness.IO) (*result.Run, error) {
	batch := max(o.Batch, 1)
	n := o.initialVectors()
	cfg := engine.Config{Workers: max(o.LoadConnections, 1), OpsPerRequest: batch, Seed: o.Seed,
		Duration: 365 * 24 * time.Hour, GiveUp: GiveUp}
	spec := run.Spec{Name: en.Name() + " insert", Command: fmt.Sprintf("insert %d vectors, %d per request", n, batch),
		Version: io.Version, Config: o.runConfig(en, fmt.Sprintf("%d vectors per request", batch)), Engine: cfg,
		Factory: &vectors.Inserts{Engine: en, Rows: o.Set.Train[:n*o.Set.Dims], Dims: o.Set.Dims, Batch: batch, Attr: attribute, Attrs: o.attrs}}
	o.watch(&spec, en)
	r, err := runChecked(ctx, spec, "inserts")
	if err != nil {
		return r, err
	}
	if r.Totals.Ops != int64(n) {
		return r, fmt.Errorf("%d of %d vectors inserted", r.Totals.Ops, n)
	}
	return r, nil
}

func (o *Options) runConfig(en vectors.Engine, mode string) result.RunConfig {
	rc := result.RunConfig{Mode: mode}
	if t := en.Target(); strings.Contains(t.Addr, "://") {
		rc.Search = &result.SearchRunConfig{Engine: en.Name(), URL: t.Addr}
		rc.Target = target.ByURL(t)
	} else {
		rc.Target = t.Result()
	}
	return rc
}

// watch lets the run name the engine's server and, with ServerStats,
// sample the engine's own counters.
func (o *Options) watch(spec *run.Spec, en vectors.Engine) {
	if o.ServerStats {
		spec.Sampler = en.Sampler()
	}
	if spec.Config.Search != nil && spec.Config.Search.URL != "" {
		spec.Identify = target.IdentifyByURL(en)
		return
	}
	target.Identified(spec, en.Target())
}

// point measures one value of the search parameter, with fc's filter
// (none in the plain sweep): recall against fc's truth over every query
// (untimed), then the closed loop (and the open loop at Rate).
func (o *Options) point(ctx context.Context, en vectors.Engine, p int, fc filterCase, io harness.IO) (*result.VectorPoint, error) {
	reqs := make([][]byte, o.Set.NQ())
	for i := range reqs {
		reqs[i] = en.EncodeSearch(nil, o.Set.Query(i), o.K, p, fc.filter)
	}
	label := "-"
	if p > 0 {
		label = fmt.Sprintf("%s=%d", en.Param(), p)
	}
	if fc.filter.On() {
		label += fmt.Sprintf(" %s<%d", fc.filter.Field, fc.filter.Below)
	}
	rec, err := o.recall(ctx, en, reqs, fc.truth)
	if err != nil {
		return nil, fmt.Errorf("recall at %s: %w", label, err)
	}
	pt := &result.VectorPoint{Param: p, Recall: rec}
	cfg := engine.Config{Workers: max(o.Connections, 1), OpsPerRequest: 1, Seed: o.Seed, Duration: o.Duration, Warmup: o.Warmup,
		GiveUp: GiveUp}
	mk := func(rate float64) run.Spec {
		c := cfg
		c.Rate = rate
		s := run.Spec{Name: en.Name() + " knn " + label, Command: fmt.Sprintf("k=%d %s", o.K, label), Version: io.Version,
			Config: o.runConfig(en, "one query per request"), Engine: c,
			Factory: &vectors.Searches{Engine: en, Requests: reqs, Workers: c.Workers}}
		o.watch(&s, en)
		return s
	}
	if pt.Closed, err = o.timed(ctx, mk(0)); err != nil {
		return pt, err
	}
	pt.QPS = pt.Closed.Totals.OpsPerSec
	if o.Rate > 0 {
		if pt.Open, err = o.timed(ctx, mk(o.Rate)); err != nil {
			return pt, err
		}
	}
	fmt.Fprintf(io.Err, "%-13s %-22s recall@%d %.4f  %10.0f QPS  p99 %.3f ms\n", en.Name(), label, o.K, rec, pt.QPS,
		pt.Closed.Totals.Latency.P99/1000)
	return pt, nil
}

func (o *Options) timed(ctx context.Context, spec run.Spec) (*result.Run, error) {
	r, err := runChecked(ctx, spec, "searches")
	if err == nil && r.Totals.Ops == 0 {
		err = fmt.Errorf("no search completed in %s", o.Duration)
	}
	return r, err
}

// runChecked runs spec; a run with failed requests is an error naming
// the first failure (its figures would be those of errors).
func runChecked(ctx context.Context, spec run.Spec, what string) (*result.Run, error) {
	r, err := run.Run(ctx, spec)
	if err != nil {
		return r, err
	}
	if r.Totals.Errors > 0 {
		msg := ""
		if len(r.Errors) > 0 {
			msg = ": " + r.Errors[0].Message
		}
		return r, fmt.Errorf("%d of %d %s failed%s", r.Totals.Errors, r.Totals.Ops, what, msg)
	}
	return r, nil
}

// recall sends every query once, from Connections clients in parallel,
// and returns the mean recall@K against the ground truth.
func (o *Options) recall(ctx context.Context, en vectors.Engine, reqs [][]byte, truth *vecdata.Truth) (float64, error) {
	n := max(o.Connections, 1)
	sums := make([]float64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c, err := en.NewClient(ctx)
			if err != nil {
				errs[w] = err
				return
			}
			defer c.Close()
			var ids []uint32
			for q := w; q < len(reqs); q += n {
				if ids, err = c.Search(ctx, reqs[q], ids[:0]); err != nil {
					errs[w] = fmt.Errorf("query %d: %w", q, err)
					return
				}
				sums[w] += truth.Recall(q, ids, o.K)
			}
		}(w)
	}
	wg.Wait()
	total := 0.0
	for w := range sums {
		if errs[w] != nil {
			return 0, errs[w]
		}
		total += sums[w]
	}
	return total / float64(len(reqs)), nil
}

// AtRecall interpolates each target recall's QPS on the points' frontier
// (the points no other point beats on both recall and QPS).
func AtRecall(points []result.VectorPoint, targets []float64) []result.QPSAtRecall {
	var front []result.VectorPoint
	for _, p := range points {
		beaten := false
		for _, q := range points {
			if (q.Recall > p.Recall && q.QPS >= p.QPS) || (q.Recall >= p.Recall && q.QPS > p.QPS) {
				beaten = true
				break
			}
		}
		if !beaten {
			front = append(front, p)
		}
	}
	sort.Slice(front, func(i, j int) bool { return front[i].Recall < front[j].Recall })
	out := make([]result.QPSAtRecall, 0, len(targets))
	for _, r := range targets {
		a := result.QPSAtRecall{Recall: r, How: fmt.Sprintf("no point reached recall %.2f", r)}
		for i, p := range front {
			if p.Recall < r {
				continue
			}
			a.QPS, a.How = p.QPS, fmt.Sprintf("measured at %d (recall %.4f)", p.Param, p.Recall)
			if i > 0 && p.Recall > r {
				lo := front[i-1]
				t := (r - lo.Recall) / (p.Recall - lo.Recall)
				a.QPS = lo.QPS + t*(p.QPS-lo.QPS)
				a.How = fmt.Sprintf("interpolated between %d and %d", lo.Param, p.Param)
			}
			break
		}
		out = append(out, a)
	}
	return out
}

// Targets are where the engines are.
type Targets struct {
	Tair, ES    endpoint.Target
	Index       string
	Connections int
}

// NewEngine returns the named vector engine (frontend/engines lists
// them): at the RESP target, or at --es for an engine reached by URL.
func NewEngine(ctx context.Context, name string, t Targets) (vectors.Engine, error) {
	e, err := engines.Vectors(name)
	if err != nil {
		return nil, err
	}
	o := fts.Options{Target: t.Tair, Index: t.Index, Connections: t.Connections}
	if e.Reach == catalog.HTTP {
		if t.ES.Addr == "" {
			return nil, fmt.Errorf("%s needs --es URL", name)
		}
		o.Target = t.ES
	}
	return e.Vectors(ctx, o)
}
