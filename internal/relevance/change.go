package relevance

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/pkg/result"
)

// Change is a regression gate on relevance between two results, A and B:
// "ndcg@10<-0.05" fails when B's NDCG@10 is more than 0.05 below A's for
// any template and engine both judged; "tairsearch:recall@10<-0.02" holds
// for one engine. The change is in points of a share, not in percent.
type Change struct {
	Source string
	Engine string
	Metric string
	K      int
	// Above: fail when B − A is above Points; otherwise below it.
	Above  bool
	Points float64
}

var (
	changeForm   = regexp.MustCompile(`^(?:([a-z]+):)?(recall|mrr|ndcg)@([0-9]+)\s*([<>])\s*([+-][0-9]*\.?[0-9]+)$`)
	changeMetric = regexp.MustCompile(`^(?:[a-z]+:)?(recall|mrr|ndcg)@`)
)

// IsChange says whether s is written as a relevance change (METRIC@K
// then < or >), whether or not it is a good one.
func IsChange(s string) bool { return changeMetric.MatchString(strings.ToLower(strings.TrimSpace(s))) }

// ParseChange reads one relevance change gate.
func ParseChange(s string) (Change, error) {
	m := changeForm.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return Change{}, fmt.Errorf("--fail-on %q: want [ENGINE:]METRIC@K<-N or >+N, a change in points of a share "+
			"(recall@K, mrr@10, ndcg@10), e.g. ndcg@10<-0.05", s)
	}
	k, _ := strconv.Atoi(m[3])
	v, _ := strconv.ParseFloat(m[5], 64)
	c := Change{Source: strings.TrimSpace(s), Engine: m[1], Metric: m[2], K: k, Above: m[4] == ">", Points: v}
	switch {
	case v < -1 || v > 1:
		return c, fmt.Errorf("--fail-on %q: %g is more than a whole share (−1 to +1)", s, v)
	case c.Metric != "recall" && k != 10:
		return c, fmt.Errorf("--fail-on %q: %s is measured at 10 (%s@10)", s, c.Metric, c.Metric)
	}
	return c, nil
}

// Check judges B's change against A for every template and engine both
// judged (and the gate names); a cut-off or labels that differ are said.
func (c Change) Check(a, b *result.TrackRelevance) []result.ThresholdVerdict {
	var out []result.ThresholdVerdict
	if c.Metric == "recall" && (a.K != c.K || b.K != c.K) {
		return []result.ThresholdVerdict{{Threshold: c.Source, Note: fmt.Sprintf("the gate reads recall@%d; A measured recall@%d, B recall@%d", c.K, a.K, b.K)}}
	}
	inB := map[string]result.RelevanceScores{}
	for _, s := range b.Engines {
		inB[s.Template+"\x00"+s.Engine] = s
	}
	figure := func(s result.RelevanceScores) float64 {
		return map[string]float64{"recall": s.Recall, "mrr": s.MRR, "ndcg": s.NDCG}[c.Metric]
	}
	for _, sa := range a.Engines {
		sb, ok := inB[sa.Template+"\x00"+sa.Engine]
		if !ok || (c.Engine != "" && c.Engine != sa.Engine) {
			continue
		}
		d := figure(sb) - figure(sa)
		pass := d >= c.Points
		if c.Above {
			pass = d <= c.Points
		}
		note := fmt.Sprintf("%s on %s: A %.3f, B %.3f", sa.Template, sa.Engine, figure(sa), figure(sb))
		if a.Labels != b.Labels {
			note += "; the labels differ"
		}
		out = append(out, result.ThresholdVerdict{Threshold: c.Source, Observed: d, Pass: pass, Note: note})
	}
	if len(out) == 0 {
		out = append(out, result.ThresholdVerdict{Threshold: c.Source, Note: "no template and engine judged in both"})
	}
	return out
}
