package track

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/pkg/result"
)

// TestIngestFiguresAreTheWritersOwn: the writers' rate is their documents
// over the time they wrote (the last second counted as its share of a
// full one), not over the task: 1,000 documents written in 2.5 s of a
// 10 s task are 400 docs/s, not 100, and the corpus is said to have run
// out.
func TestIngestFiguresAreTheWritersOwn(t *testing.T) {
	series := func(docs ...int64) *result.Run {
		r := &result.Run{DurationMS: float64(len(docs)) * 1000}
		for i, n := range docs {
			r.Series = append(r.Series, result.Interval{Second: i, Operations: []result.IntervalOperation{
				{Name: "search", Ops: 50}, {Name: "ingest", Ops: n}}})
		}
		return r
	}
	for _, tc := range []struct {
		name    string
		run     *result.Run
		docs    int64
		writing float64
		perSec  float64
		limited bool
	}{
		{"ran out after 2.5 s of 10 s", series(400, 400, 200, 0, 0, 0, 0, 0, 0, 0), 1000, 2.5, 400, true},
		{"wrote to the end", series(300, 310, 290, 300), 1200, 4, 300, false},
		{"ran out inside the last second", series(400, 400, 100), 900, 2.25, 400, true},
		{"one second", series(120), 120, 1, 120, false},
		{"never wrote", series(0, 0), 0, 0, 0, false},
	} {
		in := ingestFigures(tc.run, "ingest")
		assert.Equal(t, tc.docs, in.Docs, tc.name)
		assert.InDelta(t, tc.writing, in.WritingS, 1e-9, tc.name)
		assert.InDelta(t, tc.perSec, in.DocsPerSec, 1e-9, tc.name)
		assert.Equal(t, tc.limited, in.CorpusLimited, tc.name)
	}
}
