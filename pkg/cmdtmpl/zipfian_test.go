package cmdtmpl

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestZipfianGrowsAsIfNew(t *testing.T) {
	grown := NewZipfian(1000, 0.99)
	for n := uint64(1001); n <= 1500; n++ {
		grown.NextN(0.5, n)
	}
	fresh := NewZipfian(1500, 0.99)
	assert.InDelta(t, fresh.zetan, grown.zetan, 1e-9, "zeta extended term by term")
	for _, u := range []float64{0.1, 0.5, 0.9, 0.999} {
		assert.Equal(t, fresh.Next(u), grown.Next(u))
	}
	// Past the exact terms, the tail's approximation: YCSB's zeta(10^10, 0.99).
	assert.InDelta(t, 26.46902820178302, Zeta(10_000_000_000, 0.99), 1e-4)
}

func TestZipfianPopularity(t *testing.T) {
	z, r := NewZipfian(1000, 0), rand.New(rand.NewPCG(1, 2))
	counts := make([]int, 1000)
	for range 100000 {
		counts[z.Sample(r)]++
	}
	assert.Greater(t, counts[0], counts[1])
	assert.Greater(t, counts[1], counts[10])
	assert.Greater(t, counts[0], 100000/20, "the head is hot")
}
