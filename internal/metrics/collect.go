package metrics

import (
	"math"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/tairbench/tairbench/pkg/result"
)

// Collect sends every run's figures of its last tick (or of its result).
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	runs := make([]Run, len(e.runs))
	for i, r := range e.runs {
		runs[i] = *r
	}
	e.mu.Unlock()
	for _, r := range runs {
		e.collectRun(ch, r.labels, r.st)
	}
}

func (e *Exporter) collectRun(ch chan<- prometheus.Metric, lb Labels, st state) {
	l := []string{lb.RunID, lb.Shard, lb.Workload, lb.Target}
	with := func(extra ...string) []string { return append(append([]string{}, l...), extra...) }
	gauge := func(name string, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(e.desc[name], prometheus.GaugeValue, v, with(extra...)...)
	}
	counter := func(name string, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(e.desc[name], prometheus.CounterValue, v, with(extra...)...)
	}
	gauge("info", 1, strconv.Itoa(lb.Connections), lb.Server)
	finished := 0.0
	if st.finished {
		finished = 1
	}
	gauge("finished", finished)
	gauge("elapsed", time.Since(e.start).Seconds())
	counter("ops", float64(st.ops))
	counter("requests", float64(st.requests))
	counter("errors", float64(st.errors))
	counter("lost", float64(st.lost))
	counter("unreachable", st.unreachableS)
	counter("connect", float64(st.connectFailures))
	for _, c := range st.causes {
		counter("causes", float64(c.Count), c.Kind, c.Message)
	}
	if sc := st.schedule; sc != nil {
		counter("behind", float64(sc.Behind))
		counter("behindDown", float64(sc.BehindDown))
		counter("lags", float64(sc.ClientLags))
		gauge("behindMax", sc.BehindMaxMS/1000)
		counter("sent", float64(sc.Sent))
		counter("notSent", float64(sc.NotSentNoConnection), "no_connection")
		counter("notSent", float64(sc.NotSent-sc.NotSentNoConnection), "waiting_for_replies")
	}
	m := st.headline
	if m == "" {
		m = result.FromSend
	}
	gauge("headline", 1, measureName(m), m.Label())
	e.histogram(ch, st.service, with("service", ""))
	e.histogram(ch, st.corrected, with("corrected", ""))
	for i, name := range st.opNames {
		counter("op_ops", float64(at(st.opCounts, i)), name)
		counter("op_errors", float64(at(st.opErrors, i)), name)
		if i < len(st.opHists) {
			e.histogram(ch, st.opHists[i], with("service", name))
		}
		if i < len(st.opCorrected) {
			e.histogram(ch, st.opCorrected[i], with("corrected", name))
		}
	}
}

// measureName is the measure label of the latency histograms timed as m.
func measureName(m result.LatencyMeasure) string {
	if m == result.FromIntendedStart {
		return "corrected"
	}
	return "service"
}

func at(xs []int64, i int) int64 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

// histogram sends h (microseconds) as a Prometheus histogram in seconds
// and as a summary of its quantiles.
func (e *Exporter) histogram(ch chan<- prometheus.Metric, h *hdr.Histogram, labels []string) {
	if h == nil || h.TotalCount() == 0 {
		return
	}
	buckets := make(map[float64]uint64, len(bounds))
	bars := h.Distribution()
	i := 0
	var cum uint64
	for _, b := range bounds {
		for i < len(bars) && float64(bars[i].To)/1e6 <= b {
			cum += uint64(bars[i].Count)
			i++
		}
		buckets[b] = cum
	}
	sum := h.Mean() * float64(h.TotalCount()) / 1e6
	count := uint64(h.TotalCount())
	ch <- prometheus.MustNewConstHistogram(e.desc["latency"], count, sum, buckets, labels...)
	q := map[float64]float64{}
	for _, p := range []float64{0.5, 0.9, 0.99, 0.999} {
		q[p] = float64(h.ValueAtQuantile(p*100)) / 1e6
	}
	ch <- prometheus.MustNewConstSummary(e.desc["quantiles"], count, sum, q, labels...)
	if m, err := prometheus.NewConstNativeHistogram(e.desc["native"], count, sum, nativeBuckets(bars), nil, 0, nativeSchema, 0,
		e.start, labels...); err == nil {
		ch <- m
	}
}

// nativeSchema 5 gives buckets 2^(1/32) apart: a quantile within 2.2%.
const nativeSchema = 5

// nativeBuckets counts the HdrHistogram's bars (microseconds) in the
// native histogram's buckets of seconds: bucket i holds (b^(i-1), b^i]
// with b = 2^(2^-schema).
func nativeBuckets(bars []hdr.Bar) map[int]int64 {
	out := map[int]int64{}
	scale := math.Exp2(nativeSchema)
	for _, bar := range bars {
		if bar.Count == 0 {
			continue
		}
		v := float64(max(bar.To, 1)) / 1e6
		out[int(math.Ceil(math.Log2(v)*scale))] += bar.Count
	}
	return out
}
