package track

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/relevance"
)

// withRelevance is a small track whose relevance section is rel.
func withRelevance(corpus, rel string) string {
	return `{"name":"t","corpus":` + corpus + `,"index":{"name":"i","tairsearch":{"mappings":{"properties":{` +
		`"title":{"type":"text"},"price":{"type":"double"}}}}},"tasks":[{"name":"w","ingest":{}}],"relevance":` + rel + `}`
}

const genCorpus = `{"generator":"products-zh","docs":10,"seed":1}`

func TestRelevanceRefusals(t *testing.T) {
	for _, c := range []struct{ rel, want string }{
		{`{"template":{"query":{"match":{"title":"x"}}},"known_items":{"field":"title"}}`, "relevance: template query has no {{query}}"},
		{`{"template":{"query":{"match":{"title":"{{query}} {{other}}"}}},"known_items":{"field":"title"}}`, "relevance: template query may hold only {{query}}"},
		{`{"known_items":{"field":"title"}}`, "relevance: give template, or templates by name"},
		{`{"template":{"q":"{{query}}"},"templates":{"a":{"q":"{{query}}"}},"known_items":{"field":"title"}}`, "relevance: give template, or templates by name"},
		{`{"templates":{"a":{"q":"x"}},"known_items":{"field":"title"}}`, "relevance: template a has no {{query}}"},
		{`{"template":{"query":{"match":{"title":"{{query}}"}}}}`, "relevance: give one of known_items, qrels and queries, or labels"},
		{`{"template":{"query":{"match":{"title":"{{query}}"}}},"known_items":{"field":"title"},"qrels":"q.txt"}`, "relevance: give one of known_items, qrels and queries, or labels"},
		{`{"template":{"query":{"match":{"title":"{{query}}"}}},"known_items":{"field":"title"},"labels":[{"query":"a","relevant":["1"]}]}`,
			"relevance: give one of known_items, qrels and queries, or labels"},
		{`{"template":{"query":{"match":{"title":"{{query}}"}}},"labels":[{"query":" ","relevant":["1"]}]}`, "relevance: labels[0] has no query"},
		{`{"template":{"query":{"match":{"title":"{{query}}"}}},"labels":[{"query":"a","relevant":"1"}]}`,
			`relevance: labels[0]: relevant must be a list of ids or ids with grades ({"12": 2})`},
		{`{"template":{"query":{"match":{"title":"{{query}}"}}},"labels":[{"query":"a","relevant":{"1":-1}}]}`, "relevance: labels[0]: relevant 1: grade -1 below 0"},
		{`{"template":{"query":{"match":{"title":"{{query}}"}}},"labels":[{"id":"x","query":"a","relevant":[]},{"id":"x","query":"b","relevant":[]}]}`,
			"relevance: labels[1]: id x is given twice"},
		{`{"template":{"query":{"match":{"title":"{{query}}"}}},"qrels":"q.txt"}`, "relevance: qrels and queries go together"},
		{`{"template":{"query":{"match":{"title":"{{query}}"}}},"known_items":{"field":"body"}}`, `relevance: known_items field "body" is not in the tairsearch mapping`},
		{`{"template":{"query":{"match":{"title":"{{query}}"}}},"known_items":{"field":"price"}}`, "relevance: known_items field price is double, not text or keyword"},
		{`{"template":{"query":{"match":{"title":"{{query}}"}}},"known_items":{"field":"title"},"k":-1}`, "relevance: k must be 1 or more"},
	} {
		_, err := Parse([]byte(withRelevance(genCorpus, c.rel)))
		assert.ErrorContains(t, err, c.want, c.rel)
	}
}

// TestRelevanceExpand: the query's text goes in as JSON, quoted where the
// placeholder is a whole string, escaped inside a longer one.
func TestRelevanceExpand(t *testing.T) {
	r := Relevance{Template: []byte(`{"query":{"bool":{"must":[{"match":{"title":"{{query}}"}},{"match":{"title":"in {{query}}"}}]}}}`)}
	q := r.Bodies()
	require.Len(t, q, 1)
	assert.Equal(t, "query", q[0].Name)
	assert.Equal(t, `{"query":{"bool":{"must":[{"match":{"title":"say \"hi\"\\n"}},{"match":{"title":"in say \"hi\"\\n"}}]}}}`,
		string(q[0].Expand("say \"hi\"\\n")))
	assert.Equal(t, 10, r.CutOff())

	r = Relevance{Templates: map[string]json.RawMessage{"title": []byte(`{"q":"{{query}}"}`), "abstract": []byte(`{"a":"{{query}}"}`)}}
	q = r.Bodies()
	assert.Equal(t, []string{"abstract", "title"}, []string{q[0].Name, q[1].Name}, "in name order")
}

// TestKnownItemsSpreadOverTheCorpus: known items are every step-th
// document with the field, each its own one relevant answer.
func TestKnownItemsSpreadOverTheCorpus(t *testing.T) {
	tr, err := Parse([]byte(withRelevance(genCorpus, `{"template":{"query":{"match":{"title":"{{query}}"}}},"known_items":{"field":"title","queries":5}}`)))
	require.NoError(t, err)
	qs, labels, from, err := tr.Labels(10)
	require.NoError(t, err)
	require.Len(t, qs, 5)
	assert.Equal(t, []string{"1", "3", "5", "7", "9"}, []string{qs[0].ID, qs[1].ID, qs[2].ID, qs[3].ID, qs[4].ID})
	assert.Equal(t, relevance.Labels{"3": 1}, labels["3"])
	assert.NotEmpty(t, qs[0].Text)
	assert.Equal(t, "known items: 5 documents, each found by its title (the document is the one relevant answer)", from)
}

// TestInlineLabels: queries judged in the track itself, by a list of ids
// (grade 1) or ids with grades; an entry without an id is named by its place.
func TestInlineLabels(t *testing.T) {
	tr, err := Parse([]byte(withRelevance(genCorpus, `{"template":{"query":{"match":{"title":"{{query}}"}}},"labels":[`+
		`{"query":"红楼梦","relevant":["3","7"]},{"id":"cache","query":"缓存","relevant":{"5":2,"6":0}}]}`)))
	require.NoError(t, err)
	qs, labels, from, err := tr.Labels(10)
	require.NoError(t, err)
	assert.Equal(t, []relevance.Query{{ID: "q1", Text: "红楼梦"}, {ID: "cache", Text: "缓存"}}, qs)
	assert.Equal(t, relevance.Labels{"3": 1, "7": 1}, labels["q1"])
	assert.Equal(t, relevance.Labels{"5": 2, "6": 0}, labels["cache"])
	assert.Equal(t, "the track's labels: 2 queries judged in the track", from)
}

// TestUserLabels: the track's qrels and queries are read beside it; a
// judgment of a query the queries file lacks is refused.
func TestUserLabels(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write("queries.tsv", "q1\tredis\nq2\tvector\n")
	write("qrels.txt", "q1 0 3 2\nq1 0 4 1\n")
	write("bad-qrels.txt", "q1 0 3 2\nq9 0 4 1\n")
	trackFile := filepath.Join(dir, "t.json")
	rel := `{"template":{"query":{"match":{"title":"{{query}}"}}},"qrels":"%s","queries":"queries.tsv"}`
	write("t.json", withRelevance(genCorpus, strings.Replace(rel, "%s", "qrels.txt", 1)))
	tr, err := Load(trackFile)
	require.NoError(t, err)
	qs, labels, from, err := tr.Labels(10)
	require.NoError(t, err)
	assert.Len(t, qs, 2)
	assert.Equal(t, map[string]relevance.Labels{"q1": {"3": 2, "4": 1}}, labels)
	assert.Equal(t, "the track's labels: 2 queries (queries.tsv), judged in qrels.txt", from)

	write("t.json", withRelevance(genCorpus, strings.Replace(rel, "%s", "bad-qrels.txt", 1)))
	tr, err = Load(trackFile)
	require.NoError(t, err)
	_, _, _, err = tr.Labels(10)
	assert.EqualError(t, err, "relevance: bad-qrels.txt judges query q9, which queries.tsv does not give")
}
