package vector

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAndFormat(t *testing.T) {
	cases := []struct {
		in   string
		dims int
		dt   DataType
		out  string
		err  string
	}{
		{in: "[0.12, 0.23, 0.56, 0.67, 0.78, 0.89, 0.01, 0.89]", dims: 8, out: "[0.12,0.23,0.56,0.67,0.78,0.89,0.01,0.89]"},
		{in: "[7,3]", dims: 2, out: "[7,3]"},
		{in: " [ 1e-07 , 1.0E-5 ] ", dims: 2, out: "[1e-07,1e-05]"},
		{in: "[0.123457,2.000000]", dims: 2, out: "[0.123457,2]"},
		{in: "[1,1,1,1,0,0,0,0]", dims: 8, dt: Binary, out: "[1,1,1,1,0,0,0,0]"},
		{in: "[1,2]", dims: 2, dt: Binary, err: "BINARY"},
		{in: "[0.1]", dims: 1, dt: Float16, out: "[0.099975586]"},
		{in: "[70000]", dims: 1, dt: Float16, err: "FLOAT16"},
		{in: "[1,2,3]", dims: 2, err: "Illegal vector dimensions"},
		{in: "[1]", dims: 2, err: "Illegal vector dimensions"},
		{in: "[]", dims: 2, err: "Illegal vector dimensions"},
		{in: "1,2", dims: 2, err: "must start with '['"},
		{in: "[1,2", dims: 2, err: "must end with ']'"},
		{in: "[1,x]", dims: 2, err: "invalid vector element"},
		{in: "[1,,2]", dims: 2, err: "invalid vector element"},
		{in: "[1,NaN]", dims: 2, err: "invalid vector element"},
		{in: "[1,2]x", dims: 2, err: "after the vector"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			v, err := Parse([]byte(c.in), c.dims, c.dt)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.out, string(Format(v)))
		})
	}
}

// The reference's distances (tair-api: tairvector.md §2): L2 is squared and
// accumulated in float32, printed with 17 significant digits.
func TestDistancesAsTairPrintsThem(t *testing.T) {
	q := []float32{3, 3.1}
	assert.Equal(t, "0.81000018119812012", FormatDistance(Distance(L2, q, []float32{3, 4})))
	assert.Equal(t, "12.410000801086426", FormatDistance(Distance(L2, q, []float32{5, 6})))
	zero := []float32{0, 0}
	for v, want := range map[[2]float32]string{{7, 3}: "58", {9, 2}: "85", {5, 2}: "29", {5, 5}: "50", {8, 9}: "145", {1, 2}: "5"} {
		assert.Equal(t, want, FormatDistance(Distance(L2, zero, v[:])), "%v", v)
	}
	a, b := []float32{1, 1, 0, 0, 1, 0, 1, 0}, []float32{1, 0, 0, 0, 1, 1, 1, 0}
	assert.InDelta(t, 1-3.0/5.0, float64(Distance(Jaccard, a, b)), 1e-7)
	assert.Zero(t, Distance(Jaccard, make([]float32, 8), make([]float32, 8)))
	assert.Equal(t, float32(1-(0.5*0.25+2*1)), Distance(IP, []float32{0.5, 2}, []float32{0.25, 1}))
	v := []float32{3, 4}
	Normalize(v)
	assert.Equal(t, []float32{0.6, 0.8}, v)
	assert.InDelta(t, 0, float64(Distance(Cosine, v, v)), 1e-7)
}

func TestNamesAndPairs(t *testing.T) {
	for _, s := range []string{"l2", "IP", "Cosine", "JACCARD"} {
		m, ok := ParseMetric(s)
		require.True(t, ok, s)
		assert.Equal(t, upper(s), m.String())
	}
	_, ok := ParseMetric("HAMMING")
	assert.False(t, ok)
	for _, s := range []string{"float32", "FLOAT16", "Binary"} {
		d, ok := ParseDataType(s)
		require.True(t, ok, s)
		assert.Equal(t, upper(s), d.String())
	}
	assert.True(t, Valid(Jaccard, Binary))
	assert.False(t, Valid(L2, Binary), "ERR index parameters invalid")
	assert.False(t, Valid(IP, Binary))
	assert.False(t, Valid(Jaccard, Float32))
	assert.True(t, Valid(Cosine, Float16))
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"[1,2]", "[0.12, 0.23]", "[1e-07,1.0E-5]", "[", "]", "[1,,]", "[ 1 , 2 ]x"} {
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, in []byte, dims int) {
		dims = dims%64 + 1
		if dims < 1 {
			dims = -dims + 1
		}
		for _, dt := range []DataType{Float32, Float16, Binary} {
			v, err := Parse(in, dims, dt)
			if err != nil {
				continue
			}
			require.Len(t, v, dims)
			back, err := Parse(Format(v), dims, dt)
			require.NoError(t, err, "%s", Format(v))
			require.Equal(t, v, back, "a formatted vector parses back to itself")
		}
	})
}

func TestRankDistanceAgrees(t *testing.T) {
	a := []float32{0.5, 1, -2, 3.25, 7, 0.125, 9}
	b := []float32{1, 0.5, 2, -3, 1, 1, 0}
	for _, m := range []Metric{L2, IP, Cosine, Jaccard} {
		assert.InDelta(t, Distance(m, a, b), RankDistance(m)(a, b), 1e-4, m.String())
	}
}

func BenchmarkDistance128(b *testing.B) {
	x, y := make([]float32, 128), make([]float32, 128)
	for i := range x {
		x[i], y[i] = float32(i), float32(128-i)
	}
	fast := RankDistance(L2)
	b.Run("exact", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Distance(L2, x, y)
		}
	})
	b.Run("lanes", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fast(x, y)
		}
	})
}
