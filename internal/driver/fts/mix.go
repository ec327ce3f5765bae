package fts

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/tairbench/tairbench/internal/engine"
)

// MixTemplate is one weighted query of a mix; Expand appends a query with
// its parameters drawn by r (outside the timed request).
type MixTemplate struct {
	Name   string
	Weight int
	Expand func(dst []byte, r *rand.Rand) []byte
}

// MixFactory makes the workers of a query mix: each request is one query
// of a template drawn by weight (Step.Op is its index). With Write set,
// the first Writers workers ingest instead, as operation len(Templates).
type MixFactory struct {
	Engine    Engine
	Templates []MixTemplate
	Cache     bool
	Write     *WriteFactory
	Writers   int

	mu sync.Mutex
	// hits and replies are the total hits and the replies counted per
	// template, merged from the workers as they close.
	hits, replies []int64
}

// Hits returns the mean total hits per reply of each template (NaN-free: 0
// for a template that got no reply).
func (f *MixFactory) Hits() []float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]float64, len(f.Templates))
	for i := range out {
		if i < len(f.replies) && f.replies[i] > 0 {
			out[i] = float64(f.hits[i]) / float64(f.replies[i])
		}
	}
	return out
}

// NewWorker implements engine.Factory.
func (f *MixFactory) NewWorker(ctx context.Context, id int, seed uint64) (engine.Worker, error) {
	if f.Write != nil && id < f.Writers {
		w, err := f.Write.NewWorker(ctx, id, seed)
		if err != nil {
			return nil, err
		}
		return &opWorker{Worker: w, op: len(f.Templates)}, nil
	}
	c, err := f.Engine.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	w := &mixWorker{f: f, c: c, r: rand.New(rand.NewPCG(seed, 0x6d6978)),
		hits: make([]int64, len(f.Templates)), replies: make([]int64, len(f.Templates))}
	for _, t := range f.Templates {
		w.total += max(t.Weight, 1)
		w.cum = append(w.cum, w.total)
	}
	return w, nil
}

// opWorker marks its worker's requests as one operation type.
type opWorker struct {
	engine.Worker
	op int
}

// YieldTo implements engine.Yielder for the worker it marks.
func (w *opWorker) YieldTo(yield func(time.Time) time.Time) {
	if y, ok := w.Worker.(engine.Yielder); ok {
		y.YieldTo(yield)
	}
}

func (w *opWorker) Exec(ctx context.Context, s *engine.Step) error {
	s.Op = w.op
	return w.Worker.Exec(ctx, s)
}

type mixWorker struct {
	f             *MixFactory
	c             Client
	r             *rand.Rand
	cum           []int
	total         int
	op            int
	buf, errBuf   []byte
	hits, replies []int64
}

func (w *mixWorker) Prepare() {
	x := w.r.IntN(w.total)
	w.op = 0
	for w.cum[w.op] <= x {
		w.op++
	}
	w.buf = w.f.Templates[w.op].Expand(w.buf[:0], w.r)
}

func (w *mixWorker) Exec(ctx context.Context, s *engine.Step) error {
	s.Ops, s.Op = 1, w.op
	n, err := w.c.Search(ctx, w.buf, w.f.Cache)
	if err != nil {
		return s.Refused(err, &w.errBuf)
	}
	if n == 0 {
		s.Misses = 1
	}
	if n > 0 {
		w.hits[w.op] += n
	}
	w.replies[w.op]++
	return nil
}

// YieldTo implements engine.Yielder.
func (w *mixWorker) YieldTo(yield func(time.Time) time.Time) { w.c.YieldTo(yield) }

func (w *mixWorker) Close() error {
	w.f.mu.Lock()
	if w.f.hits == nil {
		w.f.hits, w.f.replies = make([]int64, len(w.f.Templates)), make([]int64, len(w.f.Templates))
	}
	for i := range w.hits {
		w.f.hits[i] += w.hits[i]
		w.f.replies[i] += w.replies[i]
	}
	w.f.mu.Unlock()
	return w.c.Close()
}
