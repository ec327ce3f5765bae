package vectors

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tairbench/tairbench/internal/engine"
)

// The operations of a stream run, as Config.Operations lists them.
const (
	OpSearch = iota
	OpInsert
	OpProbe
)

// StreamOperations names the stream run's operations, by Op.
var StreamOperations = []string{"search", "insert", "probe"}

// Stream is a streaming case's workers: worker 0 inserts base vectors
// Start, Start+1, … (Batch a request) and publishes how many are
// acknowledged (one inserter, so always a prefix of the base); worker 1
// probes: it searches with the latest acknowledged vector itself as the
// query until the vector is among the hits, and keeps the delay from the
// insert's reply to that search's reply; the other workers send Requests in
// turn and keep a Record of each search. Records and delays are kept
// worker-local in space given before the run: none is allocated per request,
// and what does not fit is counted, not kept.
type Stream struct {
	Engine   Engine
	Rows     []float32
	Dims     int
	Start    int
	Batch    int
	Requests [][]byte
	// K and Param shape the probe's search; Keep is how many records each
	// searcher and the probe keep; ProbeTimeout ends a probe whose vector
	// is never found.
	K, Param     int
	Keep         int
	ProbeTimeout time.Duration
	// Tail is how long the searches and the probe go on after the last
	// insert's reply; then they stop, and the run ends.
	Tail time.Duration

	begin     time.Time
	next      atomic.Int64
	acked     atomic.Int64
	published atomic.Int64 // the latest entry of acks, -1 before any
	finished  atomic.Int64 // when the inserter ran out of vectors, after begin (0: not yet)
	acks      [64]struct{ id, at atomic.Int64 }
	mu        sync.Mutex // guards searchers and probe while workers are made
	searchers []*streamSearch
	probe     *streamProbe
}

// Record is one search of a stream run: query Query of Requests, sent
// when Acked base vectors had been acknowledged, At after the stream's
// start; IDs are its hits, nearest first. Its latency is the run's: the
// engine measures every request.
type Record struct {
	Query int
	Acked int
	At    time.Duration
	IDs   []uint32
}

// Begin readies the stream for a run starting now (the times of records
// and delays are from it).
func (f *Stream) Begin() {
	f.begin = time.Now()
	f.finished.Store(0)
	f.next.Store(int64(f.Start))
	f.acked.Store(int64(f.Start))
	f.published.Store(-1)
}

// Began is when the stream began (Begin): the records' times are from it.
func (f *Stream) Began() time.Time { return f.begin }

// over says whether the tail after the last insert has passed.
func (f *Stream) over() bool {
	t := f.finished.Load()
	return t > 0 && time.Since(f.begin) > time.Duration(t)+f.Tail
}

// LastAck is when the latest insert's reply came, after the stream's start
// (0 before any).
func (f *Stream) LastAck() time.Duration {
	i := f.published.Load()
	if i < 0 {
		return 0
	}
	return time.Duration(f.acks[i%int64(len(f.acks))].at.Load())
}

// Acked is how many base vectors had been acknowledged when asked.
func (f *Stream) Acked() int { return int(f.acked.Load()) }

// NewWorker implements engine.Factory.
func (f *Stream) NewWorker(ctx context.Context, id int, _ uint64) (engine.Worker, error) {
	c, err := f.Engine.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch id {
	case 0:
		return &streamInsert{f: f, c: c}, nil
	case 1:
		f.probe = &streamProbe{f: f, c: c, target: -1, last: -1, delays: make([]time.Duration, 0, f.Keep)}
		return f.probe, nil
	}
	w := &streamSearch{f: f, c: c, next: (id - 2) % len(f.Requests), ids: make([]uint32, 0, 4*f.K+16),
		recs: make([]Record, 0, f.Keep), flat: make([]uint32, 0, f.Keep*f.K)}
	f.searchers = append(f.searchers, w)
	return w, nil
}

// Records are every searcher's records, and how many searches were not
// kept for want of room. Read them once the run is over.
func (f *Stream) Records() (recs []Record, dropped int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range f.searchers {
		recs = append(recs, w.recs...)
		dropped += w.dropped
	}
	slices.SortFunc(recs, func(a, b Record) int { return int(a.At - b.At) })
	return recs, dropped
}

// Visibility is the probe's account: the delays from an insert's reply to
// the reply of the first search that found the vector, the vectors never
// found within ProbeTimeout, and delays not kept for want of room.
func (f *Stream) Visibility() (delays []time.Duration, notFound, dropped int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.probe == nil {
		return nil, 0, 0
	}
	return f.probe.delays, f.probe.notFound, f.probe.dropped
}

type streamInsert struct {
	f      *Stream
	c      Client
	req    []byte
	first  int
	n      int
	errBuf []byte
}

func (w *streamInsert) Prepare() {
	total := len(w.f.Rows) / w.f.Dims
	b := int64(max(w.f.Batch, 1))
	w.first = int(w.f.next.Add(b) - b)
	w.n = max(min(int(b), total-w.first), 0)
	if w.n > 0 {
		w.req = w.f.Engine.EncodeInsert(w.req[:0], w.first, w.f.Rows[w.first*w.f.Dims:(w.first+w.n)*w.f.Dims], w.f.Dims, "", nil)
	}
}

func (w *streamInsert) Exec(ctx context.Context, s *engine.Step) error {
	if w.n == 0 {
		w.f.finished.Store(int64(max(time.Since(w.f.begin), 1)))
		return engine.ErrDone
	}
	s.Op = OpInsert
	if all, err := insert(ctx, w.c, w.req, w.n, s, &w.errBuf); !all {
		return err
	}
	// Publish the batch's last vector and when its reply came, then the
	// acknowledged count: the probe reads the entry after its index.
	i := w.f.published.Load() + 1
	e := &w.f.acks[i%int64(len(w.f.acks))]
	e.id.Store(int64(w.first + w.n - 1))
	e.at.Store(int64(time.Since(w.f.begin)))
	w.f.published.Store(i)
	w.f.acked.Store(int64(w.first + w.n))
	return nil
}

func (w *streamInsert) YieldTo(yield func(time.Time) time.Time) { w.c.YieldTo(yield) }
func (w *streamInsert) Close() error                            { return w.c.Close() }

type streamSearch struct {
	f       *Stream
	c       Client
	next    int
	q       int
	ids     []uint32
	recs    []Record
	flat    []uint32
	dropped int
	errBuf  []byte
}

func (w *streamSearch) Prepare() {
	w.q = w.next
	w.next = (w.next + 1) % len(w.f.Requests)
}

func (w *streamSearch) Exec(ctx context.Context, s *engine.Step) error {
	if w.f.over() {
		return engine.ErrDone
	}
	s.Op, s.Ops = OpSearch, 1
	acked := w.f.acked.Load()
	sent := time.Now()
	var err error
	w.ids, err = w.c.Search(ctx, w.f.Requests[w.q], w.ids[:0])
	if err != nil {
		return s.Refused(err, &w.errBuf)
	}
	if len(w.recs) == cap(w.recs) || len(w.flat)+len(w.ids) > cap(w.flat) {
		w.dropped++
		return nil
	}
	start := len(w.flat)
	w.flat = append(w.flat, w.ids...)
	w.recs = append(w.recs, Record{Query: w.q, Acked: int(acked), At: sent.Sub(w.f.begin),
		IDs: w.flat[start:len(w.flat):len(w.flat)]})
	return nil
}

func (w *streamSearch) YieldTo(yield func(time.Time) time.Time) { w.c.YieldTo(yield) }
func (w *streamSearch) Close() error                            { return w.c.Close() }

type streamProbe struct {
	f        *Stream
	c        Client
	req      []byte
	ids      []uint32
	target   int64 // the vector sought, -1 when none
	last     int64 // the last one sought: not sought again
	targetAt time.Duration
	delays   []time.Duration
	notFound int
	dropped  int
	errBuf   []byte
}

// Prepare takes the latest acknowledged vector as the target when the
// last one was found or given up.
func (w *streamProbe) Prepare() {
	if w.target >= 0 {
		return
	}
	i := w.f.published.Load()
	if i < 0 {
		return
	}
	e := &w.f.acks[i%int64(len(w.f.acks))]
	id := e.id.Load()
	if id == w.last {
		return // no vector acknowledged since: the request stays the last one's, and counts nothing
	}
	w.target, w.targetAt = id, time.Duration(e.at.Load())
	row := w.f.Rows[int(w.target)*w.f.Dims : int(w.target+1)*w.f.Dims]
	w.req = w.f.Engine.EncodeSearch(w.req[:0], row, w.f.K, w.f.Param, Filter{})
}

func (w *streamProbe) Exec(ctx context.Context, s *engine.Step) error {
	if w.f.over() {
		return engine.ErrDone
	}
	s.Op, s.Ops = OpProbe, 1
	if len(w.req) == 0 { // nothing inserted yet: the request is the first query
		w.req = append(w.req, w.f.Requests[0]...)
	}
	var err error
	w.ids, err = w.c.Search(ctx, w.req, w.ids[:0])
	if err != nil {
		return s.Refused(err, &w.errBuf)
	}
	if w.target < 0 {
		return nil
	}
	now := time.Since(w.f.begin)
	switch {
	case slices.Contains(w.ids, uint32(w.target)):
		if len(w.delays) < cap(w.delays) {
			w.delays = append(w.delays, now-w.targetAt)
		} else {
			w.dropped++
		}
		w.last, w.target = w.target, -1
	case now-w.targetAt > w.f.ProbeTimeout:
		w.notFound++
		w.last, w.target = w.target, -1
	}
	return nil
}

func (w *streamProbe) YieldTo(yield func(time.Time) time.Time) { w.c.YieldTo(yield) }
func (w *streamProbe) Close() error                            { return w.c.Close() }
