package search

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/relevance"
	"github.com/tairbench/tairbench/internal/wiki"
	"github.com/tairbench/tairbench/pkg/result"
)

// knownItemTemplate is the query each known item's title goes into.
const knownItemTemplate = `{"query":{"match":{"abstract":"{{query}}"}},"size":10}`

// knownItems judges each engine's ranking with n known items of the
// file: n of the written documents, spread evenly over them, each searched
// by its title in the abstracts; the document is the one relevant answer.
// A query an engine refuses counts as finding nothing, and is counted.
func knownItems(ctx context.Context, o CompareOptions, written int64, engines []fts.Engine, log io.Writer) (*result.TrackRelevance, []string, error) {
	qs, labels, err := titles(o.File, written, o.KnownItems)
	if err != nil {
		return nil, nil, err
	}
	out := &result.TrackRelevance{K: 10, Templates: map[string]string{"title-in-abstract": knownItemTemplate},
		Labels: fmt.Sprintf("known items: %d documents, each found by its title in the abstracts (the document is the one relevant answer)", len(qs))}
	var warnings []string
	for _, e := range engines {
		fmt.Fprintf(log, "%s: relevance, %d known items\n", e.Name(), len(qs))
		answers := map[string][]string{}
		failed := 0
		var firstErr error
		for _, q := range qs {
			body, _ := json.Marshal(map[string]any{"query": map[string]any{"match": map[string]string{"abstract": q.Text}}, "size": 10})
			h, err := e.Probe(ctx, body)
			if err != nil {
				failed++
				firstErr = cmp.Or(firstErr, err)
				continue
			}
			answers[q.ID] = h.IDs
		}
		s := relevance.Score(out.K, answers, labels)
		out.Engines = append(out.Engines, result.RelevanceScores{Template: "title-in-abstract", Engine: e.Name(), Judged: s.Judged,
			Unjudged: s.Unjudged, Failed: failed, Recall: s.Recall, MRR: s.MRR, NDCG: s.NDCG})
		if failed > 0 {
			warnings = append(warnings, fmt.Sprintf("relevance on %s: %d of %d queries refused (counted as finding nothing), the first: %v",
				e.Name(), failed, len(qs), firstErr))
		}
	}
	found := false
	for _, s := range out.Engines {
		found = found || s.Recall > 0
	}
	if !found {
		warnings = append(warnings, "relevance: no engine found any known item, so the titles do not occur in the abstracts "+
			"(as in tairbench wiki gen's made-up text): the figures say nothing of ranking; judge with a real dump")
	}
	return out, warnings, nil
}

// titles reads the file's first written documents and makes n known
// items of them, spread evenly (documents without a title are passed over).
func titles(file string, written int64, n int) ([]relevance.Query, map[string]relevance.Labels, error) {
	if written <= 0 {
		return nil, nil, errors.New("relevance: no document was written")
	}
	r, closer, err := wiki.Open(file)
	if err != nil {
		return nil, nil, err
	}
	defer closer.Close()
	step := max(written/int64(n), 1)
	var qs []relevance.Query
	labels := map[string]relevance.Labels{}
	var d wiki.Doc
	for i := int64(0); i < written && len(qs) < n; i++ {
		err := r.Next(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("relevance: %w", err)
		}
		if i%step != 0 || d.Title == "" {
			continue
		}
		id := strconv.FormatInt(d.ID, 10)
		qs = append(qs, relevance.Query{ID: id, Text: d.Title})
		labels[id] = relevance.Labels{id: 1}
	}
	return qs, labels, nil
}
