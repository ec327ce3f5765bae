package bitmap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGenerateShapes(t *testing.T) {
	cases := []GenSpec{
		{Shape: ShapeUniform, Cardinality: 10_000, Universe: 1 << 32},
		{Shape: ShapeUniform, Cardinality: 1 << 19, Universe: 1 << 20},
		{Shape: ShapeUniform, Cardinality: 900, Universe: 1000},
		{Shape: ShapeClustered, Cardinality: 100_000, Universe: 1 << 24},
		{Shape: ShapeClustered, Cardinality: 1000, Universe: 1000},
		{Shape: ShapeZipf, Cardinality: 50_000, Universe: 1 << 24},
		{Shape: ShapeZipf, Cardinality: 60_000, Universe: 1 << 16, Block: 4096},
		{Shape: ShapeSequence, Cardinality: 10_000, Universe: 1 << 20},
		{Shape: ShapeSequence, Cardinality: 1000, Universe: 1000},
		{Shape: ShapeRuns, Cardinality: 100_000, Universe: 1 << 24},
		{Shape: ShapeRuns, Cardinality: 999, Universe: 1000, RunLength: 10},
	}
	for _, g := range cases {
		t.Run(g.Describe(), func(t *testing.T) {
			g.Seed = 3
			bm, err := Generate(g)
			require.NoError(t, err)
			assert.Equal(t, g.Cardinality, bm.GetCardinality())
			assert.Less(t, uint64(bm.Maximum()), g.Universe)
			again, _ := Generate(g)
			assert.True(t, bm.Equals(again), "the same seed gives the same set")
		})
	}
}

func TestGenerateShapesDiffer(t *testing.T) {
	// Runs compress to a few run containers; uniform IDs do not.
	runs, err := Generate(GenSpec{Shape: ShapeRuns, Cardinality: 100_000, Universe: 1 << 24, Seed: 1})
	require.NoError(t, err)
	uni, err := Generate(GenSpec{Shape: ShapeUniform, Cardinality: 100_000, Universe: 1 << 24, Seed: 1})
	require.NoError(t, err)
	runs.RunOptimize()
	uni.RunOptimize()
	assert.Less(t, runs.GetSizeInBytes()*10, uni.GetSizeInBytes())
	// Clustered IDs fill few blocks: about 100,000 / 32,768 of them.
	cl, err := Generate(GenSpec{Shape: ShapeClustered, Cardinality: 100_000, Universe: 1 << 24, Seed: 1})
	require.NoError(t, err)
	assert.LessOrEqual(t, cl.Stats().Containers, uint64(5))
}

func TestGenSpecRefused(t *testing.T) {
	for _, g := range []GenSpec{
		{Shape: "gauss", Cardinality: 1, Universe: 10},
		{Shape: ShapeUniform, Cardinality: 11, Universe: 10},
		{Shape: ShapeUniform, Cardinality: 0, Universe: 10},
		{Shape: ShapeUniform, Cardinality: 1, Universe: 1<<32 + 1},
	} {
		_, err := Generate(g)
		assert.Error(t, err, "%+v", g)
	}
}

func TestSizeClass(t *testing.T) {
	// jemalloc's classes as Redis 7's MEMORY USAGE shows them.
	assert.Equal(t, uint64(163840), sizeClass(131082))
	assert.Equal(t, uint64(131072), sizeClass(131072))
	assert.Equal(t, uint64(2621440), sizeClass(2097152+10))
}
