package fts

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/wiki"
)

// DocSource hands documents from a reader to workers in chunks, so that the
// lock is taken once per chunk, not once per request.
type DocSource struct {
	mu    sync.Mutex
	r     *wiki.Reader
	limit int64
	read  int64
	err   error
}

// NewDocSource reads at most limit documents (0: all) from r.
func NewDocSource(r *wiki.Reader, limit int64) *DocSource { return &DocSource{r: r, limit: limit} }

const chunk = 256

func (s *DocSource) take(dst []wiki.Doc) []wiki.Doc {
	s.mu.Lock()
	defer s.mu.Unlock()
	dst = dst[:0]
	for len(dst) < chunk && s.err == nil && (s.limit == 0 || s.read < s.limit) {
		var d wiki.Doc
		if err := s.r.Next(&d); err != nil {
			if !errors.Is(err, io.EOF) {
				s.err = err
			} else {
				s.err = io.EOF
			}
			break
		}
		s.read++
		dst = append(dst, d)
	}
	return dst
}

// Err returns the reader's error, if the input was malformed.
func (s *DocSource) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if errors.Is(s.err, io.EOF) {
		return nil
	}
	return s.err
}

// Read returns how many documents were handed out.
func (s *DocSource) Read() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read
}

// EncodedSource hands out encoded documents (a track's corpus): up to
// len(dst)'s capacity at a time, none once it is done.
type EncodedSource interface {
	TakeEncoded(dst []Encoded) []Encoded
}

// WriteFactory makes ingest workers: each request writes one document, or
// Bulk documents in one bulk request. The documents come from Source (the
// whitepaper's dump) or Encoded.
type WriteFactory struct {
	Engine  Engine
	Source  *DocSource
	Encoded EncodedSource
	Bulk    int
}

// NewWorker implements engine.Factory.
func (f *WriteFactory) NewWorker(ctx context.Context, _ int, _ uint64) (engine.Worker, error) {
	c, err := f.Engine.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	return &writeWorker{f: f, c: c}, nil
}

type writeWorker struct {
	f      *WriteFactory
	c      Client
	local  []wiki.Doc
	pos    int
	enc    []Encoded // Encoded's chunk
	batch  []Encoded
	errBuf []byte
}

func (w *writeWorker) Prepare() {
	n := max(w.f.Bulk, 1)
	w.batch = w.batch[:0]
	if w.f.Encoded != nil {
		for len(w.batch) < n {
			if w.pos == len(w.enc) {
				if w.enc == nil {
					w.enc = make([]Encoded, 0, max(chunk, n))
				}
				w.enc, w.pos = w.f.Encoded.TakeEncoded(w.enc[:0]), 0
				if len(w.enc) == 0 {
					return
				}
			}
			w.batch = append(w.batch, w.enc[w.pos])
			w.pos++
		}
		return
	}
	for len(w.batch) < n {
		if w.pos == len(w.local) {
			w.local, w.pos = w.f.Source.take(w.local), 0
			if len(w.local) == 0 {
				return
			}
		}
		w.batch = append(w.batch, Encode(w.local[w.pos]))
		w.pos++
	}
}

func (w *writeWorker) Exec(ctx context.Context, s *engine.Step) error {
	if len(w.batch) == 0 {
		return engine.ErrDone
	}
	failed, reason, err := w.c.Write(ctx, w.batch, w.f.Bulk > 1)
	if err != nil {
		s.Lost = len(w.batch) // the documents the lost bulk held, not the bulk size
		return err
	}
	s.Ops, s.Failed = len(w.batch), failed
	if failed > 0 {
		if reason == "" {
			reason = "document rejected (the engine gave no reason)"
		}
		w.errBuf = append(w.errBuf[:0], reason...)
		s.Err = w.errBuf
	}
	return nil
}

// YieldTo implements engine.Yielder.
func (w *writeWorker) YieldTo(yield func(time.Time) time.Time) { w.c.YieldTo(yield) }

func (w *writeWorker) Close() error { return w.c.Close() }

// SearchFactory makes query workers.
type SearchFactory struct {
	Engine Engine
	Query  []byte
	Cache  bool
}

// NewWorker implements engine.Factory.
func (f *SearchFactory) NewWorker(ctx context.Context, _ int, _ uint64) (engine.Worker, error) {
	c, err := f.Engine.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	return &searchWorker{f: f, c: c}, nil
}

type searchWorker struct {
	f      *SearchFactory
	c      Client
	errBuf []byte
}

func (w *searchWorker) Prepare() {}

func (w *searchWorker) Exec(ctx context.Context, s *engine.Step) error {
	s.Ops = 1
	n, err := w.c.Search(ctx, w.f.Query, w.f.Cache)
	if err != nil {
		return s.Refused(err, &w.errBuf)
	}
	if n == 0 {
		s.Misses = 1
	}
	return nil
}

// YieldTo implements engine.Yielder.
func (w *searchWorker) YieldTo(yield func(time.Time) time.Time) { w.c.YieldTo(yield) }

func (w *searchWorker) Close() error { return w.c.Close() }
