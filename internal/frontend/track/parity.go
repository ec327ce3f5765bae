package track

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/fulltext"
	tk "github.com/tairbench/tairbench/internal/track"
	"github.com/tairbench/tairbench/pkg/result"
)

// parity runs each template with sample parameters on both engines and
// compares total hits and the top 10 ids.
func (r *runner) parity(ctx context.Context, t tk.Task, bound []*tk.Bound) []result.TemplateParity {
	var out []result.TemplateParity
	for i, q := range t.Queries {
		rng := sampleRand(r.o.Seed, i)
		p := result.TemplateParity{Template: q.Name, Samples: r.o.Samples, Totals: map[string]int64{}}
		agree, zero, overlap := 0, 0, 0.0
		var sc sampleScore
		var failed string
		differs := false
		for s := 0; s < r.o.Samples; s++ {
			body := bound[i].Expand(nil, rng)
			var tops [][]string
			var totals []int64
			for _, e := range r.engines {
				h, err := e.Probe(ctx, body)
				if err != nil && failed == "" {
					failed = fmt.Sprintf("%s refused the query: %v", e.Name(), err)
				}
				tops, totals = append(tops, first(h.IDs, 10)), append(totals, h.Total)
			}
			o := overlapShare(tops[0], tops[1])
			if s == 0 || (!differs && (totals[0] != totals[1] || o < 1)) {
				// The example is the first sample on which the engines differ.
				p.Example, differs = string(body), totals[0] != totals[1] || o < 1
				for i, e := range r.engines {
					p.Totals[e.Name()] = totals[i]
				}
			}
			if totals[0] == totals[1] {
				agree++
				if totals[0] == 0 {
					zero++
				}
				sc.orderLost += 1 - o
			} else {
				sc.totalsDiffer++
			}
			overlap += o
		}
		p.TotalAgreement = float64(agree) / float64(r.o.Samples)
		p.TopOverlap = overlap / float64(r.o.Samples)
		p.Divergence = 1 - min(p.TotalAgreement, p.TopOverlap)
		switch {
		case failed != "":
			p.Divergence, p.Cause = 1, failed
		case zero == r.o.Samples:
			p.NoEvidence = true
			p.Cause = fmt.Sprintf("no evidence: all %d samples found nothing on both engines", r.o.Samples)
			r.doc.Warnings = append(r.doc.Warnings, fmt.Sprintf("task %s: template %s: every parity sample found nothing on both engines: "+
				"no evidence that the engines agree, and its timing measures empty queries (a larger corpus, or parameters drawn from it)",
				t.Name, q.Name))
		case p.Divergence > 0:
			sc.samples = float64(r.o.Samples)
			p.Causes = r.causes(ctx, q.Body, p, sc)
			p.Cause = causeLine(p.Causes)
		}
		out = append(out, p)
	}
	return out
}

func first(ids []string, n int) []string {
	if len(ids) > n {
		return ids[:n]
	}
	return ids
}

// overlapShare is |a ∩ b| / max(|a|, |b|), 1 when both are empty.
func overlapShare(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	in := map[string]bool{}
	for _, x := range a {
		in[x] = true
	}
	n := 0
	for _, x := range b {
		if in[x] {
			n++
		}
	}
	return float64(n) / float64(max(len(a), len(b)))
}

// sampleScore is what a template's samples differ by: how many differ
// in their totals, and the top-10 share lost on those whose totals agree.
type sampleScore struct {
	samples, totalsDiffer, orderLost float64
}

// causes lists every reason a template's hits differ, scored by the
// share of the samples each explains: an analyzer that is not the same on
// both engines (or nothing known, "unexplained") for the samples whose
// totals differ; the scoring model, or ties in a sort, for the order of
// those whose totals agree. Equal totals on every sample leave the
// analyzer nothing to explain, whatever its cut.
func (r *runner) causes(ctx context.Context, body json.RawMessage, p result.TemplateParity, sc sampleScore) []result.ParityCause {
	totals, order := sc.totalsDiffer/sc.samples, sc.orderLost/sc.samples
	if r.doc.Analyzers == nil {
		return []result.ParityCause{{Kind: "engine defaults", Score: p.Divergence,
			Detail: "the engines' own analyzers and scoring (the track gave Elasticsearch's index body)"}}
	}
	used := names(body)
	var diff []string
	for _, a := range r.doc.Analyzers {
		field, _, _ := strings.Cut(a.Field, " ")
		if !a.Exact && used[field] {
			d := fmt.Sprintf("%s: %s on TairSearch, %s on Elasticsearch", a.Field, a.TairSearch, a.Elasticsearch)
			ex, same := r.tokenExample(ctx, field, a.TairSearch, p.Example)
			if same {
				d += "; the query's words are cut alike, the documents' text is not"
			} else if ex != "" {
				d += "; " + ex
			}
			diff = append(diff, d)
		}
	}
	var out []result.ParityCause
	switch {
	case len(diff) > 0 && totals > 0:
		out = append(out, result.ParityCause{Kind: "analyzer", Score: totals, Detail: strings.Join(diff, "; ")})
	case totals > 0:
		out = append(out, result.ParityCause{Kind: "unexplained", Score: totals, Detail: "the same analyzers, different totals"})
	}
	if order > 0 {
		if used["sort"] {
			out = append(out, result.ParityCause{Kind: "sort ties", Score: order,
				Detail: "equal sort values: TairSearch orders them by id, Elasticsearch by index order"})
		} else {
			out = append(out, result.ParityCause{Kind: "scoring model", Score: order,
				Detail: "TF-IDF against BM25: the same number of hits, ranked differently"})
		}
	}
	slices.SortStableFunc(out, func(a, b result.ParityCause) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

// causeLine is every cause on one line, each with its score.
func causeLine(cs []result.ParityCause) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %.2f (%s)", c.Kind, c.Score, c.Detail)
	}
	return strings.Join(parts, "; ")
}

// names collects the object keys and string values of a query body (the
// fields it names, among other words).
func names(body json.RawMessage) map[string]bool {
	var v any
	_ = json.Unmarshal(body, &v)
	out := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				out[k] = true
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		case string:
			out[x] = true
		}
	}
	walk(v)
	return out
}

// tokenExample cuts the text a sample query gives field on both engines
// and shows the two token lists when they differ; same is true only when
// both engines cut it and their tokens are equal.
func (r *runner) tokenExample(ctx context.Context, field, tairAnalyzer, example string) (ex string, same bool) {
	text := fieldText([]byte(example), field)
	if text == "" {
		return "", false
	}
	var lists [][]string
	for _, e := range r.engines {
		ta, ok := e.(fts.TokenAnalyzer)
		if !ok {
			return "", false
		}
		toks, err := ta.Tokens(ctx, field, tairAnalyzer, text)
		if err != nil {
			return "", false
		}
		lists = append(lists, toks)
	}
	if sameTokens(lists[0], lists[1]) {
		return "", true
	}
	what := "e.g."
	if onlyStopWords(lists[0], lists[1]) {
		what = "stop words: e.g."
	}
	return fmt.Sprintf("%s %q: %s [%s], %s [%s]", what, text, r.engines[0].Name(), strings.Join(lists[0], " "),
		r.engines[1].Name(), strings.Join(lists[1], " ")), false
}

// onlyStopWords says whether two token lists differ only by stop words.
func onlyStopWords(a, b []string) bool {
	count := map[string]int{}
	for _, t := range a {
		count[t]++
	}
	for _, t := range b {
		count[t]--
	}
	for t, n := range count {
		if n != 0 && !fulltext.IsStopWord(t) {
			return false
		}
	}
	return true
}

// fieldText finds the text a query gives a field: {"field":"text"} or
// {"field":{"query":"text"}} anywhere in the body.
func fieldText(body []byte, field string) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	var find func(any) string
	find = func(v any) string {
		switch x := v.(type) {
		case map[string]any:
			if t, ok := x[field]; ok {
				switch y := t.(type) {
				case string:
					return y
				case map[string]any:
					if q, ok := y["query"].(string); ok {
						return q
					}
				}
			}
			for _, c := range x {
				if s := find(c); s != "" {
					return s
				}
			}
		case []any:
			for _, c := range x {
				if s := find(c); s != "" {
					return s
				}
			}
		}
		return ""
	}
	return find(v)
}
