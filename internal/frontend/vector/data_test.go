package vector

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/pkg/result"
)

// TestDataSpecLoad: the generator's set, normalised for COSINE; a k above
// the base; ground truth cached under a name of the set's bytes, found
// again by the same set and not by another.
func TestDataSpecLoad(t *testing.T) {
	d := DataSpec{Data: "clustered", N: 200, NQ: 10, Dims: 4, Centres: 5, Metric: "COSINE", K: 5, Seed: 1, TruthDir: t.TempDir()}
	s, truth, err := d.Load()
	require.NoError(t, err)
	assert.Equal(t, 200, s.N())
	assert.Equal(t, 10, s.NQ())
	require.NotNil(t, truth)
	var norm float64
	for _, v := range s.Row(0) {
		norm += float64(v) * float64(v)
	}
	assert.InDelta(t, 1, norm, 1e-5, "COSINE vectors are normalised")
	path := d.truthPath(s)
	require.FileExists(t, path)
	other := d
	other.Seed = 2
	s2, _, err := other.Load()
	require.NoError(t, err)
	assert.NotEqual(t, path, other.truthPath(s2), "another set, another cache")
	assert.Empty(t, DataSpec{}.truthPath(s), "no folder, no cache")

	d.K = 500
	_, _, err = d.Load()
	assert.ErrorContains(t, err, "-k 500 is more than the 200 base vectors")
}

// TestSuiteSaysWhatIsAbsent: a case whose data is not in the folder is
// named as absent, with how to provide it, and nothing runs for it.
func TestSuiteSaysWhatIsAbsent(t *testing.T) {
	io, out, _ := harness.Captured("test")
	dir := t.TempDir()
	res, err := RunSuite(context.Background(), SuiteOptions{Data: DataSpec{Dir: dir, K: 10, NQ: 10}, Cases: []string{"sift-128-euclidean", "random-s-100"}}, io)
	require.NoError(t, err)
	assert.Empty(t, res.Cases, "nothing ran")
	assert.Len(t, res.Absent, 2)
	assert.Contains(t, out.String(), "2 case(s) not run, their data absent from "+dir+": sift-128-euclidean, random-s-100")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the suite wrote nothing into the data folder")
}

// TestWarnings: an embedded engine is named as not Tair; two engines get
// the equal-recall and set-up notes; recall's definition always closes.
func TestWarnings(t *testing.T) {
	one := &result.VectorBench{Engines: []result.VectorEngine{{Engine: "tairvector", Target: "127.0.0.1:1: embedded server"}}}
	w := warnings(one)
	require.Len(t, w, 2)
	assert.Contains(t, w[0], "not Tair")
	assert.Contains(t, w[1], "Recall@k")
	two := &result.VectorBench{Engines: []result.VectorEngine{{Engine: "tairvector", Target: "10.0.0.1:6379"}, {Engine: "elasticsearch"}}}
	w = warnings(two)
	require.Len(t, w, 3)
	assert.Contains(t, w[0], "at equal recall")
	assert.Equal(t, "-", mb(0))
	assert.Equal(t, "1.5", mb(3<<19))
}
