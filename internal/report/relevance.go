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
