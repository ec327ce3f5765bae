package relevance

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/pkg/result"
)

// Threshold is a bar on a relevance figure: "ndcg@10>0.5" (every engine),
// "tairsearch:recall@10>=0.9" (one engine).
type Threshold struct {
	Source string
	// Engine is the engine it holds for ("" every engine).
	Engine string
	// Metric is recall, mrr or ndcg; K its cut-off.
	Metric string
	K      int
	// Above: the figure must be above Value (at or above with Equal);
	// otherwise below it.
	Above, Equal bool
	Value        float64
}

var thresholdForm = regexp.MustCompile(`^(?:([a-z]+):)?(recall|mrr|ndcg)@([0-9]+)\s*(>=|<=|>|<)\s*([0-9]*\.?[0-9]+)$`)

// ParseThreshold reads one relevance threshold.
func ParseThreshold(s string) (Threshold, error) {
	m := thresholdForm.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return Threshold{}, fmt.Errorf("threshold %q: want [ENGINE:]METRIC@K>VALUE (recall@K, mrr@10, ndcg@10; a share from 0 to 1), e.g. ndcg@10>0.5", s)
	}
	k, _ := strconv.Atoi(m[3])
	v, _ := strconv.ParseFloat(m[5], 64)
	t := Threshold{Source: strings.TrimSpace(s), Engine: m[1], Metric: m[2], K: k, Above: m[4][0] == '>', Equal: len(m[4]) == 2, Value: v}
	switch {
	case v > 1:
		return t, fmt.Errorf("threshold %q: %g is not a share (0 to 1)", s, v)
	case t.Metric != "recall" && k != 10:
		return t, fmt.Errorf("threshold %q: %s is measured at 10 (%s@10)", s, t.Metric, t.Metric)
	}
	return t, nil
}

// Fits says whether the run measures the threshold's figure: recall at
// the track's cut-off k.
func (t Threshold) Fits(k int) error {
	if t.Metric == "recall" && t.K != k {
		return fmt.Errorf("threshold %q: the run measures recall@%d", t.Source, k)
	}
	return nil
}

// Check judges the threshold on each engine it names, for each template.
func (t Threshold) Check(r *result.TrackRelevance) []result.ThresholdVerdict {
	var out []result.ThresholdVerdict
	for _, e := range r.Engines {
		if t.Engine != "" && t.Engine != e.Engine {
			continue
		}
		v := map[string]float64{"recall": e.Recall, "mrr": e.MRR, "ndcg": e.NDCG}[t.Metric]
		pass := v < t.Value || t.Equal && v == t.Value
		if t.Above {
			pass = v > t.Value || t.Equal && v == t.Value
		}
		out = append(out, result.ThresholdVerdict{Threshold: t.Source, Observed: v, Pass: pass,
			Note: fmt.Sprintf("%s on %s, %d judged queries", e.Template, e.Engine, e.Judged)})
	}
	if len(out) == 0 {
		out = append(out, result.ThresholdVerdict{Threshold: t.Source, Note: fmt.Sprintf("no engine %s ran", t.Engine)})
	}
	return out
}
