package vector

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tairbench/tairbench/internal/vecdata"
	"github.com/tairbench/tairbench/internal/vector"
)

// DataSpec says which vectors to use.
type DataSpec struct {
	// Data is "clustered" (the generator), a prepared set's name
	// (random-s-100, random-xs-20, or an ann-benchmarks name converted into
	// Dir) or a file (.fvecs, .bvecs, .npy).
	Data string
	// Queries is the query file for a Data file (default: its last NQ rows).
	Queries string
	// N, NQ, Dims, Centres shape the generator; NQ also caps the queries
	// of any set (0: all of them).
	N, NQ, Dims, Centres int
	Metric               string
	Seed                 uint64
	// Dir holds prepared sets; TruthDir the ground truth caches ("": none).
	Dir, TruthDir string
	K             int
}

// Load reads or generates the set and its ground truth (cached in Dir).
func (d DataSpec) Load() (*vecdata.Set, *vecdata.Truth, error) {
	m, ok := vector.ParseMetric(d.Metric)
	if !ok || m == vector.Jaccard {
		return nil, nil, fmt.Errorf("--metric %q: want L2, IP or COSINE", d.Metric)
	}
	if d.K < 1 || d.K > 10000 {
		return nil, nil, fmt.Errorf("-k %d: want 1 to 10000", d.K)
	}
	var s *vecdata.Set
	var err error
	switch {
	case d.Data == "clustered":
		if d.N < 1 || d.NQ < 1 || d.Dims < 1 || d.Dims > 32768 || d.Centres < 1 {
			return nil, nil, errors.New("clustered data needs --n, --nq, --dims (1..32768) and --centres, each at least 1")
		}
		s = vecdata.Clustered(d.N, d.NQ, d.Dims, d.Centres, d.Seed)
	case filepath.Ext(d.Data) == "":
		s, err = vecdata.OpenPrepared(d.Data, d.Dir)
	default:
		s, err = vecdata.FromFiles(d.Data, d.Queries, d.NQ)
	}
	if err != nil {
		return nil, nil, err
	}
	if d.NQ > 0 && d.NQ < s.NQ() && d.Data != "clustered" {
		s.Test = s.Test[:d.NQ*s.Dims]
		s.Source += fmt.Sprintf("; its first %d queries", d.NQ)
	}
	s.Metric = m
	if m == vector.Cosine {
		for i := 0; i < s.N(); i++ {
			vector.Normalize(s.Row(i))
		}
		for i := 0; i < s.NQ(); i++ {
			vector.Normalize(s.Query(i))
		}
	}
	if d.K > s.N() {
		return nil, nil, fmt.Errorf("-k %d is more than the %d base vectors", d.K, s.N())
	}
	t, err := vecdata.LoadTruth(s, d.K, d.truthPath(s))
	if err != nil {
		fmt.Fprintf(os.Stderr, "ground truth not cached: %v\n", err)
	}
	return s, t, nil
}

// truthPath names the ground truth cache by the set's bytes and metric.
func (d DataSpec) truthPath(s *vecdata.Set) string {
	if d.TruthDir == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d %s %d %d\n", s.Dims, s.Metric, s.N(), s.NQ())
	for _, part := range [][]float32{s.Train, s.Test} {
		b := make([]byte, 0, 4096)
		for i, f := range part {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
			if len(b) >= 4096 || i == len(part)-1 {
				h.Write(b)
				b = b[:0]
			}
		}
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(s.Name)
	return filepath.Join(d.TruthDir, fmt.Sprintf("%s-%x-k%d.ivecs", name, h.Sum(nil)[:8], d.K))
}
