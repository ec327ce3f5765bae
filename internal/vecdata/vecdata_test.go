package vecdata

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"codeberg.org/sbinet/npyio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/tairbench/tairbench/internal/ann"
	"github.com/tairbench/tairbench/internal/vector"
)

func TestFvecsRoundTripAndTruncation(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.fvecs")
	data := []float32{1, 2, 3, 4, 5, 6}
	require.NoError(t, WriteFvecs(p, data, 3))
	got, dims, err := ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, 3, dims)
	assert.Equal(t, data, got)

	b, _ := os.ReadFile(p)
	cases := map[string]struct {
		bytes []byte
		msg   string
	}{
		"cut inside a vector": {b[:len(b)-5], "truncated at byte 27: the vector starting at byte 16 needs 16 bytes, 11 remain"},
		"cut inside a header": {append(append([]byte{}, b...), 3, 0), "truncated at byte 32: a vector's 4-byte dimension is cut short"},
		"dimension changes":   {append(append([]byte{}, b...), binary.LittleEndian.AppendUint32(nil, 2)...), "byte 32: dimension 2 (the file's first vector has 3)"},
		"empty":               {nil, "no vectors"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			bad := filepath.Join(dir, "bad.fvecs")
			require.NoError(t, os.WriteFile(bad, tc.bytes, 0o644))
			_, _, err := ReadFile(bad)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestBvecsAndNpy(t *testing.T) {
	dir := t.TempDir()
	bv := filepath.Join(dir, "x.bvecs")
	require.NoError(t, os.WriteFile(bv, []byte{2, 0, 0, 0, 7, 255, 2, 0, 0, 0, 0, 1}, 0o644))
	got, dims, err := ReadFile(bv)
	require.NoError(t, err)
	assert.Equal(t, 2, dims)
	assert.Equal(t, []float32{7, 255, 0, 1}, got)

	np := filepath.Join(dir, "x.npy")
	f, err := os.Create(np)
	require.NoError(t, err)
	require.NoError(t, npyio.Write(f, mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6.5})))
	require.NoError(t, f.Close())
	got, dims, err = ReadFile(np)
	require.NoError(t, err)
	assert.Equal(t, 3, dims)
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6.5}, got)

	flat := filepath.Join(dir, "flat.npy")
	f, _ = os.Create(flat)
	require.NoError(t, npyio.Write(f, []float32{1, 2, 3}))
	require.NoError(t, f.Close())
	_, _, err = ReadFile(flat)
	assert.ErrorContains(t, err, "want a 2-D array")
}

func TestUnknownAndHDF5Refused(t *testing.T) {
	_, _, err := ReadFile("x.csv")
	assert.ErrorContains(t, err, "unknown vector file type")
	_, _, err = ReadFile("glove.hdf5")
	assert.ErrorContains(t, err, "scripts/vector_data.py hdf5 glove.hdf5 DIR")
	_, err = OpenPrepared("random-s-100", t.TempDir())
	assert.ErrorIs(t, err, ErrMissing)
	assert.ErrorContains(t, err, "python3 scripts/vector_data.py random-s-100")
}

func TestClusteredAndTruth(t *testing.T) {
	s := Clustered(500, 20, 8, 5, 1)
	assert.Equal(t, 500, s.N())
	assert.Equal(t, 20, s.NQ())
	again := Clustered(500, 20, 8, 5, 1)
	assert.Equal(t, s.Train, again.Train)
	path := filepath.Join(t.TempDir(), "truth", "t.ivecs")
	tr, err := LoadTruth(s, 10, path)
	require.NoError(t, err)
	cached, err := LoadTruth(s, 5, path)
	require.NoError(t, err)
	for q := range tr.IDs {
		assert.Equal(t, tr.IDs[q][:5], cached.IDs[q])
	}
	// The truth is the exact nearest: no base vector is nearer than the 10th.
	q := s.Query(0)
	tenth := vector.Distance(vector.L2, q, s.Row(int(tr.IDs[0][9])))
	nearer := 0
	for i := 0; i < s.N(); i++ {
		if vector.Distance(vector.L2, q, s.Row(i)) < tenth {
			nearer++
		}
	}
	assert.LessOrEqual(t, nearer, 9)
	assert.Equal(t, 1.0, tr.Recall(0, tr.IDs[0], 10))
	assert.InDelta(t, 0.1, tr.Recall(0, tr.IDs[0][:1], 10), 1e-9)
	assert.False(t, math.IsNaN(tr.Recall(1, nil, 10)))
	// A duplicate of a true neighbour, at the same distance, counts (a tie);
	// the same id twice counts once; an id outside the set is a miss.
	dup := append([]float32{}, s.Train...)
	dup = append(dup, s.Row(int(tr.IDs[0][0]))...)
	s2 := &Set{Dims: s.Dims, Metric: s.Metric, Train: dup, Test: s.Test}
	tr2 := GroundTruth(s2, 1)
	require.Equal(t, tr.IDs[0][:1], tr2.IDs[0]) // the tie goes to the lower id
	assert.Equal(t, 1.0, tr2.Recall(0, []uint32{uint32(s.N())}, 1))
	assert.InDelta(t, 0.2, tr.Recall(0, []uint32{tr.IDs[0][0], tr.IDs[0][0], tr.IDs[0][1], 99999}, 10), 1e-9)
}

// A filtered truth is the exact nearest among the kept vectors, and a
// returned vector the filter does not keep is a miss however near it is.
func TestGroundTruthWhere(t *testing.T) {
	s := Clustered(2000, 10, 8, 5, 3)
	attrs := Attributes(s.N(), 3)
	assert.Equal(t, attrs, Attributes(s.N(), 3), "seeded")
	sorted := slices.Clone(attrs)
	slices.Sort(sorted)
	for i, a := range sorted {
		require.Equal(t, int32(i), a, "a permutation of 0..n-1")
	}
	keep := func(id uint32) bool { return attrs[id] < 20 } // 1 %
	tr := GroundTruthWhere(s, 10, keep)
	all := GroundTruth(s, 10)
	for q := range tr.IDs {
		require.Len(t, tr.IDs[q], 10)
		var want []uint32
		for _, h := range ann.Exact(s.Train, s.Dims, s.Query(q), s.N(), DistFunc(s.Metric)) {
			if keep(h.Slot) && len(want) < 10 {
				want = append(want, h.Slot)
			}
		}
		assert.Equal(t, want, tr.IDs[q], "query %d", q)
		assert.Equal(t, 1.0, tr.Recall(q, want, 10))
		if !keep(all.IDs[q][0]) {
			assert.InDelta(t, 0.9, tr.Recall(q, append([]uint32{all.IDs[q][0]}, want[:9]...), 10), 1e-9,
				"the nearest vector overall is not kept: a miss")
		}
	}
}

// PrefixNearest is the exact nearest among the first n vectors, for each n.
func TestPrefixNearest(t *testing.T) {
	s := Clustered(3000, 5, 8, 5, 4)
	prefixes := []int{10, 500, 1500, 3000, 4000}
	for q := 0; q < s.NQ(); q++ {
		got := s.PrefixNearest(q, 10, prefixes)
		for i, n := range prefixes {
			sub := &Set{Dims: s.Dims, Metric: s.Metric, Train: s.Train[:min(n, s.N())*s.Dims], Test: s.Test}
			want := GroundTruth(sub, 10).IDs[q]
			assert.Equal(t, want, got[i], "query %d, first %d", q, n)
			assert.Equal(t, 1.0, s.RecallAgainst(q, got[i], want, 10))
		}
		all := got[len(got)-1]
		assert.InDelta(t, 0.5, s.RecallAgainst(q, all, append(slices.Clone(all[:5]), 99999, 99999), 10), 1e-9,
			"an id outside the set, twice, is one miss and not counted again")
	}
}

func FuzzParseVecs(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64}, 4)
	f.Add([]byte{2, 0, 0, 0, 7, 9}, 1)
	f.Add([]byte{255, 255, 255, 127, 1}, 4)
	f.Fuzz(func(t *testing.T, b []byte, size int) {
		if size != 1 {
			size = 4
		}
		out, dims, err := ParseVecs(b, size)
		if err != nil {
			return
		}
		if dims < 1 || len(out)%dims != 0 || len(out)/dims*(4+dims*size) != len(b) {
			t.Fatalf("%d elements of %d dims from %d bytes", len(out), dims, len(b))
		}
	})
}
