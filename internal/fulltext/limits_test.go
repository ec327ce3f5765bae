package fulltext

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every limit refuses the request that passes it, and only that one.
func TestLimitsRefuseBeforeTheWork(t *testing.T) {
	m, err := ParseMapping([]byte(`{"mappings":{"properties":{"t":{"type":"text"},"k":{"type":"keyword"}}}}`))
	require.NoError(t, err)
	ix := NewIndex("idx", m)
	ix.Limits = Limits{MaxClauses: 4, MaxTerms: 3, MaxExpansions: 5, MaxBuckets: 6}
	for i := 0; i < 20; i++ {
		require.NoError(t, ix.Add(fmt.Sprintf("d%d", i), fmt.Appendf(nil, `{"t":"word%d other","k":"k%d"}`, i, i%10)))
	}
	cases := []struct {
		name, query, limit string
	}{
		{"match within", `{"query":{"match":{"t":"word1 word2 word3 word4"}}}`, ""},
		{"match past", `{"query":{"match":{"t":"word1 word2 word3 word4 word5"}}}`, "clauses"},
		{"bool past", `{"query":{"bool":{"should":[{"term":{"t":"a"}},{"term":{"t":"b"}},{"term":{"t":"c"}}],"must":[{"term":{"t":"d"}},{"term":{"t":"e"}}]}}}`, "clauses"},
		{"dis_max past", `{"query":{"dis_max":{"queries":[{"term":{"t":"a"}},{"term":{"t":"b"}},{"term":{"t":"c"}},{"term":{"t":"d"}},{"term":{"t":"e"}}]}}}`, "clauses"},
		{"terms within", `{"query":{"terms":{"k":["k1","k2","k3"]}}}`, ""},
		{"terms past", `{"query":{"terms":{"k":["k1","k2","k3","k4"]}}}`, "terms"},
		{"prefix past", `{"query":{"prefix":{"t":"word1"}}}`, "expansions"}, // word1, word10-19
		{"prefix narrow", `{"query":{"prefix":{"t":"word2"}}}`, ""},
		{"wildcard past", `{"query":{"wildcard":{"t":"word*"}}}`, "expansions"},
		{"fuzzy past", `{"query":{"match":{"t":{"query":"word5","fuzziness":2}}}}`, "expansions"},
		{"text range past", `{"query":{"range":{"t":{"gte":"word"}}}}`, "expansions"},
		{"agg size past", `{"size":0,"aggs":{"a":{"terms":{"field":"k","size":7}}}}`, "buckets"},
		{"agg over more keys than its size", `{"size":0,"aggs":{"a":{"terms":{"field":"k","size":6}}}}`, ""},
		{"depth past", `{"query":` + strings.Repeat(`{"bool":{"must":[`, 30) + `{"match_all":{}}` + strings.Repeat(`]}}`, 30) + `}`, "depth"},
		{"brackets in strings do not count", `{"query":{"term":{"t":"` + strings.Repeat("[{", 100) + `"}}}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ix.Search([]byte(c.query), false)
			var le *LimitError
			if c.limit == "" {
				assert.False(t, errors.As(err, &le), "%v", err)
				return
			}
			require.ErrorAs(t, err, &le)
			assert.Equal(t, c.limit, le.Limit)
			assert.Greater(t, le.N, le.Max, le.Error())
		})
	}
}
