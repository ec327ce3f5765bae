package vector

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

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/engines"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/pkg/result"
)

// Words are 'tairbench vector' (and 'vector suite') as the user gave
// them: the engines and their targets, the index, the data and the sweep
// as text, before anything is read or connected.
type Words struct {
	// Options are tairbench's own: --embedded starts the embedded server
	// for TairVector, --seed seeds the generated data and the query order.
	common.Options
	// Server is TairVector's target; Engines a comma list; ES and ESAuth
	// Elasticsearch's URL and login.
	Server         target.Options
	Engines        string
	ES, ESAuth     string
	Index          string
	Data           DataSpec
	Algorithm      string
	M, EfConstruct int
	// EfSearch and NumCandidates are comma lists of the values to sweep.
	EfSearch, NumCandidates      string
	Connections, LoadConnections int
	Batch                        int
	Duration, Warmup             time.Duration
	Rate                         float64
	// FilterSelectivity is a comma list of shares (0 < s ≤ 1) to sweep
	// again with filtered searches ("": none).
	FilterSelectivity string
	// Stream runs the streaming case in place of the sweeps: StreamInitial
	// of the base loaded first, the rest inserted at StreamInsertRate
	// vectors/s while searching at StreamSearchRate queries/s.
	Stream                             bool
	StreamInitial                      float64
	StreamInsertRate, StreamSearchRate float64
}

// streamTail is how long the stream's searches go on after its last insert.
const streamTail = 2 * time.Second

// streamCase checks the stream's words.
func (w Words) streamCase() (*StreamCase, error) {
	switch {
	case !w.Stream:
		return nil, nil
	case !(w.StreamInitial > 0 && w.StreamInitial < 1):
		return nil, fmt.Errorf("--stream-initial %g: want a share above 0 and below 1 (the rest is streamed)", w.StreamInitial)
	case w.StreamInsertRate <= 0 || w.StreamSearchRate <= 0:
		return nil, errors.New("--stream-insert-rate and --stream-search-rate must be above 0")
	case w.FilterSelectivity != "":
		return nil, errors.New("--stream runs in place of the sweeps: give --filter-selectivity in a run of its own")
	case w.Rate > 0:
		return nil, errors.New("--stream runs in place of the sweeps: --rate has no sweep to add to")
	}
	return &StreamCase{Initial: w.StreamInitial, InsertRate: w.StreamInsertRate, SearchRate: w.StreamSearchRate, Tail: streamTail}, nil
}

// shares reads --filter-selectivity: shares above 0 and at most 1, each once.
func shares(s string) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(x > 0 && x <= 1) || slices.Contains(out, x) {
			return nil, fmt.Errorf("--filter-selectivity %q: want shares above 0 and at most 1, each once, separated by commas (0.01,0.1,0.5)", s)
		}
		out = append(out, x)
	}
	return out, nil
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

// options checks the words and returns the run's options, no engine yet.
func (w Words) options() (Options, error) {
	vo := Options{K: w.Data.K, Algorithm: strings.ToUpper(w.Algorithm), M: w.M, EfConstruct: w.EfConstruct,
		Connections: w.Connections, LoadConnections: w.LoadConnections, Batch: w.Batch, Rate: w.Rate,
		Seed: w.Seed, ServerStats: !w.NoServerStats}
	switch {
	case w.Timeout <= 0:
		return vo, fmt.Errorf("--timeout %s: want a positive duration (10s)", w.Timeout)
	case w.Duration <= 0:
		return vo, fmt.Errorf("--duration %s: want a positive duration (5s, 1m)", w.Duration)
	case vo.Algorithm != "HNSW" && vo.Algorithm != "FLAT":
		return vo, fmt.Errorf("--algorithm %q: want HNSW or FLAT", w.Algorithm)
	case w.M < 1 || w.M > 100 || w.EfConstruct < 1 || w.EfConstruct > 1000:
		return vo, errors.New("--m must be 1..100 and --ef-construct 1..1000 (Tair's ranges)")
	case w.Connections < 1 || w.LoadConnections < 1 || w.Batch < 1:
		return vo, errors.New("--connections, --load-connections and --batch must be at least 1")
	case w.Rate < 0 || w.Warmup < 0:
		return vo, errors.New("--rate and --warmup must not be negative")
	}
	vo.Duration, vo.Warmup = w.Duration, w.Warmup
	var err error
	if vo.Selectivities, err = shares(w.FilterSelectivity); err != nil {
		return vo, err
	}
	vo.Stream, err = w.streamCase()
	return vo, err
}

// sweepOf is the values an engine sweeping param runs: the flag named for
// it (--num-candidates for num_candidates, else --ef-search).
func sweepOf(param string, ef, nc []int) []int {
	if param == "num_candidates" {
		return nc
	}
	return ef
}

// sweeps reads --ef-search and --num-candidates.
func (w Words) sweeps() (ef, nc []int, err error) {
	if ef, err = intList("ef-search", w.EfSearch); err != nil {
		return nil, nil, err
	}
	if nc, err = intList("num-candidates", w.NumCandidates); err != nil {
		return nil, nil, err
	}
	for _, v := range ef {
		if v > 1000 {
			return nil, nil, fmt.Errorf("--ef-search %d: Tair takes 1..1000", v)
		}
	}
	return ef, nc, nil
}

// setup validates the words, starts the embedded server when asked and
// connects the engines; the caller closes them with done.
func (w Words) setup(ctx context.Context, io harness.IO) (vo Options, done func(), err error) {
	done = func() {}
	if vo, err = w.options(); err != nil {
		return vo, done, err
	}
	ef, nc, err := w.sweeps()
	if err != nil {
		return vo, done, err
	}
	server := w.Target(w.Server)
	tt := Targets{Index: w.Index, Connections: max(w.Connections, w.LoadConnections),
		ES: endpoint.Target{Addr: w.ES, Auth: w.ESAuth, Timeout: w.Timeout}}
	var closers []func()
	done = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	names, err := engines.ChooseVectors(w.Engines, w.ES)
	if err != nil {
		return vo, done, err
	}
	resolved := false // the RESP target, resolved for the first engine that needs it
	for _, n := range names {
		if d, err := engines.Vectors(n); err == nil && d.Reach == catalog.RESP && !resolved {
			resolved = true
			var stop func()
			if tt.Tair, stop, err = target.Resolve(io, server); err != nil {
				return vo, done, err
			}
			closers = append(closers, stop)
		}
		e, err := NewEngine(ctx, n, tt)
		if err != nil {
			return vo, done, err
		}
		closers = append(closers, func() { _ = e.Close() })
		vo.Engines = append(vo.Engines, Engine{Engine: e, Sweep: sweepOf(e.Param(), ef, nc)})
	}
	// Every engine is reached before any is loaded: an unreachable one
	// stops the run before the others' sweeps, not after them.
	for _, e := range vo.Engines {
		if err := e.Engine.Check(ctx); err != nil {
			return vo, done, err
		}
	}
	return vo, done, nil
}

// Main loads the data, connects the engines and runs the sweep; the
// result document goes to JSON. A failed run exits 3.
func Main(ctx context.Context, w Words, io harness.IO) error {
	if err := output.CheckPaths(w.JSON); err != nil {
		return err
	}
	w.Seed = harness.SeedOrNew(w.Seed)
	w.Data.Seed = w.Seed
	if _, err := w.options(); err != nil {
		return err
	}
	if w.DryRun {
		return w.dryRun(io, []planned{{desc: w.Data.describe(), algorithm: w.Algorithm}})
	}
	set, truth, err := w.Data.Load()
	if err != nil {
		return err
	}
	vo, done, err := w.setup(ctx, io)
	defer done()
	if err != nil {
		return err
	}
	vo.Set, vo.Truth = set, truth
	var doc *result.VectorBench
	err = w.Sinks.Run(ctx, io, func(ctx context.Context) error {
		var err error
		doc, err = Run(ctx, vo, io)
		return err
	})
	if doc != nil && w.JSON != "" {
		if werr := output.Publish(ctx, io, w.JSON, doc); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return harness.RunFailed(err)
	}
	return nil
}

// SuiteWords are 'tairbench vector suite': Words, the cases (a comma
// list; "" all whose data is present) and the folder of their results.
type SuiteWords struct {
	Words
	Cases   string
	JSONDir string
}

// SuiteMain runs the whitepaper's cases and writes each one's result as
// CASE.json in JSONDir.
func SuiteMain(ctx context.Context, w SuiteWords, io harness.IO) error {
	if w.JSON != "" {
		return fmt.Errorf("--json %s: the suite writes one result per case, give --json-dir DIR", w.JSON)
	}
	w.Seed = harness.SeedOrNew(w.Seed)
	so := SuiteOptions{Data: w.Data}
	if w.Cases != "" {
		so.Cases = strings.Split(w.Cases, ",")
		for _, c := range so.Cases {
			if !slices.ContainsFunc(Cases, func(k Case) bool { return k.Name == c }) {
				return fmt.Errorf("--cases: unknown case %q", c)
			}
		}
	}
	if w.DryRun {
		if _, err := w.options(); err != nil {
			return err
		}
		return w.dryRun(io, w.suiteData(so.Cases))
	}
	if w.JSONDir != "" {
		if err := os.MkdirAll(w.JSONDir, 0o755); err != nil {
			return fmt.Errorf("--json-dir: %w", err)
		}
	}
	vo, done, err := w.setup(ctx, io)
	defer done()
	if err != nil {
		return err
	}
	so.Options = vo
	var res *SuiteResult
	err = w.Sinks.Run(ctx, io, func(ctx context.Context) error {
		var err error
		res, err = RunSuite(ctx, so, io)
		return err
	})
	if w.JSONDir != "" && res != nil {
		for i, doc := range res.Docs {
			if doc == nil {
				continue
			}
			path := filepath.Join(w.JSONDir, res.Cases[i]+".json")
			if werr := output.Publish(ctx, io, path, doc); werr != nil && err == nil {
				err = werr
			}
		}
	}
	if err != nil {
		return harness.RunFailed(err)
	}
	return nil
}
