// Package resultset works on saved results: it merges the results of clients
// that ran one workload at the same time, and compares two results,
// marking the differences that exceed the run-to-run noise.
package resultset

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// Merge sums runs of the same workload made by several clients at the same
// time: exact HdrHistogram merges, counts and errors added, the per-second
// series aligned by wall-clock second, seeds and hosts listed. It refuses
// runs of different workloads or schemas.
func Merge(runs []*result.Run) (*result.Run, error) {
	if len(runs) < 2 {
		return nil, errors.New("merge needs two results or more")
	}
	first := runs[0]
	for i, r := range runs {
		switch {
		case r.Schema != first.Schema:
			return nil, fmt.Errorf("result %d has schema %s, result 1 %s: only results of one schema merge", i+1, r.Schema, first.Schema)
		case r.Command != first.Command:
			return nil, fmt.Errorf("result %d ran %q, result 1 %q: only results of one workload merge", i+1, r.Command, first.Command)
		case r.Config.Mode != first.Config.Mode || r.Totals.OpsPerRequest != first.Totals.OpsPerRequest:
			return nil, fmt.Errorf("result %d grouped commands as %q, result 1 as %q: only results of one workload merge", i+1, r.Config.Mode, first.Config.Mode)
		case (r.HistogramCorrected == "") != (first.HistogramCorrected == ""):
			return nil, fmt.Errorf("result %d and result 1 differ in open and closed loop: only results of one workload merge", i+1)
		}
	}
	out := &result.Run{Header: result.Header{Schema: first.Schema, Version: first.Version, StartedAt: first.StartedAt},
		Name: first.Name, Command: first.Command, Config: first.Config, StopReason: first.StopReason,
		Errors: []result.ErrorCount{}, Warnings: []string{}}
	out.Config.Shard = ""
	out.Config.Connections = 0
	hist, corrected := stats.NewHistogram(), (*hdr.Histogram)(nil)
	if first.HistogramCorrected != "" {
		corrected = stats.NewHistogram()
	}
	// The measured span: from the earliest measured start to the latest end.
	var start, end time.Time
	var sumUS, sumCorrUS float64
	errs := map[string]*result.ErrorCount{}
	var errOrder []string
	ops := map[string]*opSum{}
	var opOrder []string
	bySecond := map[int64]*secondSum{}
	t := &out.Totals
	for i, r := range runs {
		h, err := decode(r.Histogram)
		if err != nil {
			return nil, fmt.Errorf("result %d: histogram: %w", i+1, err)
		}
		hist.Merge(h)
		if corrected != nil {
			c, err := decode(r.HistogramCorrected)
			if err != nil {
				return nil, fmt.Errorf("result %d: corrected histogram: %w", i+1, err)
			}
			corrected.Merge(c)
			if r.Totals.CorrectedLatency != nil {
				sumCorrUS += r.Totals.CorrectedLatency.Mean * float64(c.TotalCount())
			}
		}
		s := r.StartedAt.Add(time.Duration(r.WarmupMS * float64(time.Millisecond)))
		e := s.Add(time.Duration(r.DurationMS * float64(time.Millisecond)))
		if start.IsZero() || s.Before(start) {
			start = s
		}
		if e.After(end) {
			end = e
		}
		rt := r.Totals
		t.Ops += rt.Ops
		t.Requests += rt.Requests
		t.Errors += rt.Errors
		t.TransportErrors += rt.TransportErrors
		t.LostOps += rt.LostOps
		t.ConnectFailures += rt.ConnectFailures
		t.Misses += rt.Misses
		t.BytesIn += rt.BytesIn
		t.BytesOut += rt.BytesOut
		t.Aborted += rt.Aborted
		t.Overflow += rt.Overflow
		t.WarmupOps += rt.WarmupOps
		t.AfterDeadlineOps += rt.AfterDeadlineOps
		sumUS += rt.Latency.Mean * float64(h.TotalCount())
		out.Config.Connections += r.Config.Connections
		out.Seeds.Workers = append(out.Seeds.Workers, r.Seeds.Workers...)
		out.Sources = append(out.Sources, result.Source{StartedAt: r.StartedAt, Host: r.Client.Host, Shard: r.Config.Shard,
			SeedBase: r.Seeds.Base, Ops: rt.Ops})
		out.Client.CPUUserMS += r.Client.CPUUserMS
		out.Client.CPUSysMS += r.Client.CPUSysMS
		for _, e := range r.Errors {
			key := e.Kind + "\x00" + e.Message
			if g, ok := errs[key]; ok {
				g.Count += e.Count
				continue
			}
			g := e
			errs[key] = &g
			errOrder = append(errOrder, key)
		}
		for _, o := range r.Operations {
			sum, ok := ops[o.Name]
			if !ok {
				sum = &opSum{op: result.Operation{Name: o.Name, Command: o.Command, Weight: o.Weight}, hist: stats.NewHistogram()}
				ops[o.Name] = sum
				opOrder = append(opOrder, o.Name)
			}
			if oh, err := decode(o.Histogram); err == nil {
				sum.hist.Merge(oh)
				sum.sumUS += o.Latency.Mean * float64(oh.TotalCount())
			}
			sum.op.Ops += o.Ops
			sum.op.Requests += o.Requests
			sum.op.Errors += o.Errors
			sum.op.Misses += o.Misses
			sum.op.BytesIn += o.BytesIn
			sum.op.BytesOut += o.BytesOut
		}
		for _, iv := range r.Series {
			at := s.Add(time.Duration(iv.Second) * time.Second).Unix()
			b := bySecond[at]
			if b == nil {
				b = &secondSum{}
				bySecond[at] = b
			}
			b.add(iv)
		}
	}
	elapsed := end.Sub(start)
	out.DurationMS = float64(elapsed) / float64(time.Millisecond)
	out.WarmupMS = first.WarmupMS
	if elapsed > 0 {
		t.OpsPerSec = float64(t.Ops) / elapsed.Seconds()
		t.RequestsPerSec = float64(t.Requests) / elapsed.Seconds()
	}
	if attempts := t.Ops + t.LostOps; attempts > 0 {
		t.ErrorRate = float64(t.Errors) / float64(attempts)
	}
	t.OpsPerRequest, t.LatencyUnit, t.LatencyPerOp, t.HistogramRangeUS = first.Totals.OpsPerRequest, first.Totals.LatencyUnit,
		first.Totals.LatencyPerOp, first.Totals.HistogramRangeUS
	if n := hist.TotalCount(); n > 0 {
		t.Latency = stats.Summary(hist, sumUS/float64(n))
	}
	if corrected != nil && corrected.TotalCount() > 0 {
		l := stats.Summary(corrected, sumCorrUS/float64(corrected.TotalCount()))
		t.CorrectedLatency = &l
	}
	out.Histogram = result.EncodeHistogram(hist)
	out.HistogramCorrected = result.EncodeHistogram(corrected)
	for _, k := range errOrder {
		out.Errors = append(out.Errors, *errs[k])
	}
	sort.SliceStable(out.Errors, func(i, j int) bool { return out.Errors[i].Count > out.Errors[j].Count })
	for _, name := range opOrder {
		s := ops[name]
		if elapsed > 0 {
			s.op.OpsPerSec = float64(s.op.Ops) / elapsed.Seconds()
		}
		if n := s.hist.TotalCount(); n > 0 {
			s.op.Latency = stats.Summary(s.hist, s.sumUS/float64(n))
			s.op.Histogram = result.EncodeHistogram(s.hist)
		}
		out.Operations = append(out.Operations, s.op)
	}
	out.Series = series(bySecond, start, end)
	if cpu := out.Client.CPUUserMS + out.Client.CPUSysMS; t.Ops+t.WarmupOps > 0 {
		out.Client.CPUPerOpUS = cpu * 1e3 / float64(t.Ops+t.WarmupOps)
	}
	out.Seeds.Base = first.Seeds.Base
	out.Warnings = report.Warnings(out)
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	out.Warnings = append(out.Warnings, fmt.Sprintf("merged from %d clients: per-second latencies are the requests' mean (percentiles of seconds do not add up); the totals' percentiles come from the merged histograms", len(runs)))
	return out, nil
}

type opSum struct {
	op    result.Operation
	hist  *hdr.Histogram
	sumUS float64
}

type secondSum struct {
	ops, requests, errors, transport, connect int64
	sumUS                                     float64
	samples                                   int64
	maxUS                                     float64
}

func (s *secondSum) add(iv result.Interval) {
	s.ops += iv.Ops
	s.requests += iv.Requests
	s.errors += iv.Errors
	s.transport += iv.TransportErrors
	s.connect += iv.ConnectFailures
	if iv.MeanUS != nil {
		s.sumUS += *iv.MeanUS * float64(iv.Requests)
		s.samples += iv.Requests
	}
	if iv.MaxUS != nil {
		s.maxUS = math.Max(s.maxUS, *iv.MaxUS)
	}
}

// series lays the summed seconds out from the span's first second.
func series(by map[int64]*secondSum, start, end time.Time) []result.Interval {
	out := []result.Interval{}
	if start.IsZero() {
		return out
	}
	n := int(math.Ceil(end.Sub(start).Seconds()))
	for i := 0; i < n; i++ {
		iv := result.Interval{Second: i}
		if s := by[start.Add(time.Duration(i)*time.Second).Unix()]; s != nil {
			iv.Ops, iv.Requests, iv.Errors, iv.TransportErrors, iv.ConnectFailures = s.ops, s.requests, s.errors, s.transport, s.connect
			iv.OpsPerSec = float64(s.ops)
			if s.samples > 0 {
				mean, mx := s.sumUS/float64(s.samples), s.maxUS
				iv.MeanUS, iv.MaxUS = &mean, &mx
			}
		}
		out = append(out, iv)
	}
	return out
}

func decode(s string) (*hdr.Histogram, error) {
	if s == "" {
		return stats.NewHistogram(), nil
	}
	return hdr.Decode([]byte(s))
}
