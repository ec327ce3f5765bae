package fulltext

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
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

// wordy is an index of n documents of five random 8-letter words each
// (about 5n distinct terms): expansion queries over it take long.
func wordy(t testing.TB, n int, l Limits) *Index {
	m, err := ParseMapping([]byte(`{"mappings":{"properties":{"t":{"type":"text"}}}}`))
	require.NoError(t, err)
	ix := NewIndex("wordy", m)
	ix.Limits = l
	word := testenv.Words(1)
	for i := range n {
		require.NoError(t, ix.Add(fmt.Sprint(i), fmt.Appendf(nil, `{"t":"%s %s %s %s %s"}`, word(), word(), word(), word(), word())))
	}
	return ix
}

// TestQueriesStopAtTheirTimeLimit: a fuzzy match of 200 words and a bool
// of 1,000 wildcards, which would run for seconds, are refused once they
// pass MaxTime, naming the limit; a cancelled server stops them at once.
func TestQueriesStopAtTheirTimeLimit(t *testing.T) {
	const limit = 200 * time.Millisecond
	ix := wordy(t, 20000, Limits{MaxTime: limit, MaxExpansions: 1 << 30})
	words := make([]string, 200)
	for i := range words {
		words[i] = fmt.Sprintf("abcdefg%c", 'a'+i%26)
	}
	clauses := make([]string, 1000)
	for i := range clauses {
		clauses[i] = fmt.Sprintf(`{"wildcard":{"t":"*%c*%c*"}}`, 'a'+i%26, 'a'+(i/26)%26)
	}
	for name, q := range map[string]string{
		"fuzzy":     `{"query":{"match":{"t":{"query":"` + strings.Join(words, " ") + `","fuzziness":2}}}}`,
		"wildcards": `{"query":{"bool":{"should":[` + strings.Join(clauses, ",") + `]}}}`,
	} {
		start := time.Now()
		_, err := ix.Search([]byte(q), false)
		took := time.Since(start)
		var le *LimitError
		require.ErrorAs(t, err, &le, name)
		assert.Equal(t, "time", le.Limit, name)
		assert.Contains(t, le.Error(), "this server gives a query at most 200 ms", name)
		// Stopped at the limit, not at the end: without it, under the race
		// detector, the wildcards ran 158 s and the fuzzy match 42 s here.
		// Five times the limit leaves room for a busy machine's scheduling
		// (302 ms was seen once against a bar of 300 ms).
		assert.Less(t, took, 5*limit, name)
	}
	stop := true
	ix.Limits.Cancelled = func() bool { return stop }
	_, err := ix.Search([]byte(`{"query":{"match":{"t":{"query":"abcdefgh","fuzziness":2}}}}`), false)
	assert.ErrorIs(t, err, ErrCancelled)
}
