package track

import (
	"cmp"
	"context"
	"fmt"

	"github.com/tairbench/tairbench/internal/relevance"
	tk "github.com/tairbench/tairbench/internal/track"
	"github.com/tairbench/tairbench/pkg/result"
)

// relevance judges each engine's answers against the track's labels,
// once the schedule has run: every labelled query once per engine, its
// ranked ids scored (recall@k, MRR@10, NDCG@10). A query an engine
// refuses counts as finding nothing, and is counted.
func (r *runner) relevance(ctx context.Context) error {
	rel := r.tr.Relevance
	qs, labels, from, err := r.tr.Labels(r.scan.Docs)
	if err != nil {
		return err
	}
	if err := r.refresh(ctx); err != nil {
		return err
	}
	k := rel.CutOff()
	out := &result.TrackRelevance{Labels: from, Templates: map[string]string{}, K: k}
	for _, tpl := range rel.Bodies() {
		out.Templates[tpl.Name] = string(tpl.Body)
		for _, e := range r.engines {
			fmt.Fprintf(r.io.Err, "relevance %s on %s: %d queries\n", tpl.Name, e.Name(), len(labels))
			answers := map[string][]string{}
			failed := 0
			var firstErr error
			for _, q := range qs {
				if labels[q.ID] == nil {
					continue
				}
				h, err := e.Probe(ctx, tpl.Expand(q.Text))
				if err != nil {
					failed++
					firstErr = cmp.Or(firstErr, err)
					continue
				}
				answers[q.ID] = h.IDs
			}
			s := relevance.Score(k, answers, labels)
			out.Engines = append(out.Engines, result.RelevanceScores{Template: tpl.Name, Engine: e.Name(), Judged: s.Judged, Unjudged: s.Unjudged,
				Failed: failed, Recall: s.Recall, MRR: s.MRR, NDCG: s.NDCG})
			if failed > 0 {
				r.doc.Warnings = append(r.doc.Warnings, fmt.Sprintf("relevance %s on %s: %d of %d queries refused (counted as finding nothing), the first: %v",
					tpl.Name, e.Name(), failed, len(labels), firstErr))
			}
		}
	}
	r.doc.Relevance = out
	return nil
}

// qualityThresholds reads --threshold against the track: it must judge
// relevance, and measure the figure named.
func qualityThresholds(in []string, tr *tk.Track) ([]relevance.Threshold, error) {
	var out []relevance.Threshold
	for _, s := range in {
		th, err := relevance.ParseThreshold(s)
		if err != nil {
			return nil, err
		}
		if tr.Relevance == nil {
			return nil, fmt.Errorf("threshold %q: track %s has no relevance section to judge", s, tr.Name)
		}
		if err := th.Fits(tr.Relevance.CutOff()); err != nil {
			return nil, err
		}
		out = append(out, th)
	}
	return out, nil
}
