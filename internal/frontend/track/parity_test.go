package track

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tairbench/tairbench/pkg/result"
)

func TestOverlapShare(t *testing.T) {
	for _, c := range []struct {
		a, b []string
		want float64
	}{
		{nil, nil, 1},
		{[]string{"1", "2"}, []string{"2", "1"}, 1},
		{[]string{"1", "2", "3", "4"}, []string{"1", "5"}, 0.25},
		{[]string{"1"}, nil, 0},
	} {
		assert.Equal(t, c.want, overlapShare(c.a, c.b), "%v %v", c.a, c.b)
	}
}

func TestOnlyStopWords(t *testing.T) {
	assert.True(t, onlyStopWords([]string{"数据", "的", "缓存"}, []string{"数据", "缓存"}))
	assert.True(t, onlyStopWords([]string{"the", "cache"}, []string{"cache"}))
	assert.False(t, onlyStopWords([]string{"资本家"}, []string{"资本", "本家", "资本家"}))
}

func TestFieldText(t *testing.T) {
	assert.Equal(t, "数据", fieldText([]byte(`{"query":{"bool":{"must":[{"match":{"title":"数据"}}]}}}`), "title"))
	assert.Equal(t, "a b", fieldText([]byte(`{"query":{"match":{"title":{"query":"a b","operator":"and"}}}}`), "title"))
	assert.Equal(t, "", fieldText([]byte(`{"query":{"range":{"price":{"gte":1}}}}`), "title"))
}

// TestCausesAreScored: every cause that applies is listed with the share
// of the samples it explains, highest first. Equal totals with a top-10
// overlap of 0.22 are the scoring model's, not the analyzer's, even on a
// field whose analyzers differ; differing totals are the analyzer's where
// one differs, "unexplained" where none does.
func TestCausesAreScored(t *testing.T) {
	jieba := []result.AnalyzerTranslation{{Field: "title", TairSearch: "jieba", Elasticsearch: "tair_jieba"}}
	exact := []result.AnalyzerTranslation{{Field: "title", TairSearch: "standard", Elasticsearch: "standard", Exact: true}}
	match := json.RawMessage(`{"query":{"match":{"title":"x"}}}`)
	sorted := json.RawMessage(`{"query":{"match":{"title":"x"}},"sort":[{"price":"asc"}]}`)
	for _, tc := range []struct {
		name      string
		analyzers []result.AnalyzerTranslation
		body      json.RawMessage
		sc        sampleScore
		want      string
	}{
		{"equal totals, order differs", jieba, match, sampleScore{samples: 5, orderLost: 3.9},
			"scoring model 0.78 (TF-IDF against BM25: the same number of hits, ranked differently)"},
		{"totals and order differ", jieba, match, sampleScore{samples: 5, totalsDiffer: 2, orderLost: 1},
			"analyzer 0.40 (title: jieba on TairSearch, tair_jieba on Elasticsearch); scoring model 0.20 (TF-IDF against BM25: the same number of hits, ranked differently)"},
		{"the same analyzers, different totals", exact, match, sampleScore{samples: 5, totalsDiffer: 5},
			"unexplained 1.00 (the same analyzers, different totals)"},
		{"a sort's ties", exact, sorted, sampleScore{samples: 5, orderLost: 1},
			"sort ties 0.20 (equal sort values: TairSearch orders them by id, Elasticsearch by index order)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &runner{doc: &result.TrackRun{Analyzers: tc.analyzers}}
			assert.Equal(t, tc.want, causeLine(r.causes(context.Background(), tc.body, result.TemplateParity{}, tc.sc)))
		})
	}
}
