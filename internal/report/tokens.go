package report

import (
	"fmt"
	"strings"

	"github.com/tairbench/tairbench/pkg/result"
)

// TokenAgreementTable is, per field whose analyzer differs between the
// engines, the share of corpus texts both cut into the same tokens, and
// the tokens only one of them made.
func TokenAgreementTable(rows []result.TokenAgreement) Table {
	t := Table{
		Title:  "token agreement: the corpus's text cut on both engines",
		Header: []string{"field", "analyzers (TairSearch / Elasticsearch)", "texts cut alike", "only TairSearch", "only Elasticsearch"},
	}
	for _, r := range rows {
		es := r.Elasticsearch
		if r.Implementation != "" {
			es += " (" + r.Implementation + ")"
		}
		t.Rows = append(t.Rows, []string{r.Field, r.TairSearch + " / " + es,
			fmt.Sprintf("%d/%d (%.0f %%)", r.Equal, r.Samples, 100*r.Agreement()), tokenCounts(r.OnlyTairSearch), tokenCounts(r.OnlyElasticsearch)})
		if r.Example != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("%s, first text cut differently: %s", r.Field, r.Example))
		}
	}
	return t
}

func tokenCounts(cs []result.TokenCount) string {
	if len(cs) == 0 {
		return "-"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s ×%d", c.Token, c.Count)
	}
	return strings.Join(parts, ", ")
}
