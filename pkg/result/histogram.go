package result

import (
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// EncodeHistogram is a histogram as results store it (Run.Histogram,
// Operation.Histogram): HdrHistogram's compressed V2 encoding in base64;
// "" for a nil histogram or one that cannot be encoded.
func EncodeHistogram(h *hdr.Histogram) string {
	if h == nil {
		return ""
	}
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(enc)
}

// DecodeHistogram reads a histogram as EncodeHistogram wrote it.
func DecodeHistogram(s string) (*hdr.Histogram, error) {
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	return h, nil
}
