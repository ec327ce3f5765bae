package fulltext

import (
	"sort"
	"strings"

	"github.com/tairbench/tairbench/internal/editdist"
)

// AddSuggestions adds (or re-weights) suggestions and returns how many were new.
func (ix *Index) AddSuggestions(texts []string, weights []float64) int {
	n := 0
	for i, t := range texts {
		if _, ok := ix.sugs[t]; !ok {
			n++
		}
		ix.sugs[t] = weights[i]
	}
	return n
}

// DeleteSuggestions removes suggestions and returns how many existed.
func (ix *Index) DeleteSuggestions(texts []string) int {
	n := 0
	for _, t := range texts {
		if _, ok := ix.sugs[t]; ok {
			delete(ix.sugs, t)
			n++
		}
	}
	return n
}

// SuggestionCount returns the number of suggestions.
func (ix *Index) SuggestionCount() int { return len(ix.sugs) }

// Suggestions returns suggestions starting with prefix (within one edit
// with fuzzy), highest weight first, at most max (0: all).
func (ix *Index) Suggestions(prefix string, max int, fuzzy bool) []string {
	var out []string
	pr := []rune(prefix)
	for t := range ix.sugs {
		switch {
		case strings.HasPrefix(t, prefix):
		case fuzzy:
			tr := []rune(t)
			if len(tr) < len(pr) || editdist.Distance(pr, tr[:len(pr)], 1) > 1 {
				continue
			}
		default:
			continue
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		wi, wj := ix.sugs[out[i]], ix.sugs[out[j]]
		if wi != wj {
			return wi > wj
		}
		return out[i] < out[j]
	})
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out
}
