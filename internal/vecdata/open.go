package vecdata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tairbench/tairbench/internal/vector"
)

// Prepared names the datasets a script makes from nothing, with the
// command that makes each.
var Prepared = map[string]string{
	"random-s-100": "python3 scripts/vector_data.py random-s-100 DIR (scikit-learn's make_blobs, ann-benchmarks' recipe)",
	"random-xs-20": "python3 scripts/vector_data.py random-xs-20 DIR (scikit-learn's make_blobs, ann-benchmarks' recipe)",
}

// OpenPrepared reads a prepared dataset from dir/NAME/{train,test}.npy:
// one a script made (Prepared), or an ann-benchmarks HDF5 file converted
// by `python3 scripts/vector_data.py hdf5 NAME.hdf5 DIR`.
func OpenPrepared(name, dir string) (*Set, error) {
	how, ok := Prepared[name]
	if !ok {
		how = fmt.Sprintf("python3 scripts/vector_data.py hdf5 %s.hdf5 DIR (ann-benchmarks' file, which you download)", name)
	}
	base := filepath.Join(dir, name)
	s, err := FromFiles(filepath.Join(base, "train.npy"), filepath.Join(base, "test.npy"), 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s is not in %s; make it with %s", ErrMissing, name, dir,
			strings.Replace(how, "DIR", dir, 1))
	}
	if err != nil {
		return nil, err
	}
	s.Name = name
	if ok {
		s.Name += "-euclidean"
	}
	s.Source = how[:strings.Index(how, " (")] + " → " + base
	return s, nil
}

// FromFiles reads base vectors from base and queries from queries; with
// no queries file, the last nq base vectors become the queries (and leave
// the base).
func FromFiles(base, queries string, nq int) (*Set, error) {
	train, dims, err := ReadFile(base)
	if err != nil {
		return nil, err
	}
	s := &Set{Name: strings.TrimSuffix(filepath.Base(base), filepath.Ext(base)), Dims: dims, Metric: vector.L2,
		Train: train, Source: base}
	if queries != "" {
		test, qd, err := ReadFile(queries)
		if err != nil {
			return nil, err
		}
		if qd != dims {
			return nil, fmt.Errorf("%s has %d dimensions, %s %d", queries, qd, base, dims)
		}
		s.Test = test
		s.Source += " (queries " + queries + ")"
		return s, nil
	}
	if nq <= 0 || nq >= s.N() {
		return nil, fmt.Errorf("%s: %d vectors; give --queries FILE or a query count below that", base, s.N())
	}
	cut := (s.N() - nq) * dims
	s.Train, s.Test = train[:cut], train[cut:]
	s.Source += fmt.Sprintf(" (its last %d vectors as queries)", nq)
	return s, nil
}
