package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// payloadOf undoes the base64 and the zlib of a V2 compressed encoding,
// checking the wrapper's cookie and length.
func payloadOf(t testing.TB, enc string) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(enc)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(raw), 8)
	assert.Equal(t, uint32(compressedCookie), binary.BigEndian.Uint32(raw))
	require.Equal(t, int(binary.BigEndian.Uint32(raw[4:])), len(raw)-8, "the compressed length")
	z, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	require.NoError(t, err)
	p, err := io.ReadAll(z) // checks the Adler-32 at the end
	require.NoError(t, err)
	return p
}

// TestEncodeHistogramIsHdrsPayload: EncodeHistogram compresses the very
// payload hdr's own Encode does, and hdr.Decode reads it back equal.
func TestEncodeHistogramIsHdrsPayload(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name  string
		low   int64
		high  int64
		sig   int
		value func(i int) int64
		n     int
		count int64
	}{
		{"empty", 1, 60_000_000, 3, nil, 0, 0},
		{"one value", 1, 60_000_000, 3, func(int) int64 { return 1234 }, 1, 1},
		{"lowest and highest", 1, 60_000_000, 3, func(i int) int64 { return []int64{1, 60_000_000}[i%2] }, 2, 1},
		{"zeros counted", 1, 1_000_000, 2, func(i int) int64 { return int64(i % 3) }, 30, 1},
		{"spread", 1, 60_000_000, 3, func(int) int64 { return 1 + rng.Int64N(60_000_000) }, 20_000, 1},
		{"latencies", 1, 60_000_000, 3, func(int) int64 { return 50 + int64(rng.ExpFloat64()*300) }, 100_000, 1},
		{"nine-byte counts", 1, 3_600_000, 5, func(i int) int64 { return int64(1 + i*7919) }, 3, 1 << 57},
		{"other range", 10, 100_000, 1, func(i int) int64 { return int64(10 + i) }, 1000, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := hdr.New(c.low, c.high, c.sig)
			for i := range c.n {
				require.NoError(t, h.RecordValues(c.value(i), c.count))
			}
			enc := EncodeHistogram(h)
			theirs, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
			require.NoError(t, err)
			assert.Equal(t, payloadOf(t, string(theirs)), payloadOf(t, enc), "the uncompressed V2 payload")
			back, err := DecodeHistogram(enc)
			require.NoError(t, err)
			assert.True(t, h.Equals(back), "decoded equal")
			assert.Equal(t, h.TotalCount(), back.TotalCount())
		})
	}
	t.Run("a conversion ratio kept from a decoded histogram", func(t *testing.T) {
		h := hdr.Import(&hdr.Snapshot{LowestTrackableValue: 1, HighestTrackableValue: 1_000_000, SignificantFigures: 2,
			Counts: []int64{0, 3, 0, 0, 7}, IntegerToDoubleConversionRatio: 0.001})
		theirs, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
		require.NoError(t, err)
		assert.Equal(t, payloadOf(t, string(theirs)), payloadOf(t, EncodeHistogram(h)))
	})
	t.Run("every bucket, a payload over one deflate block", func(t *testing.T) {
		h := hdr.New(1, 60_000_000, 3)
		for v := int64(1); v <= 60_000_000; v += max(1, v/4096) {
			require.NoError(t, h.RecordValues(v, 100_000+v%1000))
		}
		p := payloadOf(t, EncodeHistogram(h))
		require.Greater(t, len(p), 40<<10, "more than one of the stateless deflate's blocks (under 32 KB each)")
		theirs, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
		require.NoError(t, err)
		assert.Equal(t, payloadOf(t, string(theirs)), p)
		back, err := DecodeHistogram(EncodeHistogram(h))
		require.NoError(t, err)
		assert.True(t, h.Equals(back))
	})
	assert.Empty(t, EncodeHistogram(nil))
}

// TestEncodeHistogramAllocatesLittle: a run's report encodes a few histograms;
// hdr's Encode allocates about 850 KB for each. EncodeHistogram allocates
// a copy of the counts for each, and its compressor's state (about 300 KB)
// once, kept for the next.
func TestEncodeHistogramAllocatesLittle(t *testing.T) {
	testenv.NoRaceForAllocs(t) // the race detector drops sync.Pool items, the compressor's among them
	h := hdr.New(1, 60_000_000, 3)
	for i := range 100_000 {
		_ = h.RecordValue(int64(100 + i%5000))
	}
	const n = 4
	heapBytes := func(encode func()) uint64 {
		defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no collection empties the compressor's pool
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			encode()
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	ours := heapBytes(func() { _ = EncodeHistogram(h) })
	theirs := heapBytes(func() { _, _ = h.Encode(hdr.V2CompressedEncodingCookieBase) })
	t.Logf("bytes allocated to encode %d histograms: %d here, %d by hdr's Encode", n, ours, theirs)
	assert.Less(t, ours, uint64(n*h.ByteSize()+512<<10), "a copy of the counts each, and the compressor once")
	assert.Less(t, 2*ours, theirs)
}

// FuzzEncodeHistogram: any recorded values encode to what hdr.Decode reads
// back equal, with hdr's own payload.
func FuzzEncodeHistogram(f *testing.F) {
	f.Add([]byte{1, 2, 3}, uint8(3))
	f.Add([]byte{}, uint8(1))
	f.Add([]byte{255, 0, 0, 0, 0, 0, 0, 0, 9}, uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, sig uint8) {
		h := hdr.New(1, 1<<40, int(sig%5)+1)
		for len(data) > 0 {
			n := min(len(data), 5)
			var v int64
			for _, b := range data[:n] {
				v = v<<8 | int64(b)
			}
			data = data[n:]
			_ = h.RecordValues(max(v%(1<<40), 1), int64(n))
		}
		enc := EncodeHistogram(h)
		theirs, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
		require.NoError(t, err)
		require.Equal(t, payloadOf(t, string(theirs)), payloadOf(t, enc))
		back, err := DecodeHistogram(enc)
		require.NoError(t, err)
		require.True(t, h.Equals(back))
	})
}

// TestRunHistograms: a run's histograms come back from the run itself,
// each count where it was recorded; none, without an error, when absent;
// a damaged one is an error, not a silent nil.
func TestRunHistograms(t *testing.T) {
	service := hdr.New(1, 3_600_000_000, 3)
	corrected := hdr.New(1, 3_600_000_000, 3)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		v := 50 + rng.Int64N(5_000)
		require.NoError(t, service.RecordValue(v))
		require.NoError(t, corrected.RecordValue(v+rng.Int64N(100_000)))
	}
	r := &Run{Histogram: EncodeHistogram(service), HistogramCorrected: EncodeHistogram(corrected)}
	tests := []struct {
		name string
		get  func() (*hdr.Histogram, error)
		want *hdr.Histogram
	}{
		{"service", r.LatencyHistogram, service},
		{"corrected", r.CorrectedHistogram, corrected},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := tc.get()
			require.NoError(t, err)
			assert.Equal(t, tc.want.Export().Counts, h.Export().Counts)
			for _, q := range []float64{50, 99, 99.9, 100} {
				assert.Equal(t, tc.want.ValueAtQuantile(q), h.ValueAtQuantile(q))
			}
		})
	}
	h, err := (&Run{}).CorrectedHistogram()
	assert.NoError(t, err)
	assert.Nil(t, h, "a closed loop has no corrected histogram")
	_, err = (&Run{Histogram: "not a histogram"}).LatencyHistogram()
	assert.Error(t, err)
}
