package track

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tairbench/tairbench/internal/driver/fts"
	tk "github.com/tairbench/tairbench/internal/track"
	"github.com/tairbench/tairbench/pkg/result"
)

// tokenSamples is how many texts of a field token agreement cuts; topTokens
// how many differing tokens it keeps per engine.
const (
	tokenSamples = 200
	topTokens    = 8
)

// tokenAgreement cuts the text of each field whose analyzer is not the
// same on both engines, from the corpus's first documents, on both, and
// counts the texts cut into equal token lists. Both engines hold the
// track's index (its analyzers) by then.
func (r *runner) tokenAgreement(ctx context.Context) ([]result.TokenAgreement, error) {
	var fields []result.AnalyzerTranslation
	for _, a := range r.doc.Analyzers {
		if !a.Exact && !strings.HasSuffix(a.Field, " (search)") {
			fields = append(fields, a)
		}
	}
	if len(fields) == 0 || len(r.engines) != 2 {
		return nil, nil
	}
	texts, err := fieldTexts(r.tr, fields)
	if err != nil {
		return nil, err
	}
	var out []result.TokenAgreement
	for _, a := range fields {
		row := result.TokenAgreement{Field: a.Field, TairSearch: a.TairSearch, Elasticsearch: a.Elasticsearch, Implementation: a.Implementation}
		diff := map[string]int{} // TairSearch's count minus Elasticsearch's
		for _, text := range texts[a.Field] {
			var lists [2][]string
			for i, e := range r.engines {
				ta, ok := e.(fts.TokenAnalyzer)
				if !ok {
					return nil, nil
				}
				if lists[i], err = ta.Tokens(ctx, a.Field, a.TairSearch, text); err != nil {
					return nil, fmt.Errorf("token agreement, field %s: %w", a.Field, err)
				}
			}
			row.Samples++
			if sameTokens(lists[0], lists[1]) {
				row.Equal++
				continue
			}
			for _, t := range lists[0] {
				diff[t]++
			}
			for _, t := range lists[1] {
				diff[t]--
			}
			if row.Example == "" {
				row.Example = fmt.Sprintf("%q: %s [%s], %s [%s]", text, r.engines[0].Name(), strings.Join(lists[0], " "),
					r.engines[1].Name(), strings.Join(lists[1], " "))
			}
		}
		row.OnlyTairSearch, row.OnlyElasticsearch = topDiff(diff, 1), topDiff(diff, -1)
		out = append(out, row)
	}
	return out, nil
}

// sameTokens says whether two engines made the same tokens, in any order:
// Lucene indexes tokens only in the order of their start offsets, so an
// Elasticsearch analyzer gives a word before its later sub-words (高性能,
// 性能) where TairSearch's jieba gives the sub-words first.
func sameTokens(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// topDiff is the tokens whose count difference has sign, largest first.
func topDiff(diff map[string]int, sign int) []result.TokenCount {
	var out []result.TokenCount
	for t, n := range diff {
		if n*sign > 0 {
			out = append(out, result.TokenCount{Token: t, Count: n * sign})
		}
	}
	slices.SortFunc(out, func(a, b result.TokenCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Token, b.Token))
	})
	return out[:min(len(out), topTokens)]
}

// fieldTexts reads each field's text from the corpus's first documents,
// up to tokenSamples texts a field.
func fieldTexts(tr *tk.Track, fields []result.AnalyzerTranslation) (map[string][]string, error) {
	rd, err := tr.Open()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	out := map[string][]string{}
	var d tk.Doc
	for full := 0; full < len(fields); {
		if err := rd.Next(&d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		full = 0
		for _, a := range fields {
			if len(out[a.Field]) >= tokenSamples {
				full++
				continue
			}
			if s, ok := lookup(d.Fields, a.Field).(string); ok && s != "" {
				out[a.Field] = append(out[a.Field], s)
			}
		}
	}
	return out, nil
}

// lookup finds a dotted field ("a.b") in a document's nested objects.
func lookup(fields map[string]any, name string) any {
	if v, ok := fields[name]; ok {
		return v
	}
	head, rest, ok := strings.Cut(name, ".")
	if !ok {
		return nil
	}
	sub, _ := fields[head].(map[string]any)
	return lookup(sub, rest)
}
