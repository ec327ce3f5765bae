package relevance

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/pkg/result"
)

// The example: d1 (grade 1), d2 (grade 2) and d9 (grade 1) are relevant,
// d3 is judged not relevant; an engine answers d3, d1, d7, d2.
var (
	exampleLabels = Labels{"d1": 1, "d2": 2, "d9": 1, "d3": 0}
	exampleRanked = []string{"d3", "d1", "d7", "d2"}
)

// TestMetricsByHand: each figure as computed by hand.
//
// NDCG@10: DCG = (2^1−1)/log2(3) + (2^2−1)/log2(5) = 0.630930 + 1.292030 =
// 1.922959; the ideal order (2, 1, 1) gives 3/log2(2) + 1/log2(3) +
// 1/log2(4) = 4.130930; 1.922959 / 4.130930 = 0.465503.
func TestMetricsByHand(t *testing.T) {
	cases := []struct {
		name string
		got  float64
		want float64
	}{
		{"recall@3: d1 of three relevant", RecallAt(3, exampleRanked, exampleLabels), 1.0 / 3},
		{"recall@10: d1 and d2", RecallAt(10, exampleRanked, exampleLabels), 2.0 / 3},
		{"reciprocal rank: d1 second", ReciprocalRankAt(10, exampleRanked, exampleLabels), 0.5},
		{"reciprocal rank@1: nothing relevant first", ReciprocalRankAt(1, exampleRanked, exampleLabels), 0},
		{"NDCG@10", NDCGAt(10, exampleRanked, exampleLabels), 0.4655028147426407},
		{"NDCG@3: d1 only", NDCGAt(3, exampleRanked, exampleLabels), 0.15273311123869335},
		{"NDCG of the ideal order", NDCGAt(10, []string{"d2", "d1", "d9"}, exampleLabels), 1},
		{"a repeated id takes its rank, credited once", RecallAt(2, []string{"d1", "d1", "d2"}, exampleLabels), 1.0 / 3},
	}
	for _, c := range cases {
		assert.InDelta(t, c.want, c.got, 1e-12, c.name)
	}
	assert.True(t, math.IsNaN(RecallAt(10, exampleRanked, Labels{"d3": 0})), "no relevant document: not judged")
	assert.True(t, math.IsNaN(NDCGAt(10, nil, Labels{})))
}

// TestScore averages over the judged queries only, and a query with no
// answer counts as one that found nothing.
func TestScore(t *testing.T) {
	labels := map[string]Labels{"q1": exampleLabels, "q2": {"x": 1}, "q3": {"y": 0}}
	s := Score(10, map[string][]string{"q1": exampleRanked}, labels)
	assert.Equal(t, 2, s.Judged)
	assert.Equal(t, 1, s.Unjudged)
	assert.InDelta(t, (2.0/3+0)/2, s.Recall, 1e-12)
	assert.InDelta(t, 0.25, s.MRR, 1e-12)
	assert.InDelta(t, 0.4655028147426407/2, s.NDCG, 1e-12)
}

func TestParseQrels(t *testing.T) {
	q, err := ParseQrels(strings.NewReader("# comment\nq1 0 d1 1\nq1\t0\td2\t2\n\nq2 Q0 d5 0\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]Labels{"q1": {"d1": 1, "d2": 2}, "q2": {"d5": 0}}, q)
	for _, c := range []struct{ in, want string }{
		{"q1 0 d1 1\nq1 0 d2\n", `qrels line 2: 3 fields, want 4 (query-id iteration doc-id relevance): "q1 0 d2"`},
		{"q1 0 d1 high\n", `qrels line 1: relevance "high" is not an integer`},
		{"q1 0 d1 -1\n", "qrels line 1: relevance -1 is negative; want 0 (not relevant) or more"},
		{"q1 0 d1 1\n\nq1 0 d1 2\n", "qrels line 3: query q1 judges document d1 again (first on line 1)"},
		{"# only a comment\n", "qrels: no judgment"},
	} {
		_, err := ParseQrels(strings.NewReader(c.in))
		assert.EqualError(t, err, c.want, c.in)
	}
}

func TestParseQueries(t *testing.T) {
	qs, err := ParseQueries(strings.NewReader("q1\tredis 数据库\n{\"_id\": \"q2\", \"text\": \"vector search\"}\n{\"_id\": 3, \"text\": \"x\"}\n"))
	require.NoError(t, err)
	assert.Equal(t, []Query{{"q1", "redis 数据库"}, {"q2", "vector search"}, {"3", "x"}}, qs)
	for _, c := range []struct{ in, want string }{
		{"q1 redis\n", `queries line 1: want ID<TAB>TEXT or a JSON object with _id and text: "q1 redis"`},
		{"q1\tredis\nq1\tagain\n", "queries line 2: query q1 again (first on line 1)"},
		{"q1\t \n", "queries line 1: query q1 has no text"},
		{"{\"text\": \"x\"}\n", "queries line 1: no query id"},
		{"{\"_id\": \"q\"\n", "queries line 1: not a JSON object: unexpected end of JSON input"},
		{"\n", "queries: none"},
	} {
		_, err := ParseQueries(strings.NewReader(c.in))
		assert.EqualError(t, err, c.want, c.in)
	}
}

// FuzzParseQrels: any input is read or refused, never a panic; what is
// read holds no negative grade.
func FuzzParseQrels(f *testing.F) {
	f.Add("q1 0 d1 1\nq1 0 d2 2\n")
	f.Add("# c\nq 0 d -1\n")
	f.Fuzz(func(t *testing.T, in string) {
		q, err := ParseQrels(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, l := range q {
			for _, g := range l {
				if g < 0 {
					t.Fatalf("negative grade read from %q", in)
				}
			}
		}
	})
}

// FuzzParseQueries: any input is read or refused, never a panic; every
// query read has an id and a text.
func FuzzParseQueries(f *testing.F) {
	f.Add("q1\tredis\n{\"_id\":\"q2\",\"text\":\"x\"}\n")
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := ParseQueries(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, q := range qs {
			if q.ID == "" || q.Text == "" {
				t.Fatalf("an empty query read from %q", in)
			}
		}
	})
}

func TestThresholds(t *testing.T) {
	rel := &result.TrackRelevance{K: 10, Engines: []result.RelevanceScores{{Template: "q", Engine: "tairsearch", Judged: 5, Recall: 0.4, MRR: 0.4, NDCG: 0.4},
		{Template: "q", Engine: "elasticsearch", Judged: 5, Recall: 0.6, MRR: 0.5, NDCG: 0.55}}}
	cases := []struct {
		in   string
		pass []bool
	}{
		{"ndcg@10>0.5", []bool{false, true}},
		{"NDCG@10 >= 0.4", []bool{true, true}},
		{"tairsearch:mrr@10<0.5", []bool{true}},
		{"elasticsearch:recall@10>0.6", []bool{false}},
	}
	for _, c := range cases {
		th, err := ParseThreshold(c.in)
		require.NoError(t, err, c.in)
		require.NoError(t, th.Fits(10))
		var got []bool
		for _, v := range th.Check(rel) {
			got = append(got, v.Pass)
		}
		assert.Equal(t, c.pass, got, c.in)
	}
	for _, c := range []struct{ in, want string }{
		{"ndcg>0.5", "want [ENGINE:]METRIC@K>VALUE"},
		{"ndcg@10>5", "is not a share"},
		{"mrr@5>0.5", "mrr is measured at 10 (mrr@10)"},
		{"p99<2ms", "want [ENGINE:]METRIC@K>VALUE"},
	} {
		_, err := ParseThreshold(c.in)
		assert.ErrorContains(t, err, c.want, c.in)
	}
	th, _ := ParseThreshold("recall@100>0.9")
	assert.EqualError(t, th.Fits(10), `threshold "recall@100>0.9": the run measures recall@10`)
	th, _ = ParseThreshold("solr:ndcg@10>0.5")
	assert.Equal(t, "no engine solr ran", th.Check(rel)[0].Note)
	assert.False(t, th.Check(rel)[0].Pass)
}

func TestChange(t *testing.T) {
	a := &result.TrackRelevance{K: 10, Labels: "l", Engines: []result.RelevanceScores{
		{Template: "q", Engine: "tairsearch", Recall: 0.9, MRR: 0.8, NDCG: 0.8},
		{Template: "q", Engine: "elasticsearch", Recall: 0.9, MRR: 0.8, NDCG: 0.8}}}
	b := &result.TrackRelevance{K: 10, Labels: "l", Engines: []result.RelevanceScores{
		{Template: "q", Engine: "tairsearch", Recall: 0.9, MRR: 0.8, NDCG: 0.7},
		{Template: "q", Engine: "elasticsearch", Recall: 0.95, MRR: 0.8, NDCG: 0.82}}}
	for _, tc := range []struct {
		gate  string
		pass  []bool
		notes string
	}{
		{"ndcg@10<-0.05", []bool{false, true}, "q on tairsearch: A 0.800, B 0.700"},
		{"elasticsearch:ndcg@10<-0.05", []bool{true}, "q on elasticsearch"},
		{"recall@10>+0.02", []bool{true, false}, "q on elasticsearch: A 0.900, B 0.950"},
	} {
		c, err := ParseChange(tc.gate)
		require.NoError(t, err, tc.gate)
		vs := c.Check(a, b)
		require.Len(t, vs, len(tc.pass), tc.gate)
		for i, v := range vs {
			assert.Equal(t, tc.pass[i], v.Pass, "%s: %s", tc.gate, v.Note)
		}
		assert.Contains(t, fmt.Sprint(vs), tc.notes)
	}
	c, _ := ParseChange("recall@5<-0.1")
	assert.Equal(t, "the gate reads recall@5; A measured recall@10, B recall@10", c.Check(a, b)[0].Note)
	assert.True(t, IsChange("NDCG@10 < -0.1"))
	assert.False(t, IsChange("p99>+10%"))
	for _, bad := range []string{"ndcg@10<0.05", "ndcg@10<-2", "mrr@5<-0.1", "ndcg<-0.1"} {
		_, err := ParseChange(bad)
		assert.Error(t, err, bad)
	}
}
