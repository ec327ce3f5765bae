package fit

import (
	"math"
	"math/rand/v2"
	"slices"
)

// reservoirSize is how many values a reservoir keeps: its quantiles are
// then within about a percentile of the whole stream's.
const reservoirSize = 20_000

// reservoir keeps a uniform sample of a stream of values (Vitter's
// algorithm R), seeded, so that a fit is the same every time.
type reservoir struct {
	vals   []float64
	n      int64
	lo, hi float64 // the whole stream's
	rng    *rand.Rand
}

func newReservoir(seed uint64) *reservoir {
	return &reservoir{rng: rand.New(rand.NewPCG(seed, 0x726573))}
}

func (r *reservoir) add(v float64) {
	if r.n == 0 || v < r.lo {
		r.lo = v
	}
	if r.n == 0 || v > r.hi {
		r.hi = v
	}
	r.n++
	if len(r.vals) < reservoirSize {
		r.vals = append(r.vals, v)
		return
	}
	if i := r.rng.Int64N(r.n); i < reservoirSize {
		r.vals[i] = v
	}
}

// Quantiles are a distribution's quantiles; N is how many values it had.
type Quantiles struct {
	N   int64   `yaml:"n" json:"n"`
	Min float64 `yaml:"min" json:"min"`
	P10 float64 `yaml:"p10" json:"p10"`
	P50 float64 `yaml:"p50" json:"p50"`
	P90 float64 `yaml:"p90" json:"p90"`
	P99 float64 `yaml:"p99" json:"p99"`
	Max float64 `yaml:"max" json:"max"`
}

// quantiles are the sample's (nil when it is empty).
func (r *reservoir) quantiles() *Quantiles {
	if r == nil || len(r.vals) == 0 {
		return nil
	}
	v := slices.Clone(r.vals)
	slices.Sort(v)
	at := func(q float64) float64 { return v[min(int(math.Floor(q*float64(len(v)))), len(v)-1)] }
	return &Quantiles{N: r.n, Min: r.lo, P10: at(0.1), P50: at(0.5), P90: at(0.9), P99: at(0.99), Max: r.hi}
}
