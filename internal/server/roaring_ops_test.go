package server

import (
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runKey is the suite's many-keys value after the write cases: the run
// [0, 999999] and a few random bits below 10^7.
func runKey(seed uint64) *roaring.Bitmap {
	b := roaring.New()
	b.AddRange(0, 1_000_000)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := 0; i < 60; i++ {
		b.Add(uint32(r.IntN(10_000_000)))
	}
	return b
}

func randomKey(seed uint64, n, below int) *roaring.Bitmap {
	b := roaring.New()
	r := rand.New(rand.NewPCG(seed, 7))
	for i := 0; i < n; i++ {
		b.Add(uint32(r.IntN(below)))
	}
	return b
}

func TestComplementAndXorAgreeWithTheLibrary(t *testing.T) {
	keys := []*roaring.Bitmap{runKey(1), runKey(2), randomKey(3, 3000, 200_000), randomKey(4, 100_000, 1<<20),
		roaring.BitmapOf(0), roaring.BitmapOf(5), roaring.BitmapOf(0, 1, 2, 65535, 65536, 65537, 1<<20)}
	for i, a := range keys {
		got, ok := complementRuns(a, 1<<30)
		require.True(t, ok)
		assert.True(t, got.Equals(roaring.Flip(a, 0, uint64(a.Maximum())+1)), "NOT of key %d", i)
		for j, b := range keys {
			assert.True(t, xor(a, b).Equals(roaring.Xor(a, b)), "XOR of keys %d and %d", i, j)
		}
	}
	_, ok := complementRuns(randomKey(5, 10_000, 1<<20), 100)
	assert.False(t, ok, "past the limit NOT falls back to Flip")
}

func BenchmarkNotOnRunKey(b *testing.B) {
	a := runKey(1)
	b.Run("flip", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = roaring.Flip(a, 0, uint64(a.Maximum())+1)
		}
	})
	b.Run("runs", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_, _ = complementRuns(a, maxComplementRuns)
		}
	})
}

func BenchmarkXorOnRunKeys(b *testing.B) {
	x, y := runKey(1), runKey(2)
	b.Run("clone-xor", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r := x.Clone()
			r.Xor(y)
		}
	})
	b.Run("or-andnot", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = xor(x, y)
		}
	})
}
