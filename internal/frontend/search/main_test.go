package search

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
)

// compareWords are 'search compare' words that a dry run accepts.
func compareWords(t *testing.T) CompareWords {
	own := common.Defaults()
	own.Embedded, own.DryRun = true, true
	return CompareWords{Options: own, Reach: Reach{Index: "wiki", Connections: 4},
		Compare: RunCompareOptions{ES: "http://127.0.0.1:9", CompareOptions: CompareOptions{File: genFile(t, 10), Queries: 1000}}}
}

// TestCompareDryRun: --dry-run prints the write and the three query runs
// on both engines, where each would run, and starts nothing.
func TestCompareDryRun(t *testing.T) {
	io, out, errs := harness.Captured("test")
	require.NoError(t, CompareMain(context.Background(), compareWords(t), io))
	assert.NotContains(t, errs.String(), "listening", "no server was started")
	text := out.String()
	assert.Contains(t, text, "dry run of tairbench search compare: nothing is sent")
	for _, e := range []string{"tairsearch", "elasticsearch"} {
		assert.Contains(t, text, e+" write")
		assert.Contains(t, text, e+" term query")
		assert.Contains(t, text, e+" aggregation, cache off")
	}
	assert.Contains(t, text, "until its input ends", "the write reads the whole file")
	assert.Contains(t, text, "until 100 commands", "the cache-off runs are a tenth of --queries")
	assert.Contains(t, text, "not Tair")
	assert.Contains(t, text, "→ http://127.0.0.1:9")
}

// TestCompareRefuses: words that cannot run are refused before anything
// starts, dry run or not.
func TestCompareRefuses(t *testing.T) {
	cases := []struct {
		edit func(*CompareWords)
		want string
	}{
		{func(w *CompareWords) { w.Compare.File = "" }, "-f FILE is required"},
		{func(w *CompareWords) { w.Compare.ES = "" }, "need --es URL"},
		{func(w *CompareWords) { w.Embedded = false }, "--tair ADDR"},
		{func(w *CompareWords) { w.Compare.File = "/no/such/file" }, "no such file"},
		{func(w *CompareWords) { w.Compare.KnownItems = -1 }, "--known-items -1: want 0 (none) or more"},
		{func(w *CompareWords) { w.Compare.Thresholds = []string{"ndcg@10 is high"} }, "ndcg@10 is high"},
		{func(w *CompareWords) { w.Compare.KnownItems, w.Compare.Thresholds = 0, []string{"ndcg@10>0.5"} },
			`threshold "ndcg@10>0.5": --known-items 0 leaves no relevance to judge`},
	}
	for _, c := range cases {
		for _, dry := range []bool{true, false} {
			w := compareWords(t)
			w.DryRun = dry
			c.edit(&w)
			io, _, errs := harness.Captured("test")
			assert.ErrorContains(t, CompareMain(context.Background(), w, io), c.want)
			assert.NotContains(t, errs.String(), "listening")
		}
	}
}
