package fulltext

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dslIndex is a small index whose documents each query type tells apart.
func dslIndex(t *testing.T) *Index {
	t.Helper()
	ix := NewIndex("dsl", mustMapping(t, `{"mappings":{"properties":{
		"title":{"type":"text"},"tag":{"type":"keyword"},"price":{"type":"long"},"score":{"type":"double"}}}}`))
	docs := map[string]string{
		"1": `{"title":"red apple pie","tag":"fruit","price":10,"score":1.5}`,
		"2": `{"title":"green apple","tag":"fruit","price":20,"score":2.5}`,
		"3": `{"title":"red car","tag":"vehicle","price":3000,"score":4}`,
		"4": `{"title":"apple computer","tag":"tech","price":1500,"score":4.5}`,
		"5": `{"title":"blue sky","tag":"nature","price":0,"score":0.5}`,
		"6": `{"title":"apples and oranges","tag":"Fruit","price":15}`,
	}
	for _, id := range []string{"1", "2", "3", "4", "5", "6"} {
		require.NoError(t, ix.Add(id, []byte(docs[id])))
	}
	return ix
}

// searchResult is the part of a response the table reads.
type searchResult struct {
	Hits struct {
		Hits []struct {
			ID string `json:"_id"`
		} `json:"hits"`
		Total struct {
			Value int `json:"value"`
		} `json:"total"`
	} `json:"hits"`
	Aggregations map[string]json.RawMessage `json:"aggregations"`
}

func search(t *testing.T, ix *Index, q string) searchResult {
	t.Helper()
	raw, err := ix.Search([]byte(q), false)
	require.NoError(t, err, q)
	var r searchResult
	require.NoError(t, json.Unmarshal(raw, &r), string(raw))
	return r
}

// ids are the hits' IDs, sorted (scoring order is tested apart).
func ids(r searchResult) []string {
	var out []string
	for _, h := range r.Hits.Hits {
		out = append(out, h.ID)
	}
	slices.Sort(out)
	return out
}

// TestQueryTypes: every query type the DSL takes, with the documents it
// matches.
func TestQueryTypes(t *testing.T) {
	ix := dslIndex(t)
	cases := []struct {
		name, query string
		want        []string
	}{
		{"term on text", `{"term":{"title":"apple"}}`, []string{"1", "2", "4"}},
		{"term on keyword is exact", `{"term":{"tag":"fruit"}}`, []string{"1", "2"}},
		{"term on keyword keeps case", `{"term":{"tag":"Fruit"}}`, []string{"6"}},
		{"term on text lowercases its value", `{"term":{"title":"APPLE"}}`, []string{"1", "2", "4"}},
		{"term on text, lowercase false", `{"term":{"title":{"value":"APPLE","lowercase":false}}}`, nil},
		{"term on long", `{"term":{"price":20}}`, []string{"2"}},
		{"terms", `{"terms":{"tag":["tech","nature"]}}`, []string{"4", "5"}},
		{"match, or", `{"match":{"title":"red apple"}}`, []string{"1", "2", "3", "4"}},
		{"match, and", `{"match":{"title":{"query":"red apple","operator":"and"}}}`, []string{"1"}},
		{"match, minimum_should_match", `{"match":{"title":{"query":"red apple pie","minimum_should_match":2}}}`, []string{"1"}},
		{"match, fuzziness", `{"match":{"title":{"query":"aple","fuzziness":1}}}`, []string{"1", "2", "4"}},
		{"match_all", `{"match_all":{}}`, []string{"1", "2", "3", "4", "5", "6"}},
		{"bool must and must_not", `{"bool":{"must":{"term":{"title":"apple"}},"must_not":{"term":{"tag":"tech"}}}}`, []string{"1", "2"}},
		{"bool should, minimum", `{"bool":{"should":[{"term":{"title":"red"}},{"term":{"title":"blue"}}],"minimum_should_match":1}}`, []string{"1", "3", "5"}},
		{"bool filter", `{"bool":{"filter":[{"range":{"price":{"gte":15}}},{"term":{"title":"apple"}}]}}`, []string{"2", "4"}},
		{"range long", `{"range":{"price":{"gt":10,"lt":1500}}}`, []string{"2", "6"}},
		{"range double", `{"range":{"score":{"gte":2.5,"lte":4}}}`, []string{"2", "3"}},
		{"range from/to", `{"range":{"price":{"from":0,"to":10}}}`, []string{"1", "5"}},
		{"prefix", `{"prefix":{"title":"app"}}`, []string{"1", "2", "4", "6"}},
		{"prefix on keyword", `{"prefix":{"tag":"fr"}}`, []string{"1", "2"}},
		{"wildcard", `{"wildcard":{"title":"a*e"}}`, []string{"1", "2", "4"}},
		{"wildcard ?", `{"wildcard":{"tag":"t?ch"}}`, []string{"4"}},
		{"dis_max", `{"dis_max":{"queries":[{"term":{"title":"car"}},{"term":{"title":"sky"}}],"tie_breaker":0.3}}`, []string{"3", "5"}},
		{"constant_score", `{"constant_score":{"filter":{"term":{"tag":"vehicle"}},"boost":2}}`, []string{"3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := search(t, ix, `{"size":100,"query":`+c.query+`}`)
			assert.Equal(t, c.want, ids(r))
			assert.Equal(t, len(c.want), r.Hits.Total.Value)
		})
	}
}

// TestScoringOrder: more matching terms rank first; a boost lifts a
// clause; constant_score gives every hit the same score.
func TestScoringOrder(t *testing.T) {
	ix := dslIndex(t)
	r := search(t, ix, `{"query":{"match":{"title":"red apple pie"}}}`)
	require.NotEmpty(t, r.Hits.Hits)
	assert.Equal(t, "1", r.Hits.Hits[0].ID, "the document with all three terms first")
	r = search(t, ix, `{"query":{"bool":{"should":[{"term":{"title":{"value":"car","boost":10}}},{"term":{"title":"apple"}}]}}}`)
	assert.Equal(t, "3", r.Hits.Hits[0].ID, "the boosted clause's document first")
}

// TestAggregations: terms buckets (size, order, min_doc_count), metrics
// and a filter with a sub-aggregation.
func TestAggregations(t *testing.T) {
	ix := dslIndex(t)
	r := search(t, ix, `{"size":0,"aggs":{
		"tags":{"terms":{"field":"tag","order":{"_key":"asc"},"size":3}},
		"top":{"terms":{"field":"tag","order":{"_count":"desc"},"size":1}},
		"sum":{"sum":{"field":"price"}},"max":{"max":{"field":"price"}},"min":{"min":{"field":"price"}},
		"avg":{"avg":{"field":"score"}},"n":{"value_count":{"field":"score"}},
		"cheap":{"filter":{"range":{"price":{"lt":100}}},"aggs":{"avg_price":{"avg":{"field":"price"}}}}}}`)
	assert.Empty(t, r.Hits.Hits, "size 0 returns no hits")
	assert.Equal(t, 6, r.Hits.Total.Value)
	var terms struct {
		Buckets []struct {
			Key      string `json:"key"`
			DocCount int    `json:"doc_count"`
		} `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal(r.Aggregations["tags"], &terms))
	var keys []string
	for _, b := range terms.Buckets {
		keys = append(keys, b.Key)
	}
	assert.Equal(t, []string{"Fruit", "fruit", "nature"}, keys, "by key, the first 3")
	require.NoError(t, json.Unmarshal(r.Aggregations["top"], &terms))
	require.Len(t, terms.Buckets, 1)
	assert.Equal(t, "fruit", terms.Buckets[0].Key)
	assert.Equal(t, 2, terms.Buckets[0].DocCount)
	value := func(name string) float64 {
		var v struct{ Value float64 }
		require.NoError(t, json.Unmarshal(r.Aggregations[name], &v), name)
		return v.Value
	}
	assert.Equal(t, 4545.0, value("sum"))
	assert.Equal(t, 3000.0, value("max"))
	assert.Equal(t, 0.0, value("min"))
	assert.InDelta(t, 2.6, value("avg"), 1e-9, "over the five documents with a score")
	assert.Equal(t, 5.0, value("n"))
	var cheap struct {
		DocCount int                        `json:"doc_count"`
		Sub      map[string]json.RawMessage `json:"-"`
	}
	require.NoError(t, json.Unmarshal(r.Aggregations["cheap"], &cheap))
	assert.Equal(t, 4, cheap.DocCount, "prices 10, 20, 0 and 15")
	assert.Contains(t, string(r.Aggregations["cheap"]), `"avg_price":{"value":11.25`)
}

// TestQueryErrors: each malformed query is refused with its reason.
func TestQueryErrors(t *testing.T) {
	ix := dslIndex(t)
	cases := map[string]string{
		`{"query":{"regexp":{"title":"a.*"}}}`:                         "unsupported query type 'regexp'",
		`{"query":{"term":{}}}`:                                        "term must name a field",
		`{"query":{"term":{"a":1,"b":2}}}`:                             "",
		`{"query":{"bool":{"must":5}}}`:                                "bool.must must be a query",
		`{"query":{"match":{"title":{"operator":"xor","query":"a"}}}}`: "operator must be",
		`{"query":{"constant_score":{}}}`:                              "constant_score needs a filter",
		`{"query":{"dis_max":{"queries":5}}}`:                          "dis_max needs an array of queries",
		`{"query":{"range":{"price":{"gt":"x"}}}}`:                     "",
		`{"query":{"prefix":{"title":{"value":{}}}}}`:                  "prefix value must be a string",
		`{"query":{"match_all":{"boost":"x"}}}`:                        "match_all.boost",
		`{"size":-1}`:                                                  "size must be",
		`{"aggs":{"a":{"terms":{"field":"tag","order":{"x":"asc"}}}}}`: "terms order by 'x'",
		`not json`: "invalid json",
	}
	for q, want := range cases {
		_, err := ix.Search([]byte(q), false)
		require.Error(t, err, q)
		if want != "" {
			assert.Contains(t, err.Error(), want, q)
		}
	}
}
