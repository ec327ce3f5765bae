// Package track is 'tairbench search run': it runs a search track (package
// internal/track) on TairSearch, Elasticsearch or both: each engine gets
// the track's index, then the schedule's tasks run on each engine in turn,
// query templates checked for parity between the engines before they are
// timed.
package track

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/engines"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/search"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/run"
	tk "github.com/tairbench/tairbench/internal/track"
	"github.com/tairbench/tairbench/pkg/result"
)

// Options are one track run.
type Options struct {
	// Track is a built-in track's name or a track file.
	Track string
	// Engines are "tairsearch", "elasticsearch" or both, in run order.
	Engines []string
	// Tair is TairSearch's target; ES and ESAuth Elasticsearch's URL and login.
	Tair       endpoint.Target
	ES, ESAuth string
	// Chinese is what jieba fields become on Elasticsearch when the track
	// gives no Elasticsearch mapping: "jieba" (the default) or "smartcn".
	Chinese string
	// Docs, when set, replaces the corpus's document count; Duration the
	// query tasks' durations, or Iterations their measured query counts
	// (for quick runs, or runs that must time every template).
	Docs       int64
	Duration   time.Duration
	Iterations int64
	// MaxDivergence stops the run before timing a task whose templates
	// diverge more than this between the engines (negative: never).
	MaxDivergence float64
	// Samples is the parameter sets parity tries per template.
	Samples int
	Seed    uint64
	JSON    string
	Quiet   bool
	// AllowErrors exits 0 when requests failed.
	AllowErrors bool
	// NoServerStats turns off the engines' own timelines.
	NoServerStats bool
	// Thresholds are bars on the relevance figures ("ndcg@10>0.5"); a
	// failed one exits 99.
	Thresholds []string
}

// ErrDiverged is the run stopped by --max-divergence.
var ErrDiverged = errors.New("the engines diverge more than --max-divergence")

// Run runs the track and writes its result.
func Run(ctx context.Context, o Options, io harness.IO) (*result.TrackRun, error) {
	if err := output.CheckPaths(o.JSON); err != nil {
		return nil, err
	}
	if err := tk.CheckChinese(o.Chinese); err != nil {
		return nil, fmt.Errorf("--es-chinese: %w", err)
	}
	tr, err := load(o)
	if err != nil {
		return nil, err
	}
	ths, err := qualityThresholds(o.Thresholds, tr)
	if err != nil {
		return nil, err
	}
	if o.Samples <= 0 {
		o.Samples = 5
	}
	o.Seed = harness.SeedOrNew(o.Seed)
	doc := &result.TrackRun{Header: result.NewHeader(result.SchemaTrack, io.Version), Track: tr.Name,
		Description: tr.Description, Corpus: corpusName(tr), Engines: map[string]string{}, Warnings: []string{}}
	// Every engine is reached before the corpus is read and before any
	// index is touched.
	engines, err := openEngines(ctx, o, tr, doc)
	for _, e := range engines {
		defer e.Close()
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(io.Err, "track %s: reading the corpus\n", tr.Name)
	scan, err := tr.ScanCorpus()
	if err != nil {
		return nil, err
	}
	doc.Docs = scan.Docs
	for _, e := range engines {
		if err := e.Reset(ctx); err != nil {
			return nil, fmt.Errorf("%s: the track's index: %w", e.Name(), err)
		}
	}
	r := &runner{o: o, tr: tr, scan: scan, doc: doc, engines: engines, io: io}
	if toks, err := r.tokenAgreement(ctx); err != nil {
		doc.Warnings = append(doc.Warnings, err.Error()+": not measured")
	} else {
		doc.TokenAgreement = toks
	}
	runErr := r.tasks(ctx)
	if runErr == nil && tr.Relevance != nil {
		runErr = r.relevance(ctx)
	}
	for _, th := range ths {
		if doc.Relevance != nil {
			doc.Thresholds = append(doc.Thresholds, th.Check(doc.Relevance)...)
		}
	}
	summary := output.SummaryTo(io, o.JSON)
	Render(summary, doc)
	if werr := output.Publish(ctx, io, o.JSON, doc); werr != nil {
		return doc, werr
	}
	if runErr != nil {
		return doc, runErr
	}
	if err := output.ThresholdsFailed(doc.Thresholds); err != nil {
		return doc, err
	}
	if !o.AllowErrors {
		if why := failures(doc); why != "" {
			return doc, harness.RunFailed(fmt.Errorf("%s (use --allow-errors to exit 0)", why))
		}
	}
	return doc, nil
}

// load reads the track and applies the options that change it: the
// corpus's size and the query tasks' duration or count.
func load(o Options) (*tk.Track, error) {
	tr, err := tk.Load(o.Track)
	if err != nil {
		return nil, err
	}
	if o.Docs > 0 {
		// Ingest tasks keep their share of the corpus.
		if was := tr.Corpus.Docs; was > 0 {
			for i := range tr.Tasks {
				if in := tr.Tasks[i].Ingest; in != nil && in.Docs > 0 {
					in.Docs = max(1, in.Docs*o.Docs/was)
				}
			}
		}
		tr.Corpus.Docs = o.Docs
	}
	for i := range tr.Tasks {
		switch t := &tr.Tasks[i]; {
		case len(t.Queries) == 0:
		case o.Duration > 0:
			t.Duration, t.Iterations = tk.Duration(o.Duration), 0
		case o.Iterations > 0:
			t.Duration, t.Iterations = 0, o.Iterations
		}
	}
	return tr, nil
}

func corpusName(tr *tk.Track) string {
	c := tr.Corpus
	switch {
	case c.File != "":
		return c.File
	case c.WikiFile != "":
		return c.WikiFile
	}
	return fmt.Sprintf("generated %s, %d documents, seed %d", c.Generator, c.Docs, c.Seed)
}

// openEngines reaches each engine, set up with the track's index (which
// Reset creates).
func openEngines(ctx context.Context, o Options, tr *tk.Track, doc *result.TrackRun) ([]fts.Engine, error) {
	if len(o.Engines) == 0 {
		return nil, errors.New("no engine to run on")
	}
	clients := 1
	for _, t := range tr.Tasks {
		clients = max(clients, t.Clients+ingestClients(t))
	}
	var out []fts.Engine
	for _, name := range o.Engines {
		fo := fts.Options{Index: tr.Index.Name, Connections: clients, RefreshInterval: "1s"}
		desc, err := engines.Search(name)
		if err != nil {
			return out, err
		}
		switch desc.Reach {
		case catalog.RESP: // the track's TairSearch mapping
			fo.Target, fo.Mapping = o.Tair, tr.Index.TairSearch
			doc.Engines[name] = o.Tair.Addr
			if o.Tair.InProcess {
				doc.Engines[name] = "embedded server, not Tair"
			}
		default: // at --es: the track's Elasticsearch mapping, or one proposed from TairSearch's
			if o.ES == "" {
				return out, fmt.Errorf("%s needs --es URL", name)
			}
			fo.Target = endpoint.Target{Addr: o.ES, Auth: o.ESAuth, Timeout: o.Tair.Timeout}
			fo.Mapping = tr.Index.Elasticsearch
			if len(fo.Mapping) == 0 {
				body, notes, err := tk.ProposeElasticsearch(tr.Index.TairSearch, o.Chinese)
				if err != nil {
					return out, err
				}
				fo.Mapping = body
				doc.Analyzers = notes
			}
			doc.Engines[name] = o.ES
		}
		e, err := search.New(name, fo)
		if err != nil {
			return out, err
		}
		out = append(out, e)
		if err := e.Check(ctx); err != nil {
			return out, err
		}
	}
	if len(out) == 2 {
		doc.Differences = []string{
			"scoring: TairSearch TF-IDF (classic), Elasticsearch BM25",
			"Elasticsearch: one shard, no replicas, refresh every 1 s (TairSearch: searchable at once); ingest tasks end with a refresh",
		}
		for _, a := range doc.Analyzers {
			if !a.Exact {
				doc.Differences = append(doc.Differences, fmt.Sprintf("analyzer of %s: %s on TairSearch, %s on Elasticsearch", a.Field, a.TairSearch, a.Elasticsearch))
			}
		}
	}
	return out, nil
}

func ingestClients(t tk.Task) int {
	if t.Ingest == nil || len(t.Queries) == 0 {
		return 0
	}
	return t.Ingest.Clients
}

// runner runs the schedule.
type runner struct {
	o       Options
	tr      *tk.Track
	scan    *tk.Scan
	doc     *result.TrackRun
	engines []fts.Engine
	io      harness.IO
	feeds   []*feed
}

func (r *runner) tasks(ctx context.Context) error {
	for _, e := range r.engines {
		f, err := newFeed(r.tr)
		if err != nil {
			return err
		}
		defer f.close()
		r.feeds = append(r.feeds, f)
		_ = e
	}
	for _, t := range r.tr.Tasks {
		tt := result.TrackTask{Name: t.Name, Kind: t.Kind(), Clients: t.Clients, Rate: t.Rate}
		bound, err := r.bind(t)
		if err != nil {
			return fmt.Errorf("task %s: %w", t.Name, err)
		}
		if len(bound) > 0 && len(r.engines) == 2 {
			if err := r.refresh(ctx); err != nil {
				return err
			}
			tt.Parity = r.parity(ctx, t, bound)
			if worst := maxDivergence(tt.Parity); r.o.MaxDivergence >= 0 && worst > r.o.MaxDivergence {
				r.doc.Tasks = append(r.doc.Tasks, tt)
				return harness.RunFailed(fmt.Errorf("task %s: %w (%.2f > %.2f): see the parity table", t.Name, ErrDiverged, worst, r.o.MaxDivergence))
			}
		}
		for i, e := range r.engines {
			fmt.Fprintf(r.io.Err, "task %s on %s\n", t.Name, e.Name())
			te, err := r.runTask(ctx, e, r.feeds[i], t, bound)
			if te != nil {
				tt.Engines = append(tt.Engines, *te)
				r.nameOurs(e.Name(), te.Run)
			}
			if err != nil {
				r.doc.Tasks = append(r.doc.Tasks, tt)
				return fmt.Errorf("task %s on %s: %w", t.Name, e.Name(), err)
			}
		}
		r.doc.Tasks = append(r.doc.Tasks, tt)
	}
	return nil
}

func (r *runner) refresh(ctx context.Context) error {
	for _, e := range r.engines {
		if err := e.Refresh(ctx); err != nil {
			return err
		}
	}
	return nil
}

// bind resolves a task's templates against the corpus's pools.
func (r *runner) bind(t tk.Task) ([]*tk.Bound, error) {
	var out []*tk.Bound
	for _, q := range t.Queries {
		tp, err := tk.Compile(q.Body)
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", q.Name, err)
		}
		b, err := tp.Bind(r.scan.Pools)
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", q.Name, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// nameOurs labels an engine reached at a plain host:port as tairbench's
// embedded server once a task run's identification said so, and one
// reached by URL with the server and version it gave: the set-up line
// and the runs' targets rest on the same answer.
func (r *runner) nameOurs(engine string, run *result.Run) {
	where := r.doc.Engines[engine]
	if run == nil || strings.Contains(where, "not Tair") || strings.HasSuffix(where, ")") {
		return
	}
	switch tg := run.Config.Target; {
	case tg.NotTair():
		r.doc.Engines[engine] = where + " (embedded server, not Tair)"
	case tg != nil && tg.Server != nil && run.Config.Search != nil && run.Config.Search.URL != "":
		r.doc.Engines[engine] = where + " (" + tg.Server.String() + ")"
	}
}

// runTask runs one task on one engine.
func (r *runner) runTask(ctx context.Context, e fts.Engine, f *feed, t tk.Task, bound []*tk.Bound) (*result.TrackEngine, error) {
	cfg := engine.Config{Workers: t.Clients, Seed: r.o.Seed, Warmup: time.Duration(t.Warmup), Rate: t.Rate,
		GiveUp: search.GiveUp, GiveUpSilent: search.GiveUpSilent}
	var write *fts.WriteFactory
	bulk := 1
	if t.Ingest != nil {
		bulk = max(t.Ingest.Bulk, 1)
		f.allow(t.Ingest.Docs)
		write = &fts.WriteFactory{Engine: e, Encoded: f, Bulk: bulk}
	}
	rc := result.RunConfig{Mode: t.Kind(), Search: &result.SearchRunConfig{Engine: e.Name()}}
	tg := e.Target()
	if engines.AtURL(e.Name()) {
		rc.Search.URL, rc.Target = tg.Addr, target.ByURL(tg)
	} else {
		rc.Target = tg.Result()
	}
	spec := run.Spec{Name: fmt.Sprintf("%s %s", e.Name(), t.Name), Command: "track " + r.tr.Name + " task " + t.Name,
		Version: r.io.Version, Config: rc, Log: r.io.Err}
	// The result names the server: "embedded server, not Tair" however
	// reached, Elasticsearch's version.
	spec.Identify = func(ctx context.Context) (*result.ServerIdentity, error) { return target.Identify(ctx, tg) }
	if rc.Search.URL != "" {
		spec.Identify = target.IdentifyByURL(e)
	}
	if !r.o.NoServerStats {
		spec.Sampler = e.Sampler()
	}
	var mix *fts.MixFactory
	switch t.Kind() {
	case "ingest":
		cfg.OpsPerRequest, cfg.Duration, cfg.Warmup = bulk, 365*24*time.Hour, 0
		spec.Factory = write
	default:
		mix = &fts.MixFactory{Engine: e, Cache: t.Cache}
		for i, q := range t.Queries {
			mix.Templates = append(mix.Templates, fts.MixTemplate{Name: q.Name, Weight: q.Weight, Expand: bound[i].Expand})
			cfg.Operations = append(cfg.Operations, q.Name)
			spec.Operations = append(spec.Operations, result.Operation{Name: q.Name, Command: string(q.Body), Weight: q.Weight})
		}
		cfg.Duration, cfg.Ops, cfg.OpsPerRequest = time.Duration(t.Duration), t.Iterations, 1
		if write != nil {
			// The writers are the first workers; a query count does not count them.
			mix.Write, mix.Writers = write, t.Ingest.Clients
			cfg.Workers += t.Ingest.Clients
			cfg.Background = t.Ingest.Clients
			cfg.Operations = append(cfg.Operations, "ingest")
			spec.Operations = append(spec.Operations, result.Operation{Name: "ingest", Command: fmt.Sprintf("bulk of %d documents", bulk)})
		}
		if len(cfg.Operations) == 1 {
			cfg.Operations, spec.Operations = nil, nil
		}
		spec.Factory = mix
	}
	spec.Engine = cfg
	res, err := run.Run(ctx, spec)
	if err != nil {
		return nil, err
	}
	te := &result.TrackEngine{Engine: e.Name(), Run: res}
	if mix != nil {
		te.Templates = templateStats(res, mix)
		for _, ts := range te.Templates {
			switch {
			case ts.Requests == 0:
				r.doc.Warnings = append(r.doc.Warnings, fmt.Sprintf("task %s on %s: template %s got no measured request, so it has no latency (a longer --duration, or --iterations, times it)",
					t.Name, e.Name(), ts.Name))
			case ts.ZeroHitShare == 1:
				r.doc.Warnings = append(r.doc.Warnings, fmt.Sprintf("task %s on %s: template %s: every measured query found nothing: its QPS and latency are those of empty queries, not to be set against another engine's",
					t.Name, e.Name(), ts.Name))
			}
		}
	}
	if ferr := f.err(); ferr != nil {
		return te, ferr
	}
	if t.Ingest != nil && t.Kind() == "mixed" && len(res.Operations) > 0 && res.Operations[len(res.Operations)-1].Ops > 0 {
		te.Ingest = ingestFigures(res, res.Operations[len(res.Operations)-1].Name)
		if in := te.Ingest; in.CorpusLimited {
			r.doc.Warnings = append(r.doc.Warnings, fmt.Sprintf("task %s on %s: the corpus ran out after %.1f s of %.1f s: the writers' rate over the task (%.0f docs/s) is not %s's; while writing it took %.0f docs/s",
				t.Name, e.Name(), in.WritingS, res.DurationMS/1000, res.Operations[len(res.Operations)-1].OpsPerSec, e.Name(), in.DocsPerSec))
		}
	}
	if t.Ingest != nil && t.Kind() == "mixed" && (len(res.Operations) == 0 || res.Operations[len(res.Operations)-1].Ops == 0) {
		r.doc.Warnings = append(r.doc.Warnings, fmt.Sprintf("task %s on %s: the corpus was used up before it, so its ingest wrote nothing", t.Name, e.Name()))
	}
	if t.Ingest != nil {
		if err := e.Refresh(ctx); err != nil {
			return te, err
		}
		if te.Docs, err = e.Count(ctx); err != nil {
			return te, err
		}
	}
	return te, nil
}

// ingestFigures are the writers' own figures from the run's per-second
// series of operation op: the documents over the seconds with writes, the
// last such second counted as its share of the full seconds' mean.
func ingestFigures(res *result.Run, op string) *result.IngestFigures {
	var per []int64 // op's documents in each second
	for _, iv := range res.Series {
		n := int64(0)
		for _, o := range iv.Operations {
			if o.Name == op {
				n = o.Ops
			}
		}
		per = append(per, n)
	}
	last := len(per) - 1
	for last >= 0 && per[last] == 0 {
		last--
	}
	in := &result.IngestFigures{}
	if last < 0 {
		return in
	}
	full, sum := 0, int64(0)
	for _, n := range per[:last] {
		if n > 0 {
			full++
			sum += n
		}
		in.Docs += n
	}
	in.Docs += per[last]
	frac := 1.0
	if full > 0 {
		frac = min(1, float64(per[last])/(float64(sum)/float64(full)))
	}
	in.WritingS = float64(full) + frac
	in.DocsPerSec = float64(in.Docs) / in.WritingS
	// Out of documents before the end: seconds without writes after the
	// last, or a last whole second with under half a full one's writes.
	in.CorpusLimited = last < len(per)-1 || frac < 0.5 && res.Series[last].SpanS == 0
	return in
}

// templateStats joins the run's per-operation figures with the mix's hits.
func templateStats(res *result.Run, mix *fts.MixFactory) []result.TemplateStats {
	hits := mix.Hits()
	out := make([]result.TemplateStats, len(mix.Templates))
	for i, t := range mix.Templates {
		ts := result.TemplateStats{Name: t.Name, MeanHits: hits[i]}
		if len(res.Operations) > i {
			op := res.Operations[i]
			lat := op.Latency
			ts.Requests, ts.Latency, ts.CorrectedLatency = op.Requests, &lat, op.CorrectedLatency
			if op.Ops > 0 {
				ts.ZeroHitShare = float64(op.Misses) / float64(op.Ops)
			}
		} else {
			lat := res.Totals.Latency
			ts.Requests, ts.Latency, ts.CorrectedLatency = res.Totals.Requests, &lat, res.Totals.CorrectedLatency
			if res.Totals.Ops > 0 {
				ts.ZeroHitShare = float64(res.Totals.Misses) / float64(res.Totals.Ops)
			}
		}
		out[i] = ts
	}
	return out
}

func failures(doc *result.TrackRun) string {
	for _, t := range doc.Tasks {
		for _, e := range t.Engines {
			if e.Run == nil || e.Run.Totals.Errors == 0 {
				continue
			}
			if t.Kind == "ingest" {
				return fmt.Sprintf("task %s on %s: %d of %d documents were rejected or lost (first: %s)", t.Name, e.Engine,
					e.Run.Totals.Errors, e.Run.Totals.Ops+e.Run.Totals.LostOps, firstError(e.Run))
			}
			return fmt.Sprintf("task %s on %s: %d of %d requests failed (first: %s)", t.Name, e.Engine, e.Run.Totals.Errors,
				e.Run.Totals.Ops+e.Run.Totals.LostOps, firstError(e.Run))
		}
	}
	return ""
}

func firstError(r *result.Run) string {
	if len(r.Errors) > 0 {
		return r.Errors[0].Example
	}
	return "no message"
}

// feed hands a track's corpus to one engine's writers, task after task.
type feed struct {
	mu    sync.Mutex
	r     *tk.Reader
	left  int64 // documents the current task may still take (-1: all)
	done  bool
	first error
}

func newFeed(tr *tk.Track) (*feed, error) {
	r, err := tr.Open()
	if err != nil {
		return nil, err
	}
	return &feed{r: r}, nil
}

func (f *feed) close() { f.r.Close() }

// allow lets the next task take n documents (0: the rest).
func (f *feed) allow(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.left = n
	if n == 0 {
		f.left = -1
	}
}

// TakeEncoded implements fts.EncodedSource.
func (f *feed) TakeEncoded(dst []fts.Encoded) []fts.Encoded {
	f.mu.Lock()
	defer f.mu.Unlock()
	var d tk.Doc
	for len(dst) < cap(dst) && !f.done && f.left != 0 {
		err := f.r.Next(&d)
		if errors.Is(err, io.EOF) {
			f.done = true
			break
		}
		if err != nil {
			if f.first == nil {
				f.first = err
			}
			f.done = true
			break
		}
		dst = append(dst, fts.Encoded{ID: d.ID, JSON: d.JSON})
		if f.left > 0 {
			f.left--
		}
	}
	return dst
}

func (f *feed) err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.first
}

// sampleRand is parity's own generator: the same samples on every engine.
func sampleRand(seed uint64, template int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(template)+0x7061726974))
}

func maxDivergence(ps []result.TemplateParity) float64 {
	worst := 0.0
	for _, p := range ps {
		worst = max(worst, p.Divergence)
	}
	return worst
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
