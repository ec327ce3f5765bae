package fulltext

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFormatFloat(t *testing.T) {
	for in, want := range map[float64]string{1: "1.0", 2: "2.0", 0.5: "0.5", 0.0543627: "0.054363", 212.2: "212.2", 25: "25.0",
		22564.42: "22564.42", -0.0000001: "0.0", 1234567: "1234567.0"} {
		assert.Equal(t, want, FormatFloat(in), "%v", in)
	}
}

func TestCRC64MatchesRedis(t *testing.T) {
	assert.Equal(t, uint64(0xe9c6d914c4b8d9ca), CRC64([]byte("123456789")))
}

func TestStandardAnalyzer(t *testing.T) {
	terms := func(s string) []string {
		var out []string
		for _, tk := range (standardAnalyzer{stop: true}).Analyze(s) {
			out = append(out, tk.Term)
		}
		return out
	}
	tests := map[string][]string{
		"Redis is an in-memory database":   {"redis", "memory", "database"},
		"Hello, World! It's 3.14 o'clock.": {"hello", "world", "it's", "3.14", "o'clock"},
		"e-mail U.S.A. foo_bar café":       {"e", "mail", "u.s.a", "foo_bar", "café"},
		"夏天是一个很热的季节":                       {"夏", "天", "是", "一", "个", "很", "热", "的", "季", "节"},
		"The THE the":                      nil,
	}
	for in, want := range tests {
		assert.Equal(t, want, terms(in), in)
	}
}

func TestParseRequestErrors(t *testing.T) {
	tests := map[string]string{
		`{"query":{"regexp":{"f":"a.*"}}}`:                           "unsupported query type 'regexp'",
		`{"query":{"term":{}}}`:                                      "term must name a field",
		`{"query":{"bool":{"must":5}}}`:                              "bool.must must be a query",
		`{"size":-1}`:                                                "size must be",
		`{"query":{"match":{"f":{"operator":"xor","query":"a"}}}}`:   "operator must be",
		`{"aggs":{"a":{"terms":{"field":"f","order":{"x":"asc"}}}}}`: "terms order by 'x'",
		`not json`: "invalid json",
	}
	for in, want := range tests {
		_, err := ParseRequest([]byte(in))
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add(`{"query":{"term":{"abstract":"hello"}}}`)
	f.Add(`{"size":0,"query":{"term":{"abstract":"hello"}},"aggs":{"a1":{"terms":{"field":"id","order":{"_key":"asc"}}}}}`)
	f.Add(`{"query":{"bool":{"must":[{"match":{"a":"x y"}}],"should":{"range":{"n":{"gt":1}}}}},"sort":["_score"]}`)
	ix := NewIndex("f", mustMapping(f, `{"mappings":{"properties":{"abstract":{"type":"text"},"id":{"type":"keyword"},"n":{"type":"long"}}}}`))
	_ = ix.Add("1", []byte(`{"abstract":"hello world","id":"1","n":3}`))
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ix.Search([]byte(s), false)
	})
}

func mustMapping(t testing.TB, s string) *Mapping {
	m, err := ParseMapping([]byte(s))
	require.NoError(t, err)
	return m
}

// abstracts builds an index of n synthetic abstracts.
func abstracts(b testing.TB, n int) *Index {
	ix := NewIndex("wiki", mustMapping(b, `{"mappings":{"properties":{"id":{"type":"keyword","index":false},"url":{"type":"text","index":false},"title":{"type":"text","index":false},"abstract":{"type":"text","analyzer":"standard"}}}}`))
	words := strings.Fields("hello world anarchism political philosophy history society free people state government science music film city river")
	for i := 0; i < n; i++ {
		var sb strings.Builder
		for j := 0; j < 40; j++ {
			sb.WriteString(words[(i*7+j*13)%len(words)] + " ")
		}
		doc := fmt.Sprintf(`{"id":"%d","url":"https://en.wikipedia.org/wiki/%d","title":"T%d","abstract":%q}`, i, i, i, sb.String())
		require.NoError(b, ix.Add(fmt.Sprint(i), []byte(doc)))
	}
	return ix
}

func BenchmarkIngest(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		abstracts(b, 1000)
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "docs/s")
}

func BenchmarkTermQuery(b *testing.B) {
	ix := abstracts(b, 100_000)
	q := []byte(`{"query":{"term":{"abstract":"hello"}}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Search(q, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTermsAggregation(b *testing.B) {
	ix := abstracts(b, 100_000)
	q := []byte(`{"size":0,"query":{"term":{"abstract":"hello"}},"aggs":{"a1":{"terms":{"field":"id","order":{"_key":"asc"}}}}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Search(q, false); err != nil {
			b.Fatal(err)
		}
	}
}

// wikiIndex indexes the real 368 abstracts 100 times (36,800 documents),
// the same data experiments/bleve-compare gives bleve.
func wikiIndex(b *testing.B) (*Index, int) {
	raw, err := os.ReadFile("../../testdata/wiki/enwiki-abstract-sample-2019.xml")
	require.NoError(b, err)
	re := regexp.MustCompile(`(?s)<title>Wikipedia: (.*?)</title>\s*<url>(.*?)</url>\s*<abstract>(.*?)</abstract>`)
	var docs [][]byte
	for c := 0; c < 100; c++ {
		for _, m := range re.FindAllSubmatch(raw, -1) {
			id := len(docs) + 1
			d, _ := json.Marshal(map[string]string{"id": fmt.Sprint(id), "url": string(m[2]), "title": string(m[1]),
				"abstract": strings.TrimSpace(string(m[3]))})
			docs = append(docs, d)
		}
	}
	ix := NewIndex("wiki", mustMapping(b, `{"mappings":{"properties":{"id":{"type":"keyword","index":false},"url":{"type":"text","index":false},"title":{"type":"text","index":false},"abstract":{"type":"text","analyzer":"standard"}}}}`))
	for i, d := range docs {
		require.NoError(b, ix.Add(fmt.Sprint(i+1), d))
	}
	return ix, len(docs)
}

func BenchmarkWikiIngest(b *testing.B) {
	var n int
	for i := 0; i < b.N; i++ {
		_, n = wikiIndex(b)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "docs/s")
}

func BenchmarkWikiQuery(b *testing.B) {
	ix, _ := wikiIndex(b)
	for _, tc := range []struct{ name, q string }{
		{"term-hello", `{"query":{"term":{"abstract":"hello"}}}`},
		{"term-world", `{"query":{"term":{"abstract":"world"}}}`},
		{"agg-world", `{"size":0,"query":{"term":{"abstract":"world"}},"aggs":{"a1":{"terms":{"field":"id","order":{"_key":"asc"}}}}}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := ix.Search([]byte(tc.q), false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestChineseStopListIsDocumented: docs/search.md says where the jieba
// analyzer's stop words come from and how many there are; the list drops
// the words the reference shows dropped and keeps those it shows kept.
func TestChineseStopListIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/search.md")
	require.NoError(t, err)
	n := len(ChineseStopWords())
	assert.Contains(t, string(doc), fmt.Sprintf("Stop words: cppjieba's list, %d,%03d words", n/1000, n%1000))
	for _, w := range []string{"是", "的", "和", "可以", "用来", "作为", "有", "时候"} {
		assert.True(t, chineseStopWords[w], "the reference shows %s dropped", w)
	}
	for _, w := range []string{"一个", "中", "化", "再次", "redis", "bsd", "key", "value"} {
		assert.False(t, chineseStopWords[w], "the reference shows %s kept", w)
	}
}
