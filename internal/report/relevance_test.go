package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/pkg/result"
)

// TestRelevanceCompare: B's figures beside A's in points; a template only
// in A and labels that differ are said.
func TestRelevanceCompare(t *testing.T) {
	a := &result.TrackRelevance{Labels: "known items: 5", K: 10, Engines: []result.RelevanceScores{
		{Template: "q", Engine: "tairsearch", Recall: 0.4, MRR: 0.4, NDCG: 0.4}, {Template: "t", Engine: "tairsearch"}}}
	b := &result.TrackRelevance{Labels: "known items: 6", K: 10, Engines: []result.RelevanceScores{
		{Template: "q", Engine: "tairsearch", Recall: 0.6, MRR: 0.5, NDCG: 0.55}}}
	tb := RelevanceCompare(a, b)
	assert.Equal(t, [][]string{
		{"q", "tairsearch", "recall@10", "0.400", "0.600", "+0.200"},
		{"q", "tairsearch", "MRR@10", "0.400", "0.500", "+0.100"},
		{"q", "tairsearch", "NDCG@10", "0.400", "0.550", "+0.150"},
	}, tb.Rows)
	assert.Equal(t, []string{"the labels differ (A: known items: 5; B: known items: 6): the change measures that too", "t on tairsearch: only in A"}, tb.Notes)
}
