package search

import (
	"bytes"
	"fmt"
	"hash/crc64"
	"sort"
	"strings"
)

// jonesTable is the CRC-64 Jones polynomial (reflected), as Redis uses.
var jonesTable = crc64.MakeTable(0x95AC9329AC4BC9B5)

// CRC64 is Redis's crc64(0, …): Jones polynomial, reflected, init 0, no final xor.
func CRC64(b []byte) uint64 { return ^crc64.Update(^uint64(0), jonesTable, b) }

// SchemaCRC is TFT.MSEARCH's index_crc64 of an index's schema.
func (ix *Index) SchemaCRC() uint64 {
	return CRC64([]byte(`{"mappings":` + ix.Mapping.MappingsJSON() + `,"settings":` + ix.Mapping.SettingsJSON() + `}`))
}

// MSearch runs one request over several indexes that share a schema,
// merging hits; N and n are per index.
func MSearch(indexes []*Index, raw []byte) ([]byte, error) {
	if len(indexes) == 0 {
		return nil, qerr("no index")
	}
	crc := indexes[0].SchemaCRC()
	for _, ix := range indexes[1:] {
		if ix.SchemaCRC() != crc {
			return nil, qerr("indexes '%s' and '%s' have different schemas", indexes[0].Name, ix.Name)
		}
	}
	r, err := ParseRequest(raw)
	if err != nil {
		return nil, err
	}
	if r.from != 0 {
		return nil, qerr("TFT.MSEARCH does not take from; use keys_cursor")
	}
	var all []hit
	var total uint64
	var results []*result
	for _, ix := range indexes {
		res, err := r.run(ix, r.keysCursor[ix.Name])
		if err != nil {
			return nil, err
		}
		total += res.total
		all = append(all, res.hits...)
		results = append(results, res)
	}
	less, scored := r.ranker(indexes[0])
	sort.SliceStable(all, func(i, j int) bool {
		if less(all[i], all[j]) != less(all[j], all[i]) {
			return less(all[i], all[j])
		}
		if all[i].ix != all[j].ix {
			return all[i].ix.Name < all[j].ix.Name
		}
		return all[i].doc < all[j].doc
	})
	if len(all) > r.size {
		all = all[:r.size]
	}
	var b bytes.Buffer
	r.renderHits(&b, all, total, scored, false, matches{})
	if len(r.aggs) > 0 {
		return nil, qerr("TFT.MSEARCH does not support aggregations")
	}
	fmt.Fprintf(&b, `,"aux_info":{"index_crc64":%d`, crc)
	if r.replyCursors {
		b.WriteString(`,"keys_cursor":{`)
		for i, res := range results {
			n := r.keysCursor[res.ix.Name]
			for _, h := range all {
				if h.ix == res.ix {
					n++
				}
			}
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s:%d", jsonString(res.ix.Name), n)
		}
		b.WriteByte('}')
	}
	b.WriteString("}}")
	return b.Bytes(), nil
}

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
			if len(tr) < len(pr) || levenshtein(pr, tr[:len(pr)], 1) > 1 {
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

// AnalyzeJSON renders TFT.ANALYZER's reply.
func AnalyzeJSON(a Analyzer, text string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"tokens":[`)
	for i, t := range a.Analyze(text) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"token":%s,"start_offset":%d,"end_offset":%d,"position":%d}`, jsonString(t.Term), t.Start, t.End, t.Position)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// AnalyzerFor resolves an analyzer by name, looking in the index's settings first.
func AnalyzerFor(ix *Index, name string) (Analyzer, error) {
	if ix != nil {
		return ix.Mapping.analyzer(name)
	}
	return builtinAnalyzer(name)
}

// GetIndexJSON renders TFT.GETINDEX: part is "", "mappings" or "settings".
func (ix *Index) GetIndexJSON(part string) string {
	switch part {
	case "mappings":
		return `{` + jsonString(ix.Name) + `:{"mappings":` + ix.Mapping.MappingsJSON() + `}}`
	case "settings":
		return `{` + jsonString(ix.Name) + `:{"settings":` + ix.Mapping.SettingsJSON() + `}}`
	}
	return `{` + jsonString(ix.Name) + `:{"mappings":` + ix.Mapping.MappingsJSON() + `,"settings":` + ix.Mapping.SettingsJSON() + `}}`
}
