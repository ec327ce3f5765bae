// Package relevance judges ranked answers against relevance labels, as
// information-retrieval evaluations do (trec_eval, BEIR, VectorDBBench's
// full-text cases): recall@k, MRR@k and NDCG@k, and the files that carry
// labels and queries (TREC qrels, a queries TSV or JSON lines).
package relevance

import (
	"math"
	"sort"
)

// Labels are one query's judged documents: each id's graded relevance
// (0: judged not relevant; 1 and up: relevant, higher is better).
type Labels map[string]int

// relevant counts the documents judged relevant.
func (l Labels) relevant() int {
	n := 0
	for _, g := range l {
		if g > 0 {
			n++
		}
	}
	return n
}

// RecallAt is the share of the relevant documents found in the first k
// answers; NaN when none is relevant (the query cannot be judged).
func RecallAt(k int, ranked []string, l Labels) float64 {
	n := l.relevant()
	if n == 0 {
		return math.NaN()
	}
	found := 0
	for _, id := range top(ranked, k) {
		if l[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(n)
}

// ReciprocalRankAt is 1/rank of the first relevant answer within the first
// k (0 when none is); NaN when no document is relevant.
func ReciprocalRankAt(k int, ranked []string, l Labels) float64 {
	if l.relevant() == 0 {
		return math.NaN()
	}
	for i, id := range top(ranked, k) {
		if l[id] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// NDCGAt is the normalized discounted cumulative gain of the first k
// answers: each answer's gain 2^grade − 1 discounted by log2(rank + 1),
// over the same sum for the ideal order of the labels (trec_eval's
// ndcg_cut); NaN when no document is relevant.
func NDCGAt(k int, ranked []string, l Labels) float64 {
	if l.relevant() == 0 {
		return math.NaN()
	}
	dcg := 0.0
	for i, id := range top(ranked, k) {
		dcg += gain(l[id]) / math.Log2(float64(i+2))
	}
	grades := make([]int, 0, len(l))
	for _, g := range l {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	ideal := 0.0
	for i, g := range grades[:min(k, len(grades))] {
		ideal += gain(g) / math.Log2(float64(i+2))
	}
	return dcg / ideal
}

func gain(grade int) float64 {
	if grade <= 0 {
		return 0
	}
	return math.Exp2(float64(grade)) - 1
}

// top is the first k answers, a repeated id blanked: it takes its rank
// but is not credited twice.
func top(ranked []string, k int) []string {
	out := append([]string(nil), ranked[:min(k, len(ranked))]...)
	seen := make(map[string]bool, len(out))
	for i, id := range out {
		if seen[id] {
			out[i] = ""
		}
		seen[id] = true
	}
	return out
}

// Scores are the means over the judged queries of one engine's answers.
type Scores struct {
	// Judged counts the queries with at least one relevant document;
	// Unjudged those without (left out of the means).
	Judged, Unjudged int
	// Recall is recall@K, MRR is MRR@10 and NDCG is NDCG@10.
	K                 int
	Recall, MRR, NDCG float64
}

// Score averages recall@k, MRR@10 and NDCG@10 over queries: answers maps
// a query id to its ranked ids, labels a query id to its labels. A query
// without an answer counts as one that found nothing.
func Score(k int, answers map[string][]string, labels map[string]Labels) Scores {
	s := Scores{K: k}
	for qid, l := range labels {
		if l.relevant() == 0 {
			s.Unjudged++
			continue
		}
		ranked := answers[qid]
		s.Judged++
		s.Recall += RecallAt(k, ranked, l)
		s.MRR += ReciprocalRankAt(10, ranked, l)
		s.NDCG += NDCGAt(10, ranked, l)
	}
	if s.Judged > 0 {
		n := float64(s.Judged)
		s.Recall, s.MRR, s.NDCG = s.Recall/n, s.MRR/n, s.NDCG/n
	}
	return s
}
