// Package bitmap is 'tairbench bitmap compare': the user's IDs (or
// generated ones of a chosen shape) loaded as TairRoaring bitmaps, Redis
// bitmaps and Redis sets, their memory side by side, the same questions
// asked of each with the answers cross-checked, each timed through the
// engine, over a sweep of cardinalities with the crossover points.
package bitmap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	rb "github.com/RoaringBitmap/roaring/v2"

	"github.com/tairbench/tairbench/internal/driver/bitmaps"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/pkg/result"
)

// Options are 'tairbench bitmap compare'.
type Options struct {
	// Roaring holds the TairRoaring keys, Redis the Redis bitmaps and sets.
	Roaring, Redis endpoint.Target
	// Structures and Ops select what is compared (empty: all).
	Structures, Ops []string
	// Sets are the user's sets (files or keys already read); when empty,
	// Gen with each of Cardinalities makes the sweep's points.
	Sets          []IDSet
	Data          string
	Gen           GenSpec
	Cardinalities []uint64
	// Keys per point (generated data) and SizeSkew: key i holds
	// cardinality / (i+1)^SizeSkew IDs (0: all alike; 1: a power law).
	Keys     int
	SizeSkew float64
	// Connections and Duration are each timed run; Rate > 0 adds an
	// open-loop run at that rate.
	Connections int
	Duration    time.Duration
	Rate        float64
	// Probes is how many answers each operation's cross-check compares.
	Probes int
	// MaxMemory refuses a plan above it (bytes, all structures together).
	MaxMemory uint64
	// PlanOnly prints the plan and stops before loading.
	PlanOnly bool
	Seed     uint64
	JSON     string
	// ServerStats samples each target's INFO during every timed run.
	ServerStats bool
}

// keyPrefix names every key the comparison writes.
const keyPrefix = "tairbench:bitmap"

// point is one sweep point as the client holds it.
type point struct {
	card, universe uint64
	sets           []IDSet
}

// Run loads each point into every structure, checks and times the
// operations, prints the tables and the crossovers, and writes the result.
func Run(ctx context.Context, o Options, io harness.IO) (*result.BitmapComparison, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if err := output.CheckPaths(o.JSON); err != nil {
		return nil, err
	}
	points, err := o.points(io.Err)
	if err != nil {
		return nil, err
	}
	doc := o.document(io.Version)
	plans := make([][]result.BitmapPlannedLoad, len(points))
	for i, p := range points {
		plans[i] = plan(p, o.Structures)
		writePlan(io.Err, i+1, p, plans[i])
	}
	est := o.estimateTime(points)
	fmt.Fprintf(io.Err, "estimate: %s (call times as a 2-core machine measured them)\n", est)
	if why := o.overLimit(points, plans); why != "" {
		return nil, errors.New(why)
	}
	if o.PlanOnly {
		fmt.Fprintln(io.Err, "plan only (--plan): nothing loaded")
		return doc, nil
	}
	started := time.Now()
	defer func() {
		fmt.Fprintf(io.Err, "took %s, estimated %s\n", harness.Round(time.Since(started)), harness.Round(est.total()))
	}()
	stores, err := o.open(ctx, doc)
	if err != nil {
		return nil, err
	}
	defer closeAll(stores)
	out := output.SummaryTo(io, o.JSON)
	writeTargets(out, doc)
	var runErr error
	for i, p := range points {
		pr, err := o.runPoint(ctx, io, stores, p)
		pr.Plan = plans[i]
		doc.Points = append(doc.Points, pr)
		writePoint(out, i+1, &doc.Points[len(doc.Points)-1], o.Connections)
		if err != nil {
			runErr = err
			break
		}
	}
	clearAll(context.WithoutCancel(ctx), stores, o.maxKeys(points))
	doc.Warnings = append(doc.Warnings, o.warnings(doc)...)
	writeSweep(out, doc)
	if werr := output.Publish(ctx, io, o.JSON, doc); werr != nil {
		return doc, werr
	}
	if runErr != nil {
		return doc, harness.RunFailed(runErr)
	}
	return doc, nil
}

func (o *Options) validate() error {
	if len(o.Structures) == 0 {
		o.Structures = bitmaps.Structures
	}
	for _, s := range o.Structures {
		if !slices.Contains(bitmaps.Structures, s) {
			return fmt.Errorf("unknown structure %q (%s)", s, strings.Join(bitmaps.Structures, ", "))
		}
	}
	if len(o.Ops) == 0 {
		for _, op := range bitmaps.Ops {
			o.Ops = append(o.Ops, op.Name)
		}
	}
	for _, name := range o.Ops {
		if _, ok := bitmaps.OpByName(name); !ok {
			return fmt.Errorf("unknown operation %q (%s)", name, strings.Join(opNames(), ", "))
		}
	}
	// The table's order: add, which changes the keys, runs last.
	o.Ops = slices.DeleteFunc(opNames(), func(n string) bool { return !slices.Contains(o.Ops, n) })
	switch {
	case o.Connections < 1:
		return errors.New("connections must be at least 1")
	case o.Duration <= 0:
		return errors.New("the duration of each timed run must be above 0")
	case o.Rate < 0:
		return errors.New("the open-loop rate must not be negative")
	case o.Probes < 1:
		return errors.New("probes must be at least 1")
	case len(o.Sets) == 0 && len(o.Cardinalities) == 0:
		return errors.New("no data: give IDs (files or keys) or cardinalities to generate")
	case len(o.Sets) == 0 && o.Keys < 1:
		return errors.New("keys must be at least 1")
	case o.SizeSkew < 0:
		return errors.New("the size skew must not be negative")
	}
	return nil
}

func opNames() []string {
	var out []string
	for _, op := range bitmaps.Ops {
		out = append(out, op.Name)
	}
	return out
}

// points builds the sweep: the user's sets as one point, or one point per
// cardinality of generated keys.
func (o *Options) points(log io.Writer) ([]point, error) {
	if len(o.Sets) > 0 {
		var mx uint64
		for _, s := range o.Sets {
			if s.IDs.IsEmpty() {
				return nil, fmt.Errorf("%s holds no IDs", s.Source)
			}
			mx = max(mx, uint64(s.IDs.Maximum()))
		}
		return []point{{card: o.Sets[0].IDs.GetCardinality(), universe: mx + 1, sets: o.Sets}}, nil
	}
	var pts []point
	for pi, c := range o.Cardinalities {
		p := point{card: c, universe: o.Gen.Universe}
		err := withProgress(log, fmt.Sprintf("point %d: %d keys of up to %d IDs below %d (%s)", pi+1, o.Keys, c, o.Gen.Universe, o.Gen.Shape), func() error {
			for k := 0; k < o.Keys; k++ {
				g := o.Gen
				g.Cardinality = max(1, uint64(math.Round(float64(c)/math.Pow(float64(k+1), o.SizeSkew))))
				g.Seed = o.Seed + uint64(pi)*1000 + uint64(k)
				bm, err := Generate(g)
				if err != nil {
					return fmt.Errorf("point %d key %d: %w", pi+1, k, err)
				}
				p.sets = append(p.sets, IDSet{Source: fmt.Sprintf("generated: %s, seed %d", g.Describe(), g.Seed), IDs: bm, Read: bm.GetCardinality()})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		pts = append(pts, p)
	}
	return pts, nil
}

// withProgress runs fn, saying what it does at once and how long it has
// taken at least once a second until it returns.
func withProgress(w io.Writer, what string, fn func() error) error {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		generating(w, what, done)
		close(finished)
	}()
	err := fn()
	close(done)
	<-finished
	return err
}

func (o *Options) maxKeys(points []point) int {
	n := 0
	for _, p := range points {
		n = max(n, len(p.sets))
	}
	return n
}

func (o *Options) document(version string) *result.BitmapComparison {
	doc := &result.BitmapComparison{Header: result.NewHeader(result.SchemaBitmap, version), Warnings: []string{}}
	doc.Config = result.BitmapConfig{Targets: map[string]result.Target{}, Structures: o.Structures, Operations: o.Ops,
		Data: o.Data, Seed: o.Seed, Connections: o.Connections, DurationS: o.Duration.Seconds(), OpenLoopRate: o.Rate, MaxMemory: o.MaxMemory}
	if len(o.Sets) == 0 {
		doc.Config.Data, doc.Config.Shape = "generated", o.Gen.Shape
	}
	return doc
}

// open connects every structure's store and records who each target is.
func (o *Options) open(ctx context.Context, doc *result.BitmapComparison) (map[string]*bitmaps.Store, error) {
	stores := map[string]*bitmaps.Store{}
	for _, s := range o.Structures {
		t := o.Redis
		if s == bitmaps.TairRoaring {
			t = o.Roaring
		}
		st, err := bitmaps.Open(ctx, s, t, keyPrefix)
		if err != nil {
			closeAll(stores)
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		stores[s] = st
		rt := t.Result()
		rt.Server, _ = target.Identify(ctx, t)
		doc.Config.Targets[s] = *rt
	}
	return stores, nil
}

func closeAll(stores map[string]*bitmaps.Store) {
	for _, s := range stores {
		_ = s.Close()
	}
}

func clearAll(ctx context.Context, stores map[string]*bitmaps.Store, keys int) {
	for _, s := range stores {
		_ = s.Clear(ctx, keys)
	}
}

// runPoint loads, measures, cross-checks and times one point.
func (o *Options) runPoint(ctx context.Context, io harness.IO, stores map[string]*bitmaps.Store, p point) (result.BitmapPoint, error) {
	pr := result.BitmapPoint{Cardinality: p.card, Universe: p.universe}
	for _, s := range p.sets {
		pr.Keys = append(pr.Keys, result.BitmapKey{Source: s.Source, Cardinality: s.IDs.GetCardinality(),
			Min: s.IDs.Minimum(), Max: s.IDs.Maximum(), Duplicates: s.Duplicates})
	}
	for _, name := range o.Structures {
		st, err := loadStructure(ctx, io, stores[name], p)
		pr.Structures = append(pr.Structures, st)
		if err != nil {
			return pr, fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, name := range o.Ops {
		op, _ := bitmaps.OpByName(name)
		cc, slowest, err := crosscheck(ctx, o, stores, p, op)
		pr.Crosscheck = append(pr.Crosscheck, cc)
		if err != nil {
			return pr, err
		}
		res, err := o.timeOp(ctx, io, stores, p, op, slowest)
		pr.Operations = append(pr.Operations, res)
		if err != nil {
			return pr, err
		}
	}
	return pr, nil
}

// loadStructure clears the structure's keys, loads every set, and reads
// what they take and one full iteration of the first.
func loadStructure(ctx context.Context, io harness.IO, s *bitmaps.Store, p point) (result.BitmapStructure, error) {
	st := result.BitmapStructure{Name: s.Kind, Target: s.Target.Addr}
	if err := s.Clear(ctx, len(p.sets)); err != nil {
		return st, err
	}
	before, err := s.UsedMemory(ctx)
	if err != nil {
		return st, err
	}
	for i, set := range p.sets {
		ls, err := s.Load(ctx, i, set.IDs)
		st.LoadCommands += ls.Commands
		st.LoadSeconds += ls.Elapsed.Seconds()
		if err != nil {
			return st, fmt.Errorf("load stopped, the comparison with it: %w", err)
		}
	}
	fmt.Fprintf(io.Err, "loaded %-12s %d keys, %d IDs in %d commands, %.2f s (%.0f IDs/s)\n", s.Kind, len(p.sets),
		totalIDs(p), st.LoadCommands, st.LoadSeconds, float64(totalIDs(p))/max(st.LoadSeconds, 1e-9))
	after, err := s.UsedMemory(ctx)
	if err != nil {
		return st, err
	}
	st.UsedMemoryDelta = after - before
	for i := range p.sets {
		if err := measureKey(ctx, s, s.Key(i), &st); err != nil {
			return st, err
		}
	}
	got := rb.New()
	n, took, err := s.Iterate(ctx, s.Key(0), func(v uint32) { got.Add(v) })
	st.IterateMembers, st.IterateSeconds = n, took.Seconds()
	if err != nil {
		return st, err
	}
	if !got.Equals(p.sets[0].IDs) {
		return st, fmt.Errorf("reading %s back gave %d IDs, %d of them not loaded, where %d were loaded", s.Key(0),
			got.GetCardinality(), rb.AndNot(got, p.sets[0].IDs).GetCardinality(), p.sets[0].IDs.GetCardinality())
	}
	return st, nil
}

func measureKey(ctx context.Context, s *bitmaps.Store, key string, st *result.BitmapStructure) error {
	mem, err := s.Memory(ctx, key)
	if err != nil {
		return err
	}
	data, err := s.DataBytes(ctx, key)
	if err != nil {
		return err
	}
	st.MemoryBytes += mem
	st.KeyBytes = append(st.KeyBytes, mem)
	st.DataBytes += data
	if enc := s.Encoding(ctx, key); enc != "" {
		st.Encodings = append(st.Encodings, enc)
	}
	return nil
}

func totalIDs(p point) uint64 {
	var n uint64
	for _, s := range p.sets {
		n += s.IDs.GetCardinality()
	}
	return n
}
