package vector

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/vecdata"
	"github.com/tairbench/tairbench/pkg/result"
)

// Case is one of the TairVector whitepaper's datasets and the index it
// tests (tairvector.md §7).
type Case struct {
	Name      string
	Metric    string
	Algorithm string
	// Note is how the whitepaper describes the set.
	Note string
}

// Cases are the whitepaper's: HNSW on four ann-benchmarks sets, FLAT on
// two. Random-s-100 is made here (scripts/vector_data.py); the others
// are ann-benchmarks' HDF5 files the user downloads and converts.
var Cases = []Case{
	{"sift-128-euclidean", "L2", "HNSW", "1,000,000 × 128, 10,000 queries"},
	{"gist-960-euclidean", "L2", "HNSW", "1,000,000 × 960, 1,000 queries"},
	{"glove-200-angular", "COSINE", "HNSW", "1,183,514 × 200, 10,000 queries"},
	{"deep-image-96-angular", "COSINE", "HNSW", "9,990,000 × 96, 10,000 queries"},
	{"random-s-100", "L2", "FLAT", "90,000 × 100, 10,000 queries, generated"},
	{"mnist-784-euclidean", "L2", "FLAT", "60,000 × 784, 10,000 queries"},
}

// PublishedNote is what the suite prints where the whitepaper's figures
// would stand: they could not be retrieved, and none is invented.
const PublishedNote = "published figure not available (the TairVector whitepaper's result tables could not be " +
	"retrieved; tairvector.md §7)"

// SuiteOptions configure the suite: the benchmark's options (engines,
// build, connections, timing) and where the datasets are.
type SuiteOptions struct {
	Options
	Data  DataSpec
	Cases []string
}

// SuiteResult is each case's benchmark (nil when its data is absent).
type SuiteResult struct {
	Cases  []string
	Absent map[string]string
	Docs   []*result.VectorBench
}

// RunSuite runs each case whose data is in o.Data.Dir and says which are
// absent and how to provide them.
func RunSuite(ctx context.Context, o SuiteOptions, io harness.IO) (*SuiteResult, error) {
	res := &SuiteResult{Absent: map[string]string{}}
	for _, c := range Cases {
		if len(o.Cases) > 0 && !contains(o.Cases, c.Name) {
			continue
		}
		fmt.Fprintf(io.Out, "\n== %s: %s %s (%s) ==\n", c.Name, c.Algorithm, c.Metric, c.Note)
		d := o.Data
		d.Data, d.Metric = c.Name, c.Metric
		set, truth, err := d.Load()
		if errors.Is(err, vecdata.ErrMissing) {
			res.Absent[c.Name] = err.Error()
			fmt.Fprintf(io.Out, "absent: %v\n", err)
			continue
		}
		if err != nil {
			return res, fmt.Errorf("%s: %w", c.Name, err)
		}
		bo := o.Options
		bo.Set, bo.Truth, bo.Algorithm = set, truth, c.Algorithm
		doc, err := Run(ctx, bo, io)
		res.Cases = append(res.Cases, c.Name)
		res.Docs = append(res.Docs, doc)
		fmt.Fprintf(io.Out, "whitepaper: %s\n", PublishedNote)
		if err != nil {
			return res, fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	if len(res.Absent) > 0 {
		names := make([]string, 0, len(res.Absent))
		for _, c := range Cases {
			if res.Absent[c.Name] != "" {
				names = append(names, c.Name)
			}
		}
		fmt.Fprintf(io.Out, "\n%d case(s) not run, their data absent from %s: %s\n", len(names), o.Data.Dir,
			strings.Join(names, ", "))
	}
	return res, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
