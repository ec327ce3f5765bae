package report

import (
	"fmt"

	"github.com/tairbench/tairbench/pkg/result"
)

// RelevanceTable is a track's relevance: one row per engine with its
// judged queries and mean recall@k, MRR@10 and NDCG@10, the labels'
// source and the query named.
func RelevanceTable(r *result.TrackRelevance) Table {
	t := Table{
		Title:  "relevance: " + r.Labels,
		Header: []string{"engine", "judged queries", fmt.Sprintf("recall@%d", r.K), "MRR@10", "NDCG@10", "refused"},
		Notes:  []string{"query: " + r.Template},
	}
	for _, e := range r.Engines {
		t.Rows = append(t.Rows, []string{e.Engine, fmt.Sprint(e.Judged), fmt.Sprintf("%.3f", e.Recall), fmt.Sprintf("%.3f", e.MRR),
			fmt.Sprintf("%.3f", e.NDCG), fmt.Sprint(e.Failed)})
		if e.Unjudged > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %d queries have no relevant document in the labels and are left out of the means", e.Engine, e.Unjudged))
		}
	}
	return t
}
