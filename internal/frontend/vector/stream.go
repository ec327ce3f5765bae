package vector

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/tairbench/tairbench/internal/driver/vectors"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/pkg/result"
)

// StreamCase is the streaming case: the first Initial share of the base
// is loaded, then the rest is inserted at InsertRate vectors/s while the
// queries are searched at SearchRate/s, Tail longer than the inserts take.
type StreamCase struct {
	Initial                float64
	InsertRate, SearchRate float64
	Tail                   time.Duration
}

// The stream's fixed shape: vectors per insert request, the queries it
// cycles through (at most), the probe's rate and how long it seeks a
// vector, and the windows the stream is cut into.
const (
	streamBatch      = 10
	streamQueries    = 200
	probeRate        = 50.0
	probeGiveUp      = 30 * time.Second
	streamKeepMargin = 1.5
	streamCap        = 4
	// streamKeepMax bounds the searches kept for scoring in one stream
	// (their hits take K ids each).
	streamKeepMax = 1 << 20
)

// initialVectors is how many base vectors are loaded before the stream.
func (o *Options) initialVectors() int {
	if o.Stream == nil {
		return o.Set.N()
	}
	return max(1, int(o.Stream.Initial*float64(o.Set.N())))
}

// stream runs the streaming case on an engine holding the initial vectors.
func (o *Options) stream(ctx context.Context, en vectors.Engine, param int, io harness.IO) (*result.VectorStream, error) {
	sc := o.Stream
	if err := en.Live(ctx); err != nil {
		return nil, err
	}
	start, n := o.initialVectors(), o.Set.N()
	reqs := make([][]byte, min(o.Set.NQ(), streamQueries))
	for i := range reqs {
		reqs[i] = en.EncodeSearch(nil, o.Set.Query(i), o.K, param, vectors.Filter{})
	}
	// The run ends Tail after the last insert; it is cut at four times the
	// planned inserting time should the engine not keep up.
	planned := time.Duration(float64(n-start) / sc.InsertRate * float64(time.Second))
	dur := streamCap*planned + sc.Tail
	searchers := max(o.Connections, 1)
	keep := int(sc.SearchRate*(planned+sc.Tail).Seconds()/float64(searchers)*streamKeepMargin) + 100
	keep = min(keep, streamKeepMax/searchers) // memory bounded: later searches are timed, counted, not scored
	f := &vectors.Stream{Engine: en, Rows: o.Set.Train, Dims: o.Set.Dims, Start: start, Batch: streamBatch, Requests: reqs,
		K: o.K, Param: param, Keep: keep, ProbeTimeout: probeGiveUp, Tail: sc.Tail}
	cfg := engine.Config{Workers: 2 + searchers, Duration: dur, Seed: o.Seed, GiveUp: GiveUp, Operations: vectors.StreamOperations,
		Rate: sc.InsertRate/streamBatch + probeRate + sc.SearchRate,
		Pacers: func(id, workers int, seed uint64, end time.Duration) engine.Pacer {
			switch id {
			case 0:
				return engine.NewPacer(sc.InsertRate/streamBatch, 1, 0, false, seed, end)
			case 1:
				return engine.NewPacer(probeRate, 1, 0, false, seed, end)
			}
			return engine.NewPacer(sc.SearchRate, workers-2, id-2, false, seed, end)
		}}
	label := "-"
	if param > 0 {
		label = fmt.Sprintf("%s=%d", en.Param(), param)
	}
	spec := run.Spec{Name: en.Name() + " stream", Version: io.Version, Engine: cfg, Factory: f,
		Command: fmt.Sprintf("insert %d vectors at %.0f/s while searching k=%d %s at %.0f/s", n-start, sc.InsertRate, o.K, label, sc.SearchRate),
		Config:  o.runConfig(en, "streaming: inserts, searches and a visibility probe, each on its own schedule")}
	for _, op := range vectors.StreamOperations {
		spec.Operations = append(spec.Operations, result.Operation{Name: op})
	}
	o.watch(&spec, en)
	fmt.Fprintf(io.Err, "%s: streaming %d vectors at %.0f/s while searching at %.0f/s for %s\n", en.Name(), n-start,
		sc.InsertRate, sc.SearchRate, (planned + sc.Tail).Round(time.Second))
	f.Begin()
	r, err := runChecked(ctx, spec, "requests")
	vs := &result.VectorStream{InitialVectors: start, InsertRate: sc.InsertRate, SearchRate: sc.SearchRate, Batch: streamBatch,
		Param: param, Inserted: f.Acked() - start, Run: r}
	if last := f.LastAck(); last > 0 {
		vs.InsertedPerSec = float64(vs.Inserted) / last.Seconds()
	}
	if err == nil && vs.Inserted < n-start {
		err = fmt.Errorf("the stream was cut at %s with %d of %d vectors inserted: the engine did not keep up with %.0f/s",
			dur.Round(time.Second), vs.Inserted, n-start, sc.InsertRate)
	}
	if err != nil {
		return vs, err
	}
	recs, unkept := f.Records()
	vs.Unkept = unkept
	vs.Windows = o.streamWindows(recs, f.Began(), r)
	delays, notFound, _ := f.Visibility()
	vs.Visible = visibility(delays, notFound)
	return vs, nil
}

// streamWindows is the stream second by second, as the run's own series
// has it: the searches the engine counted and their latency from the send,
// with the vectors acknowledged by then and the mean recall of the searches
// scored in that second (each against the exact nearest of the vectors
// acknowledged when it was sent). began is when the records' times start.
func (o *Options) streamWindows(recs []vectors.Record, began time.Time, r *result.Run) []result.StreamWindow {
	out := make([]result.StreamWindow, len(r.Series))
	at := map[int]int{} // a second → its row
	for i, iv := range r.Series {
		out[i].FromS, out[i].ToS = float64(iv.Second), float64(iv.Second+1)
		at[iv.Second] = i
		for _, op := range iv.Operations {
			if op.Name == vectors.StreamOperations[vectors.OpSearch] {
				out[i].Searches = op.Ops
				out[i].P50US, out[i].P99US = deref(op.P50US), deref(op.P99US)
			}
		}
	}
	recall := o.streamRecall(recs)
	offset := began.Sub(r.StartedAt)
	for i, rec := range recs {
		row, ok := at[int((rec.At+offset)/time.Second)]
		if !ok {
			continue
		}
		out[row].Scored++
		out[row].Recall += recall[i]
		out[row].IndexVectors = max(out[row].IndexVectors, rec.Acked)
	}
	for i := range out {
		if out[i].Scored > 0 {
			out[i].Recall /= float64(out[i].Scored)
		}
		if i > 0 { // a second with no scored search holds what the one before it did
			out[i].IndexVectors = max(out[i].IndexVectors, out[i-1].IndexVectors)
		}
	}
	return out
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// streamRecall is each record's recall@k against the exact nearest of the
// vectors acknowledged when it was sent; each query's base is scanned once,
// the queries shared out over every core.
func (o *Options) streamRecall(recs []vectors.Record) []float64 {
	byQuery := map[int][]int{} // query → its records
	for i, r := range recs {
		byQuery[r.Query] = append(byQuery[r.Query], i)
	}
	out := make([]float64, len(recs))
	queries := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range queries {
				idx := byQuery[q]
				slices.SortFunc(idx, func(a, b int) int { return recs[a].Acked - recs[b].Acked })
				prefixes := make([]int, len(idx))
				for j, i := range idx {
					prefixes[j] = recs[i].Acked
				}
				nearest := o.Set.PrefixNearest(q, o.K, prefixes)
				for j, i := range idx {
					out[i] = o.Set.RecallAgainst(q, nearest[j], recs[i].IDs, o.K)
				}
			}
		}()
	}
	for q := range byQuery {
		queries <- q
	}
	close(queries)
	wg.Wait()
	return out
}

func visibility(delays []time.Duration, notFound int) result.StreamVisibility {
	v := result.StreamVisibility{Found: len(delays), NotFound: notFound, ResolutionMS: 1000 / probeRate, GiveUpS: probeGiveUp.Seconds()}
	if len(delays) == 0 {
		return v
	}
	s := slices.Clone(delays)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	v.P50MS, v.P99MS, v.MaxMS = ms(quantile(s, 0.5)), ms(quantile(s, 0.99)), ms(s[len(s)-1])
	return v
}

// quantile is the q-quantile of sorted durations (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
