package bitmap

import (
	"testing"

	rb "github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/bitmaps"
	"github.com/tairbench/tairbench/pkg/result"
)

// twoSets is a point of two keys: {1, 5, 9, 100} and {5, 9, 200}, below 1000.
func twoSets() point {
	return point{card: 4, universe: 1000, sets: []IDSet{
		{IDs: rb.BitmapOf(1, 5, 9, 100)}, {IDs: rb.BitmapOf(5, 9, 200)}}}
}

func op(t *testing.T, name string) bitmaps.Op {
	t.Helper()
	o, ok := bitmaps.OpByName(name)
	require.True(t, ok, name)
	return o
}

// TestExpect: the client's own answer to each operation, from the sets it
// loaded: what every structure's answer is checked against.
func TestExpect(t *testing.T) {
	p := twoSets()
	tests := []struct {
		op    string
		probe uint64
		want  int64
	}{
		{bitmaps.OpMembership, 9, 1},
		{bitmaps.OpMembership, 10, 0},
		{bitmaps.OpCount, 0, 4},
		{bitmaps.OpRank, 9, 3},
		{bitmaps.OpKth, 2, 5},
		{bitmaps.OpKth, 9, -1},
		{bitmaps.OpAndCard2, 0, 2},
		{bitmaps.OpOrCard2, 0, 5},
		{bitmaps.OpAndCardAll, 0, 2},
		{bitmaps.OpOrCardAll, 0, 5},
		{bitmaps.OpBitopAnd, 0, 2},
	}
	for _, tc := range tests {
		o := op(t, tc.op)
		assert.Equal(t, tc.want, expect(o, p, keysFor(o, p), tc.probe), "%s %d", tc.op, tc.probe)
	}
	add := op(t, bitmaps.OpAdd)
	assert.Equal(t, int64(0), expect(add, p, 1, 7), "the previous bit: 7 was not there, and is added")
	assert.Equal(t, int64(1), expect(add, p, 1, 7), "then it is there")
}

// TestKeysFor: an operation on all keys takes every key of the point; one
// on two needs two.
func TestKeysFor(t *testing.T) {
	p := twoSets()
	assert.Equal(t, 2, keysFor(op(t, bitmaps.OpAndCardAll), p))
	assert.Equal(t, 2, keysFor(op(t, bitmaps.OpAndCard2), p))
	assert.Equal(t, 1, keysFor(op(t, bitmaps.OpCount), p))
	one := point{universe: 1000, sets: p.sets[:1]}
	assert.Zero(t, keysFor(op(t, bitmaps.OpAndCard2), one), "two keys needed, one loaded")
}

// TestProbes: the bounds first, then drawn parameters, half of them
// members; ranks for kth; one 0 for a question with a single answer;
// the same under the same seed.
func TestProbes(t *testing.T) {
	p := twoSets()
	got := probes(op(t, bitmaps.OpMembership), p, 10, 1)
	require.Len(t, got, 10)
	assert.Equal(t, []uint64{1, 100}, got[:2], "the minimum and the maximum first")
	members := 0
	for _, v := range got {
		if p.sets[0].IDs.Contains(uint32(v)) {
			members++
		}
		assert.Less(t, v, p.universe)
	}
	assert.GreaterOrEqual(t, members, 5)
	assert.Equal(t, got, probes(op(t, bitmaps.OpMembership), p, 10, 1))
	kth := probes(op(t, bitmaps.OpKth), p, 6, 1)
	assert.Equal(t, []uint64{1, 4}, kth[:2], "the first and the last rank")
	for _, r := range kth {
		assert.True(t, r >= 1 && r <= 4, "rank %d", r)
	}
	assert.Equal(t, []uint64{0}, probes(op(t, bitmaps.OpCount), p, 10, 1))
}

func TestBytesText(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 20: "3.0 MiB", 5 << 30: "5.00 GiB"} {
		assert.Equal(t, want, bytesText(n))
	}
	assert.Equal(t, uint64(300), planTotal([]result.BitmapPlannedLoad{{Bytes: 100}, {Bytes: 200}}))
}
