package result

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/klauspost/compress/flate"
)

// The V2 encoding's cookies (HdrHistogram's format, as hdr writes them):
// the compressed wrapper's and the payload's, each with the 0x10 of a
// 64-bit count word size.
const (
	compressedCookie = hdr.V2CompressedEncodingCookieBase | 0x10
	payloadCookie    = hdr.V2EncodingCookieBase | 0x10
)

// EncodeHistogram is a histogram as results store it (Run.Histogram,
// Operation.Histogram): HdrHistogram's compressed V2 encoding in base64,
// which hdr.Decode and the other HdrHistogram libraries read; "" for a nil
// histogram.
//
// It is the payload hdr's Encode compresses, byte for byte, deflated here
// by a stateless compressor: hdr's own zlib writer, at best compression,
// takes about 850 KB of heap for each histogram, which raised a run's peak
// memory at its report by that much a histogram.
func EncodeHistogram(h *hdr.Histogram) string {
	if h == nil {
		return ""
	}
	payload := v2Payload(h.Export())
	z := bytes.NewBuffer(make([]byte, 8, 8+len(payload)/2+64))
	z.Write([]byte{0x78, 0x01}) // zlib: deflate, 32 KB window, fastest
	if err := flate.StatelessDeflate(z, payload, true, nil); err != nil {
		return "" // a bytes.Buffer takes every write
	}
	out := binary.BigEndian.AppendUint32(z.Bytes(), adler32.Checksum(payload))
	binary.BigEndian.PutUint32(out[0:], uint32(compressedCookie))
	binary.BigEndian.PutUint32(out[4:], uint32(len(out)-8))
	return base64.StdEncoding.EncodeToString(out)
}

// v2Payload is the uncompressed V2 encoding of s: a 40-byte header, then
// the counts up to the last one that is not zero (at least one), each a
// ZigZag LEB128 number, a run of two or more zeros written as its length
// negated.
func v2Payload(s *hdr.Snapshot) []byte {
	limit := 1
	for i := len(s.Counts) - 1; i > 0; i-- {
		if s.Counts[i] != 0 {
			limit = i + 1
			break
		}
	}
	counts := make([]byte, 0, 64)
	for i := 0; i < limit; {
		n := s.Counts[i]
		i++
		if n == 0 {
			zeros := int64(1)
			for i < limit && s.Counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				n = -zeros
			}
		}
		counts = appendZigZag(counts, n)
	}
	b := make([]byte, 0, 40+len(counts))
	b = binary.BigEndian.AppendUint32(b, uint32(payloadCookie))
	b = binary.BigEndian.AppendUint32(b, uint32(len(counts)))
	b = binary.BigEndian.AppendUint32(b, 0) // normalizing index offset
	b = binary.BigEndian.AppendUint32(b, uint32(s.SignificantFigures))
	b = binary.BigEndian.AppendUint64(b, uint64(s.LowestTrackableValue))
	b = binary.BigEndian.AppendUint64(b, uint64(s.HighestTrackableValue))
	ratio := s.IntegerToDoubleConversionRatio // metadata a decoded histogram keeps; 0 is the default, 1
	if ratio == 0 {
		ratio = 1
	}
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(ratio))
	return append(b, counts...)
}

// appendZigZag appends v as HdrHistogram's ZigZag LEB128-64b9B: seven bits
// a byte for the first eight bytes, the ninth carrying the last eight.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for range 8 {
		if u < 0x80 {
			return append(b, byte(u))
		}
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// DecodeHistogram reads a histogram as EncodeHistogram wrote it.
func DecodeHistogram(s string) (*hdr.Histogram, error) {
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	return h, nil
}

// LatencyHistogram is the run's latency histogram (Histogram: from each
// request's send), decoded; nil, and no error, when the run has none.
// The histogram travels inside the result only: whoever needs it, a
// report or an HDR file, takes it from here.
func (r *Run) LatencyHistogram() (*hdr.Histogram, error) {
	if r == nil || r.Histogram == "" {
		return nil, nil
	}
	return DecodeHistogram(r.Histogram)
}

// CorrectedHistogram is the run's latency from each request's intended
// start (HistogramCorrected), decoded; nil, and no error, in a closed
// loop.
func (r *Run) CorrectedHistogram() (*hdr.Histogram, error) {
	if r == nil || r.HistogramCorrected == "" {
		return nil, nil
	}
	return DecodeHistogram(r.HistogramCorrected)
}
