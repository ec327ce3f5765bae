package report

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// CountAtOrBelow counts the histogram's samples at or below v (the bucket
// holding v counts whole, as the histogram cannot tell within it).
func CountAtOrBelow(h *hdr.Histogram, v int64) int64 {
	var c int64
	for _, bar := range h.Distribution() {
		if bar.From > v {
			break
		}
		c += bar.Count
	}
	return c
}

// PercentileStep is one row of a percentile listing.
type PercentileStep struct {
	Percent float64
	Value   int64
	// Count is how many samples are at or below Value.
	Count int64
}

// HalvingPercentiles lists the values at 0 %, 50 %, 75 %, 87.5 % … (the
// distance to 100 % halving each step, as redis-benchmark and memtier list
// them) until every sample is counted; the first row is the minimum.
func HalvingPercentiles(h *hdr.Histogram) []PercentileStep {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	var out []PercentileStep
	total := h.TotalCount()
	for k := 0; k <= 40; k++ {
		p := 100 * (1 - math.Pow(0.5, float64(k)))
		v := h.ValueAtQuantile(p)
		if k == 0 {
			v = h.Min()
		}
		c := CountAtOrBelow(h, v)
		out = append(out, PercentileStep{Percent: p, Value: v, Count: c})
		if c >= total {
			break
		}
	}
	return out
}
