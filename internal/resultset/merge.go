// Package resultset works on saved results: it merges the results of clients
// that ran one workload at the same time, and compares two results,
// marking the differences that exceed the run-to-run noise.
package resultset

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// MergeOptions loosen what Merge accepts.
type MergeOptions struct {
	// AllowDisjoint merges runs that did not all run at the same time.
	AllowDisjoint bool
}

// Merge sums runs of the same workload made by several clients at the same
// time: exact HdrHistogram merges, counts and errors added, the per-second
// series aligned by wall-clock second, seeds and hosts listed. It refuses
// runs of different workloads or schemas, a run given twice, and runs that
// were not all measuring at the same time (their sum is no load the server
// saw); runs against different targets are merged with a warning.
func Merge(runs []*result.Run) (*result.Run, error) { return MergeWith(runs, MergeOptions{}) }

// MergeWith is Merge with options.
func MergeWith(runs []*result.Run, o MergeOptions) (*result.Run, error) {
	if len(runs) < 2 {
		return nil, errors.New("merge needs two results or more")
	}
	if err := sameWorkload(runs); err != nil {
		return nil, err
	}
	if err := distinct(runs); err != nil {
		return nil, err
	}
	if err := overlap(runs); err != nil && !o.AllowDisjoint {
		return nil, err
	}
	m := newMerger(runs[0])
	for i, r := range runs {
		if err := m.add(r); err != nil {
			return nil, fmt.Errorf("result %d: %w", i+1, err)
		}
	}
	out := m.finish(len(runs))
	if addrs := targets(runs); len(addrs) > 1 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the merged runs measured different targets (%s): the sum is of several servers' loads", strings.Join(addrs, ", ")))
	}
	if err := overlap(runs); err != nil {
		out.Warnings = append(out.Warnings, err.Error()+": merged as asked, but the sum is no load any server saw at once")
	}
	return out, nil
}

// measured is a run's measured span (after its warm-up).
func measured(r *result.Run) (time.Time, time.Time) {
	s := r.StartedAt.Add(time.Duration(r.WarmupMS * float64(time.Millisecond)))
	return s, s.Add(time.Duration(r.DurationMS * float64(time.Millisecond)))
}

// overlap checks that every run was measuring during one common span.
func overlap(runs []*result.Run) error {
	latest, first := 0, 0
	ls, _ := measured(runs[0])
	_, fe := measured(runs[0])
	for i, r := range runs {
		s, e := measured(r)
		if s.After(ls) {
			latest, ls = i, s
		}
		if e.Before(fe) {
			first, fe = i, e
		}
	}
	if ls.Before(fe) {
		return nil
	}
	return fmt.Errorf("result %d ended (%s) before result %d started (%s): the runs did not overlap in time (--allow-disjoint merges them anyway)",
		first+1, fe.UTC().Format(time.RFC3339), latest+1, ls.UTC().Format(time.RFC3339))
}

// distinct refuses a run given twice (the same start and seeds).
func distinct(runs []*result.Run) error {
	for i, r := range runs {
		for j := range i {
			q := runs[j]
			if r.StartedAt.Equal(q.StartedAt) && r.Seeds.Base == q.Seeds.Base && slices.Equal(r.Seeds.Workers, q.Seeds.Workers) {
				return fmt.Errorf("result %d is result %d again (the same start and seeds): merging it would count its commands twice", i+1, j+1)
			}
		}
	}
	return nil
}

// targets lists the distinct target addresses of the runs.
func targets(runs []*result.Run) []string {
	var out []string
	for _, r := range runs {
		if t := r.Config.Target; t != nil && !slices.Contains(out, t.Addr) {
			out = append(out, t.Addr)
		}
	}
	return out
}

// sameWorkload refuses runs of different schemas or workloads.
func sameWorkload(runs []*result.Run) error {
	first := runs[0]
	for i, r := range runs {
		switch {
		case r.Schema != first.Schema:
			return fmt.Errorf("result %d has schema %s, result 1 %s: only results of one schema merge", i+1, r.Schema, first.Schema)
		case r.Command != first.Command:
			return fmt.Errorf("result %d ran %q, result 1 %q: only results of one workload merge", i+1, r.Command, first.Command)
		case r.Config.Mode != first.Config.Mode || r.Totals.OpsPerRequest != first.Totals.OpsPerRequest:
			return fmt.Errorf("result %d grouped commands as %q, result 1 as %q: only results of one workload merge", i+1, r.Config.Mode, first.Config.Mode)
		case (r.HistogramCorrected == "") != (first.HistogramCorrected == ""):
			return fmt.Errorf("result %d and result 1 differ in open and closed loop: only results of one workload merge", i+1)
		}
	}
	return nil
}

// merger sums runs one by one.
type merger struct {
	first           *result.Run
	out             *result.Run
	hist, corrected *hdr.Histogram
	// start and end are the measured span: from the earliest measured
	// start to the latest end.
	start, end       time.Time
	sumUS, sumCorrUS float64
	errs             map[string]*result.ErrorCount
	errOrder         []string
	ops              map[string]*opSum
	opOrder          []string
	bySecond         map[int64]*secondSum
}

func newMerger(first *result.Run) *merger {
	out := &result.Run{Header: result.Header{Schema: first.Schema, Version: first.Version, StartedAt: first.StartedAt},
		Name: first.Name, Command: first.Command, Config: first.Config, StopReason: first.StopReason,
		Errors: []result.ErrorCount{}, Warnings: []string{}}
	out.Config.Shard = ""
	out.Config.Connections = 0
	m := &merger{first: first, out: out, hist: stats.NewHistogram(), errs: map[string]*result.ErrorCount{},
		ops: map[string]*opSum{}, bySecond: map[int64]*secondSum{}}
	if first.HistogramCorrected != "" {
		m.corrected = stats.NewHistogram()
	}
	return m
}

// add sums one run.
func (m *merger) add(r *result.Run) error {
	h, err := decode(r.Histogram)
	if err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	m.hist.Merge(h)
	if m.corrected != nil {
		c, err := decode(r.HistogramCorrected)
		if err != nil {
			return fmt.Errorf("corrected histogram: %w", err)
		}
		m.corrected.Merge(c)
		if r.Totals.CorrectedLatency != nil {
			m.sumCorrUS += r.Totals.CorrectedLatency.Mean * float64(c.TotalCount())
		}
	}
	s := r.StartedAt.Add(time.Duration(r.WarmupMS * float64(time.Millisecond)))
	e := s.Add(time.Duration(r.DurationMS * float64(time.Millisecond)))
	if m.start.IsZero() || s.Before(m.start) {
		m.start = s
	}
	if e.After(m.end) {
		m.end = e
	}
	m.addTotals(r, h)
	m.addErrors(r.Errors)
	m.addOperations(r.Operations)
	for _, iv := range r.Series {
		at := s.Add(time.Duration(iv.Second) * time.Second).Unix()
		b := m.bySecond[at]
		if b == nil {
			b = &secondSum{}
			m.bySecond[at] = b
		}
		b.add(iv)
	}
	return nil
}

func (m *merger) addTotals(r *result.Run, h *hdr.Histogram) {
	t, rt, out := &m.out.Totals, r.Totals, m.out
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
	m.sumUS += rt.Latency.Mean * float64(h.TotalCount())
	out.Config.Connections += r.Config.Connections
	out.Seeds.Workers = append(out.Seeds.Workers, r.Seeds.Workers...)
	out.Sources = append(out.Sources, result.Source{StartedAt: r.StartedAt, Host: r.Client.Host, Shard: r.Config.Shard,
		SeedBase: r.Seeds.Base, Ops: rt.Ops})
	out.Client.CPUUserMS += r.Client.CPUUserMS
	out.Client.CPUSysMS += r.Client.CPUSysMS
}

func (m *merger) addErrors(errs []result.ErrorCount) {
	for _, e := range errs {
		key := e.Kind + "\x00" + e.Message
		if g, ok := m.errs[key]; ok {
			g.Count += e.Count
			continue
		}
		g := e
		m.errs[key] = &g
		m.errOrder = append(m.errOrder, key)
	}
}

func (m *merger) addOperations(ops []result.Operation) {
	for _, o := range ops {
		sum, ok := m.ops[o.Name]
		if !ok {
			sum = &opSum{op: result.Operation{Name: o.Name, Command: o.Command, Weight: o.Weight}, hist: stats.NewHistogram(), corrected: stats.NewHistogram()}
			m.ops[o.Name] = sum
			m.opOrder = append(m.opOrder, o.Name)
		}
		if oh, err := decode(o.Histogram); err == nil {
			sum.hist.Merge(oh)
			sum.sumUS += o.Latency.Mean * float64(oh.TotalCount())
		}
		if oh, err := decode(o.HistogramCorrected); err == nil && o.CorrectedLatency != nil {
			sum.corrected.Merge(oh)
			sum.sumCorr += o.CorrectedLatency.Mean * float64(oh.TotalCount())
		}
		sum.op.Ops += o.Ops
		sum.op.Requests += o.Requests
		sum.op.Errors += o.Errors
		sum.op.Misses += o.Misses
		sum.op.BytesIn += o.BytesIn
		sum.op.BytesOut += o.BytesOut
	}
}

// finish computes the rates, latencies and warnings of the sum of n runs.
func (m *merger) finish(n int) *result.Run {
	out, first, t := m.out, m.first, &m.out.Totals
	elapsed := m.end.Sub(m.start)
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
	if c := m.hist.TotalCount(); c > 0 {
		t.Latency = stats.Summary(m.hist, m.sumUS/float64(c))
	}
	if m.corrected != nil && m.corrected.TotalCount() > 0 {
		l := stats.Summary(m.corrected, m.sumCorrUS/float64(m.corrected.TotalCount()))
		t.CorrectedLatency = &l
	}
	t.HeadlineLatency = first.Totals.Measure()
	out.Histogram = result.EncodeHistogram(m.hist)
	out.HistogramCorrected = result.EncodeHistogram(m.corrected)
	for _, k := range m.errOrder {
		out.Errors = append(out.Errors, *m.errs[k])
	}
	sort.SliceStable(out.Errors, func(i, j int) bool { return out.Errors[i].Count > out.Errors[j].Count })
	for _, name := range m.opOrder {
		s := m.ops[name]
		if elapsed > 0 {
			s.op.OpsPerSec = float64(s.op.Ops) / elapsed.Seconds()
		}
		if c := s.hist.TotalCount(); c > 0 {
			s.op.Latency = stats.Summary(s.hist, s.sumUS/float64(c))
			s.op.Histogram = result.EncodeHistogram(s.hist)
		}
		if c := s.corrected.TotalCount(); c > 0 {
			l := stats.Summary(s.corrected, s.sumCorr/float64(c))
			s.op.CorrectedLatency, s.op.HistogramCorrected = &l, result.EncodeHistogram(s.corrected)
		}
		out.Operations = append(out.Operations, s.op)
	}
	out.Series = series(m.bySecond, m.start, m.end)
	if cpu := out.Client.CPUUserMS + out.Client.CPUSysMS; t.Ops+t.WarmupOps > 0 {
		out.Client.CPUPerOpUS = cpu * 1e3 / float64(t.Ops+t.WarmupOps)
	}
	out.Seeds.Base = first.Seeds.Base
	out.Warnings = report.Warnings(out)
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	out.Warnings = append(out.Warnings, fmt.Sprintf("merged from %d clients: per-second latencies are the requests' mean (percentiles of seconds do not add up); the totals' percentiles come from the merged histograms", n))
	return out
}

type opSum struct {
	op              result.Operation
	hist, corrected *hdr.Histogram
	sumUS, sumCorr  float64
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
			iv.EndInside(end.Sub(start)-time.Duration(i)*time.Second, time.Second)
			if s.samples > 0 {
				mean, mx := s.sumUS/float64(s.samples), s.maxUS
				iv.MeanUS, iv.MaxUS = &mean, &mx
			}
		}
		out = append(out, iv)
	}
	// A last, partial second that no run's seconds fell in (the runs'
	// seconds start where each run did, not on the wall clock's) holds
	// nothing measured: it is left out rather than drawn as 0 commands/s.
	if k := len(out) - 1; k > 0 && by[start.Add(time.Duration(k)*time.Second).Unix()] == nil &&
		end.Sub(start) < time.Duration(k+1)*time.Second {
		out = out[:k]
	}
	return out
}

func decode(s string) (*hdr.Histogram, error) {
	if s == "" {
		return stats.NewHistogram(), nil
	}
	return hdr.Decode([]byte(s))
}
