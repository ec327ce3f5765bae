package ann

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func l2(a, b []float32) float32 {
	var s float32
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

// clustered returns n vectors of dims around c centres (row-major).
func clustered(n, dims, c int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	centres := make([]float32, c*dims)
	for i := range centres {
		centres[i] = float32(r.Float64()*20 - 10)
	}
	out := make([]float32, n*dims)
	for i := 0; i < n; i++ {
		ci := r.IntN(c)
		for j := 0; j < dims; j++ {
			out[i*dims+j] = centres[ci*dims+j] + float32(r.NormFloat64())
		}
	}
	return out
}

func recall(got, want []Hit) float64 {
	ids := map[uint32]bool{}
	for _, w := range want {
		ids[w.Slot] = true
	}
	n := 0
	for _, g := range got {
		if ids[g.Slot] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

func build(t testing.TB, data []float32, dims int, ix Index) {
	t.Helper()
	for i := 0; i*dims < len(data); i++ {
		ix.Add(uint32(i), data[i*dims:(i+1)*dims])
	}
}

func TestFlatIsExact(t *testing.T) {
	const dims = 16
	data := clustered(2000, dims, 20, 1)
	f := NewFlat(dims, l2)
	build(t, data, dims, f)
	qs := clustered(20, dims, 20, 2)
	for i := 0; i < 20; i++ {
		q := qs[i*dims : (i+1)*dims]
		assert.Equal(t, Exact(data, dims, q, 10, l2), f.Search(q, 10, 0, nil))
	}
}

// TestHNSWRecallRisesWithEf: a real graph, so a tiny beam misses
// neighbours and a wide one finds nearly all.
func TestHNSWRecallRisesWithEf(t *testing.T) {
	const dims, n, nq = 32, 20000, 100
	all := clustered(n+nq, dims, 50, 3)
	data, qs := all[:n*dims], all[n*dims:]
	h := NewHNSW(dims, l2, nil, 8, 40, 7)
	build(t, data, dims, h)
	truth := make([][]Hit, nq)
	for i := range truth {
		truth[i] = Exact(data, dims, qs[i*dims:(i+1)*dims], 10, l2)
	}
	at := func(ef int) float64 {
		sum := 0.0
		for i := 0; i < nq; i++ {
			sum += recall(h.Search(qs[i*dims:(i+1)*dims], 10, ef, nil), truth[i])
		}
		return sum / nq
	}
	low, high := at(10), at(200)
	t.Logf("recall@10: ef 10 → %.3f, ef 200 → %.3f", low, high)
	assert.Less(t, low, 1.0)
	assert.GreaterOrEqual(t, high, 0.95)
	assert.Greater(t, high, low)
}

func TestHNSWFilterAndTombstones(t *testing.T) {
	const dims = 8
	data := clustered(3000, dims, 10, 5)
	h := NewHNSW(dims, l2, nil, 16, 100, 1)
	build(t, data, dims, h)
	q := data[:dims]
	// A filter that lets 1 in 100 through still finds its nearest ones.
	even := func(s uint32) bool { return s%100 == 0 }
	got := h.Search(q, 5, 50, even)
	require.Len(t, got, 5)
	want := (&Flat{st: h.st, dist: l2}).Search(q, 5, 0, even)
	assert.Equal(t, want, got)
	// Removed slots never come back; Compact keeps the others.
	h.Remove(0)
	for _, hit := range h.Search(q, 10, 100, nil) {
		assert.NotEqual(t, uint32(0), hit.Slot)
	}
	assert.Equal(t, 1, h.Deleted())
	h.Compact()
	assert.Equal(t, 0, h.Deleted())
	assert.Nil(t, h.Vector(0))
	assert.Equal(t, data[dims:2*dims], h.Vector(1))
	assert.Len(t, h.Search(q, 10, 100, nil), 10)
	h.Add(0, data[:dims]) // a compacted slot is free again
	assert.Equal(t, uint32(0), h.Search(q, 1, 100, nil)[0].Slot)
}

func TestHNSWSmall(t *testing.T) {
	h := NewHNSW(2, l2, nil, 1, 1, 1)
	assert.Nil(t, h.Search([]float32{0, 0}, 3, 10, nil))
	h.Add(0, []float32{1, 1})
	h.Add(1, []float32{2, 2})
	h.Add(2, []float32{3, 3})
	assert.Equal(t, []Hit{{0, 2}, {1, 8}, {2, 18}}, h.Search([]float32{0, 0}, 3, 10, nil))
}

func BenchmarkHNSWSearch(b *testing.B) {
	const dims = 64
	data := clustered(20000, dims, 50, 3)
	h := NewHNSW(dims, l2, nil, 16, 100, 7)
	build(b, data, dims, h)
	qs := clustered(100, dims, 50, 4)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.Search(qs[(i%100)*dims:(i%100+1)*dims], 10, 64, nil)
	}
}
