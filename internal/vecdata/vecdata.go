// Package vecdata holds the vector benchmark's datasets: base vectors,
// query vectors, their metric and the exact ground truth. Sets come from
// the generator (clustered, like scikit-learn's make_blobs), from files
// (.fvecs, .bvecs, .ivecs, .npy), or from the caches the project's
// scripts write (Random-s-100 from scikit-learn, MiniLM embeddings).
package vecdata

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"codeberg.org/sbinet/npyio"

	"github.com/tairbench/tairbench/internal/ann"
	"github.com/tairbench/tairbench/internal/vector"
)

// Set is a dataset: Train (n × Dims, row-major) is loaded, Test queried.
type Set struct {
	Name   string
	Dims   int
	Metric vector.Metric
	Train  []float32
	Test   []float32
	// Source says where the vectors came from (a file, the generator's
	// parameters, a script).
	Source string
}

// N is the number of base vectors.
func (s *Set) N() int { return len(s.Train) / s.Dims }

// NQ is the number of queries.
func (s *Set) NQ() int { return len(s.Test) / s.Dims }

// Row returns base vector i.
func (s *Set) Row(i int) []float32 { return s.Train[i*s.Dims : (i+1)*s.Dims] }

// Query returns query i.
func (s *Set) Query(i int) []float32 { return s.Test[i*s.Dims : (i+1)*s.Dims] }

// Clustered generates n base and nq query vectors of dims around centres
// centres, as scikit-learn's make_blobs does (centres uniform in
// [−10, 10), points N(centre, 1), shuffled), then split at random: the
// distribution of ann-benchmarks' random-*-euclidean sets, not their bytes.
func Clustered(n, nq, dims, centres int, seed uint64) *Set {
	r := rand.New(rand.NewPCG(seed, 0x7e57))
	c := make([]float32, centres*dims)
	for i := range c {
		c[i] = float32(r.Float64()*20 - 10)
	}
	all := make([]float32, (n+nq)*dims)
	for i := 0; i < n+nq; i++ {
		ci := i % centres
		for j := 0; j < dims; j++ {
			all[i*dims+j] = c[ci*dims+j] + float32(r.NormFloat64())
		}
	}
	tmp := make([]float32, dims)
	for i := n + nq - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		copy(tmp, all[i*dims:(i+1)*dims])
		copy(all[i*dims:(i+1)*dims], all[j*dims:(j+1)*dims])
		copy(all[j*dims:(j+1)*dims], tmp)
	}
	return &Set{Name: fmt.Sprintf("clustered-%d-%d", dims, n), Dims: dims, Metric: vector.L2,
		Train: all[:n*dims], Test: all[n*dims:],
		Source: fmt.Sprintf("generated: %d base + %d query vectors, %d dims, %d centres, seed %d", n, nq, dims, centres, seed)}
}

// Truth is each query's k nearest base vectors by exact search, and the
// k-th one's distance, against which recall counts a returned neighbour.
type Truth struct {
	K   int
	IDs [][]uint32
	// Kth is each query's k-th nearest distance, in the form recall
	// compares (true L2, not squared; 1 − cos or 1 − dot otherwise).
	Kth []float64
	set *Set
	// keep, when set, is the filter the truth was computed under: a
	// returned vector it does not keep is a miss.
	keep func(uint32) bool
}

// GroundTruth computes the exact k nearest base vectors of every query,
// in parallel on every core.
func GroundTruth(s *Set, k int) *Truth { return GroundTruthWhere(s, k, nil) }

// GroundTruthWhere computes the exact k nearest of the base vectors keep
// keeps (nil: all), in parallel on every core: the truth of a filtered
// search. The kept vectors are copied together first, so each query scans
// only them.
func GroundTruthWhere(s *Set, k int, keep func(uint32) bool) *Truth {
	dist := DistFunc(s.Metric)
	rows, slots := s.Train, []uint32(nil)
	if keep != nil {
		rows = nil
		for i := 0; i < s.N(); i++ {
			if keep(uint32(i)) {
				rows = append(rows, s.Row(i)...)
				slots = append(slots, uint32(i))
			}
		}
	}
	t := &Truth{K: k, IDs: make([][]uint32, s.NQ()), keep: keep}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				q := int(next.Add(1) - 1)
				if q >= s.NQ() {
					return
				}
				hits := ann.Exact(rows, s.Dims, s.Query(q), k, dist)
				ids := make([]uint32, len(hits))
				for j, h := range hits {
					ids[j] = h.Slot
					if slots != nil {
						ids[j] = slots[h.Slot]
					}
				}
				t.IDs[q] = ids
			}
		}()
	}
	wg.Wait()
	t.bind(s)
	return t
}

// Attributes gives n base vectors an integer attribute each: a random
// permutation of 0..n−1 (seeded), so "attribute < ⌈s·n⌉" keeps a share s
// of the vectors exactly, spread over the set independently of where the
// vectors lie.
func Attributes(n int, seed uint64) []int32 {
	r := rand.New(rand.NewPCG(seed, 0xa77e))
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	r.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// bind keeps the set and computes each query's k-th distance.
func (t *Truth) bind(s *Set) {
	t.set = s
	t.Kth = make([]float64, len(t.IDs))
	for q, ids := range t.IDs {
		ids = ids[:min(t.K, len(ids))]
		t.IDs[q] = ids
		if len(ids) == 0 {
			t.Kth[q] = math.Inf(-1) // nothing is kept: nothing returned can be right
			continue
		}
		t.Kth[q] = t.compared(q, ids[len(ids)-1])
	}
}

// compared is the distance recall compares between query q and base id.
func (t *Truth) compared(q int, id uint32) float64 { return t.set.compared(q, id) }

// compared is the distance recall compares between query q and base id:
// true L2, not squared; 1 − cos or 1 − dot otherwise.
func (s *Set) compared(q int, id uint32) float64 {
	d := float64(vector.Distance(s.Metric, s.Query(q), s.Row(int(id))))
	if s.Metric == vector.L2 {
		return math.Sqrt(max(d, 0))
	}
	return d
}

// PrefixNearest is, for query q and each n of prefixes (ascending), the
// exact k nearest of base vectors 0..n−1, nearest first: what a search
// sent when the first n vectors had been acknowledged should find. The
// base is scanned once for all of them.
func (s *Set) PrefixNearest(q, k int, prefixes []int) [][]uint32 {
	dist := DistFunc(s.Metric)
	type hit struct {
		id uint32
		d  float32
	}
	top := make([]hit, 0, k+1)
	out := make([][]uint32, len(prefixes))
	row := 0
	for i, n := range prefixes {
		for ; row < min(n, s.N()); row++ {
			d := dist(s.Query(q), s.Row(row))
			if len(top) == k && d >= top[k-1].d {
				continue
			}
			at, _ := slices.BinarySearchFunc(top, d, func(h hit, d float32) int {
				if h.d <= d {
					return -1 // ties: the earlier vector stays ahead
				}
				return 1
			})
			top = slices.Insert(top, at, hit{uint32(row), d})
			if len(top) > k {
				top = top[:k]
			}
		}
		ids := make([]uint32, len(top))
		for j, h := range top {
			ids[j] = h.id
		}
		out[i] = ids
	}
	return out
}

// RecallAgainst is Recall against nearest, the true k nearest of query q
// (nearest first) from PrefixNearest: a returned id counts when its
// distance is within Epsilon of the last of nearest's.
func (s *Set) RecallAgainst(q int, nearest, got []uint32, k int) float64 {
	if len(nearest) == 0 {
		return 1
	}
	kth := s.compared(q, nearest[len(nearest)-1])
	n := 0
	for i, g := range got {
		if i >= k || int(g) >= s.N() || slices.Contains(got[:i], g) {
			continue
		}
		if s.compared(q, g) <= kth+Epsilon {
			n++
		}
	}
	return float64(n) / float64(min(k, len(nearest)))
}

// Epsilon is ann-benchmarks' slack: a returned neighbour within it of
// the true k-th distance counts, so ties at the k-th place are not misses.
const Epsilon = 1e-3

// Recall is the share of got that are true k nearest neighbours of query
// q, as ann-benchmarks counts it: a returned id counts when its distance to
// the query is at most the true k-th distance plus Epsilon (each id once;
// ids outside the base set, or that the truth's filter does not keep,
// count as misses).
func (t *Truth) Recall(q int, got []uint32, k int) float64 {
	if len(t.IDs[q]) == 0 {
		return 1 // nothing to find, and finding nothing is right
	}
	n := 0
	for i, g := range got {
		if i >= k || int(g) >= t.set.N() || slices.Contains(got[:i], g) || (t.keep != nil && !t.keep(g)) {
			continue
		}
		if t.compared(q, g) <= t.Kth[q]+Epsilon {
			n++
		}
	}
	return float64(n) / float64(min(k, len(t.IDs[q])))
}

// DistFunc is the metric's distance (vectors already normalised for COSINE).
func DistFunc(m vector.Metric) ann.Dist {
	return func(a, b []float32) float32 { return vector.Distance(m, a, b) }
}

// LoadTruth reads a cached ground truth (.ivecs), or computes and writes
// it when the cache is missing or was made for fewer neighbours or
// queries. path "" computes without caching.
func LoadTruth(s *Set, k int, path string) (*Truth, error) {
	if path != "" {
		if ids, _, err := ReadIvecs(path); err == nil && len(ids) == s.NQ() && len(ids[0]) >= k {
			t := &Truth{K: k, IDs: ids}
			t.bind(s)
			return t, nil
		}
	}
	t := GroundTruth(s, k)
	if path == "" {
		return t, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return t, fmt.Errorf("ground truth cache: %w", err)
	}
	return t, writeIvecs(path, t.IDs)
}

// ReadFile reads base or query vectors from path by its extension:
// .fvecs (float32), .bvecs (uint8) or .npy (2-D float32 or float64).
func ReadFile(path string) ([]float32, int, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".fvecs":
		return readVecs(path, 4)
	case ".bvecs":
		return readVecs(path, 1)
	case ".npy":
		return readNpy(path)
	case ".hdf5", ".h5":
		return nil, 0, fmt.Errorf("%s: HDF5 is read through h5py: python3 scripts/vector_data.py hdf5 %s DIR "+
			"writes its train and test sets to DIR/NAME, then give --data NAME --data-dir DIR", path, path)
	}
	return nil, 0, fmt.Errorf("%s: unknown vector file type (want .fvecs, .bvecs, .npy or .hdf5)", path)
}

// readVecs reads the TEXMEX format: each vector is a little-endian int32
// dimension and that many elements of size bytes (float32 or uint8).
func readVecs(path string, size int) ([]float32, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	out, dims, err := ParseVecs(b, size)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return out, dims, nil
}

// ParseVecs parses TEXMEX vectors (size 4: .fvecs, 1: .bvecs); an error
// names the byte offset where the input goes wrong.
func ParseVecs(b []byte, size int) ([]float32, int, error) {
	var out []float32
	dims := 0
	for off := 0; off < len(b); {
		if off+4 > len(b) {
			return nil, 0, fmt.Errorf("truncated at byte %d: a vector's 4-byte dimension is cut short", off)
		}
		d := int(int32(binary.LittleEndian.Uint32(b[off:])))
		if d <= 0 || (dims != 0 && d != dims) {
			return nil, 0, fmt.Errorf("byte %d: dimension %d (the file's first vector has %d)", off, d, dims)
		}
		dims = d
		if need := 4 + d*size; need > len(b)-off {
			return nil, 0, fmt.Errorf("truncated at byte %d: the vector starting at byte %d needs %d bytes, %d remain",
				len(b), off, need, len(b)-off)
		}
		end := off + 4 + d*size
		for i := off + 4; i < end; i += size {
			if size == 4 {
				f := math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))
				if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
					return nil, 0, fmt.Errorf("byte %d: element %v is not a finite number", i, f)
				}
				out = append(out, f)
			} else {
				out = append(out, float32(b[i]))
			}
		}
		off = end
	}
	if dims == 0 {
		return nil, 0, errors.New("no vectors")
	}
	return out, dims, nil
}

// ReadIvecs reads integer vectors (ground truth neighbour ids).
func ReadIvecs(path string) ([][]uint32, int, error) {
	f, dims, err := readVecsRaw(path)
	if err != nil {
		return nil, 0, err
	}
	out := make([][]uint32, 0, len(f)/max(dims, 1))
	for i := 0; i+dims <= len(f); i += dims {
		out = append(out, f[i:i+dims])
	}
	return out, dims, nil
}

func readVecsRaw(path string) ([]uint32, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	var out []uint32
	dims := 0
	for off := 0; off < len(b); {
		if off+4 > len(b) {
			return nil, 0, fmt.Errorf("%s: truncated at byte %d", path, off)
		}
		d := int(binary.LittleEndian.Uint32(b[off:]))
		end := off + 4 + 4*d
		if d <= 0 || end > len(b) || (dims != 0 && d != dims) {
			return nil, 0, fmt.Errorf("%s: truncated or malformed at byte %d", path, off)
		}
		dims = d
		for i := off + 4; i < end; i += 4 {
			out = append(out, binary.LittleEndian.Uint32(b[i:]))
		}
		off = end
	}
	return out, dims, nil
}

func writeIvecs(path string, rows [][]uint32) error {
	var b []byte
	for _, r := range rows {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r)))
		for _, x := range r {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("ground truth cache: %w", err)
	}
	return os.Rename(tmp, path)
}

// WriteFvecs writes vectors (rows of dims) in the .fvecs format.
func WriteFvecs(path string, data []float32, dims int) error {
	b := make([]byte, 0, len(data)/dims*(4+4*dims))
	for i := 0; i < len(data); i += dims {
		b = binary.LittleEndian.AppendUint32(b, uint32(dims))
		for _, f := range data[i : i+dims] {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
	}
	return os.WriteFile(path, b, 0o644)
}

func readNpy(path string) ([]float32, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	r, err := npyio.NewReader(f)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	shape := r.Header.Descr.Shape
	if len(shape) != 2 || shape[1] < 1 {
		return nil, 0, fmt.Errorf("%s: want a 2-D array (vectors × dims), got shape %v", path, shape)
	}
	if r.Header.Descr.Fortran {
		return nil, 0, fmt.Errorf("%s: Fortran-ordered arrays are not read; save it C-ordered (np.ascontiguousarray)", path)
	}
	var out []float32
	switch strings.Trim(r.Header.Descr.Type, "'\"") {
	case "<f4":
		err = r.Read(&out)
	case "<f8":
		var f64 []float64
		if err = r.Read(&f64); err == nil {
			out = make([]float32, len(f64))
			for i, v := range f64 {
				out[i] = float32(v)
			}
		}
	default:
		return nil, 0, fmt.Errorf("%s: element type %s; want float32 (<f4) or float64 (<f8)", path, r.Header.Descr.Type)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return out, shape[1], nil
}

// ErrMissing is a named dataset whose files are not there yet.
var ErrMissing = errors.New("dataset not prepared")
