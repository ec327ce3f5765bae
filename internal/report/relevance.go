package report

import (
	"fmt"
	"sort"

	"github.com/tairbench/tairbench/pkg/result"
)

// RelevanceTable is a track's relevance: one row per engine with its
// judged queries and mean recall@k, MRR@10 and NDCG@10, the labels'
// source and the query named.
func RelevanceTable(r *result.TrackRelevance) Table {
	t := Table{
		Title:  "relevance: " + r.Labels,
		Header: []string{"template", "engine", "judged queries", fmt.Sprintf("recall@%d", r.K), "MRR@10", "NDCG@10", "refused"},
	}
	names := make([]string, 0, len(r.Templates))
	for n := range r.Templates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Notes = append(t.Notes, n+": "+r.Templates[n])
	}
	for _, e := range r.Engines {
		t.Rows = append(t.Rows, []string{e.Template, e.Engine, fmt.Sprint(e.Judged), fmt.Sprintf("%.3f", e.Recall), fmt.Sprintf("%.3f", e.MRR),
			fmt.Sprintf("%.3f", e.NDCG), fmt.Sprint(e.Failed)})
		if e.Unjudged > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s on %s: %d queries have no relevant document in the labels and are left out of the means",
				e.Template, e.Engine, e.Unjudged))
		}
	}
	return t
}

// RelevanceCompare sets B's relevance beside A's, per template and
// engine both have: each figure and B − A (shares, so the change is in
// points, not percent). Labels or cut-offs that differ are said.
func RelevanceCompare(a, b *result.TrackRelevance) Table {
	t := Table{
		Title:  "relevance, B against A",
		Header: []string{"template", "engine", "figure", "A", "B", "B − A"},
	}
	if a.Labels != b.Labels {
		t.Notes = append(t.Notes, fmt.Sprintf("the labels differ (A: %s; B: %s): the change measures that too", a.Labels, b.Labels))
	}
	key := func(s result.RelevanceScores) string { return s.Template + "\x00" + s.Engine }
	inB := map[string]result.RelevanceScores{}
	for _, s := range b.Engines {
		inB[key(s)] = s
	}
	for _, sa := range a.Engines {
		sb, ok := inB[key(sa)]
		if !ok {
			t.Notes = append(t.Notes, fmt.Sprintf("%s on %s: only in A", sa.Template, sa.Engine))
			continue
		}
		for _, f := range []struct {
			name   string
			va, vb float64
			same   bool
		}{
			{fmt.Sprintf("recall@%d", a.K), sa.Recall, sb.Recall, a.K == b.K},
			{"MRR@10", sa.MRR, sb.MRR, true},
			{"NDCG@10", sa.NDCG, sb.NDCG, true},
		} {
			change := fmt.Sprintf("%+.3f", f.vb-f.va)
			if !f.same {
				change = fmt.Sprintf("not comparable (B measured recall@%d)", b.K)
			}
			t.Rows = append(t.Rows, []string{sa.Template, sa.Engine, f.name, fmt.Sprintf("%.3f", f.va), fmt.Sprintf("%.3f", f.vb), change})
		}
	}
	return t
}
