// Package vector holds TairVector's data model for the embedded server:
// the vectors' text form (in and out), data types, distances and their
// text, after ../shared/reference/tairvector.md §2.
package vector

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/x448/float16"
)

// DataType is how an index stores its vectors.
type DataType int

// Data types (`data_type`).
const (
	Float32 DataType = iota
	Float16
	Binary
)

// ParseDataType reads a `data_type` value (any case).
func ParseDataType(s string) (DataType, bool) {
	switch upper(s) {
	case "FLOAT32":
		return Float32, true
	case "FLOAT16":
		return Float16, true
	case "BINARY":
		return Binary, true
	}
	return 0, false
}

func (d DataType) String() string {
	return [...]string{"FLOAT32", "FLOAT16", "BINARY"}[d]
}

// Metric is an index's distance method.
type Metric int

// Distance methods.
const (
	L2 Metric = iota
	IP
	Cosine
	Jaccard
)

// ParseMetric reads a distance method (any case).
func ParseMetric(s string) (Metric, bool) {
	switch upper(s) {
	case "L2":
		return L2, true
	case "IP":
		return IP, true
	case "COSINE":
		return Cosine, true
	case "JACCARD":
		return Jaccard, true
	}
	return 0, false
}

func (m Metric) String() string { return [...]string{"L2", "IP", "COSINE", "JACCARD"}[m] }

// Valid says whether a metric goes with a data type: JACCARD needs BINARY,
// and BINARY takes only JACCARD.
func Valid(m Metric, d DataType) bool { return (m == Jaccard) == (d == Binary) }

// ErrDims is a vector whose element count is not the index's dimension.
var ErrDims = errors.New("Illegal vector dimensions")

// Parse reads a vector's text, `[` numbers separated by `,` `]`, spaces
// allowed around them, integers and exponents (e or E) too. It must have
// dims elements; a BINARY vector takes 0 and 1 only; a FLOAT16 one values
// within ±65519 (stored rounded to half precision).
func Parse(text []byte, dims int, dt DataType) ([]float32, error) {
	i := skipSpace(text, 0)
	if i >= len(text) || text[i] != '[' {
		return nil, fmt.Errorf("vector must start with '['")
	}
	out := make([]float32, 0, dims)
	i = skipSpace(text, i+1)
	if i < len(text) && text[i] == ']' {
		return nil, ErrDims
	}
	for {
		j := i
		for j < len(text) && text[j] != ',' && text[j] != ']' && !isSpace(text[j]) {
			j++
		}
		v, err := strconv.ParseFloat(string(text[i:j]), 32)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("invalid vector element %q", text[i:j])
		}
		f, err := checkElement(float32(v), dt)
		if err != nil {
			return nil, err
		}
		if len(out) == dims {
			return nil, ErrDims
		}
		out = append(out, f)
		j = skipSpace(text, j)
		if j >= len(text) {
			return nil, fmt.Errorf("vector must end with ']'")
		}
		if text[j] == ']' {
			if skipSpace(text, j+1) != len(text) {
				return nil, fmt.Errorf("text after the vector's ']'")
			}
			break
		}
		i = skipSpace(text, j+1)
	}
	if len(out) != dims {
		return nil, ErrDims
	}
	return out, nil
}

func checkElement(f float32, dt DataType) (float32, error) {
	switch dt {
	case Binary:
		if f != 0 && f != 1 {
			return 0, fmt.Errorf("a BINARY vector takes 0 and 1 only")
		}
	case Float16:
		if f > 65519 || f < -65519 {
			return 0, fmt.Errorf("%v is out of FLOAT16's range (±65519)", f)
		}
		return float16.Fromfloat32(f).Float32(), nil // IEEE half precision, rounded to nearest even
	}
	return f, nil
}

// Format writes a vector as HGETALL returns it: no spaces, each element
// in its shortest float32 form (`[0.12,0.23]`, `[1,0,1]`).
func Format(v []float32) []byte {
	b := make([]byte, 0, 2+len(v)*8)
	b = append(b, '[')
	for i, f := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(f), 'g', -1, 32)
	}
	return append(b, ']')
}

// FormatDistance writes a distance as Tair prints it: the float32 result
// widened to float64, 17 significant digits, shortest exponent form
// ("0.81000018119812012", "12.410000801086426", "5", "25").
func FormatDistance(d float32) string {
	return strconv.FormatFloat(float64(d), 'g', 17, 64)
}

// Normalize scales v to unit length in place (COSINE indexes store
// normalised vectors); a zero vector stays zero.
func Normalize(v []float32) {
	var sum float32
	for _, f := range v {
		sum += f * f
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(float64(sum)))
	for i := range v {
		v[i] *= inv
	}
}

// Distance is the metric's distance between a and b, accumulated in
// float32 as Tair does: L2 is the squared Euclidean distance, IP 1 − a·b,
// COSINE 1 − a·b of normalised vectors, JACCARD 1 − |a∧b| / |a∨b| of 0/1
// vectors (0 for two empty ones).
func Distance(m Metric, a, b []float32) float32 {
	switch m {
	case L2:
		var sum float32
		for i := range a {
			d := a[i] - b[i]
			sum += d * d
		}
		return sum
	case IP, Cosine:
		var dot float32
		for i := range a {
			dot += a[i] * b[i]
		}
		return 1 - dot
	}
	var and, or float32
	for i := range a {
		x, y := a[i] != 0, b[i] != 0
		if x && y {
			and++
		}
		if x || y {
			or++
		}
	}
	if or == 0 {
		return 0
	}
	return 1 - and/or
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// RankDistance returns a function that orders vectors as Distance does but
// sums in four independent float32 lanes, about twice as fast; its value may
// differ from Distance's in the last bits, so replies recompute Distance for
// the hits. JACCARD has none (it returns Distance's).
func RankDistance(m Metric) func(a, b []float32) float32 {
	switch m {
	case L2:
		return l2Lanes
	case IP, Cosine:
		return func(a, b []float32) float32 { return 1 - dotLanes(a, b) }
	}
	return func(a, b []float32) float32 { return Distance(m, a, b) }
}

func l2Lanes(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	n := len(a) &^ 3
	b = b[:len(a)]
	for i := 0; i < n; i += 4 {
		d0, d1, d2, d3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for i := n; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

func dotLanes(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	n := len(a) &^ 3
	b = b[:len(a)]
	for i := 0; i < n; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for i := n; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
