package fit

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// exactZipf draws n samples over keys by r^−s exactly, counted by rank.
func exactZipf(rng *rand.Rand, keys, n int, s float64) []int64 {
	draw := exactZipfSampler(keys, s)
	counts := make([]int64, keys)
	for range n {
		counts[draw(rng)]++
	}
	return counts
}

// TestFitZipf: the exponent comes back within 0.05 from samples of a
// known law, exact or as tairbench's templates draw it (YCSB's
// generator), and a uniform draw fits an exponent near 0.
func TestFitZipf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []float64{0.5, 0.99, 1.2} {
		z := FitZipf(exactZipf(rng, 1000, 200_000, s))
		assert.InDelta(t, s, z.Exponent, 0.05, "exact, s=%v", s)
		assert.Less(t, z.KS, 0.02)
	}
	for _, theta := range []float64{0.7, 0.99} {
		gen := cmdtmpl.NewZipfian(1000, theta)
		counts := make([]int64, 1000)
		for range 200_000 {
			counts[gen.Sample(rng)]++
		}
		z := FitZipf(counts)
		t.Logf("YCSB theta %v: fitted %.3f, KS %.4f", theta, z.Exponent, z.KS)
		assert.InDelta(t, theta, z.Exponent, 0.05, "YCSB's generator, theta=%v", theta)
	}
	counts := make([]int64, 1000)
	for range 200_000 {
		counts[rng.IntN(1000)]++
	}
	z := FitZipf(counts)
	assert.Less(t, z.Exponent, 0.1, "ranked by their own counts, uniform keys look a little skewed")
	assert.InDelta(t, 1, Dispersion(counts), 0.2, "but their counts vary as Poisson counts do")
	assert.Less(t, KSUniform(counts), 0.05)
}
