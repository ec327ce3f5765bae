package engines

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/catalog"
)

func TestListed(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range All {
		assert.False(t, seen[e.Name], "%s listed twice", e.Name)
		seen[e.Name] = true
		assert.NotEmpty(t, e.Product, e.Name)
		assert.True(t, e.Search != nil || e.Vectors != nil, "%s makes no driver", e.Name)
	}
	assert.Equal(t, "tairsearch, elasticsearch", SearchNames())
	assert.Equal(t, "tairvector, elasticsearch", VectorNames())
}

func TestLookup(t *testing.T) {
	cases := []struct {
		name, kind string
		reach      catalog.Reach
		err        string
	}{
		{"tairsearch", "search", catalog.RESP, ""},
		{"elasticsearch", "search", catalog.HTTP, ""},
		{"tairvector", "vector", catalog.RESP, ""},
		{"elasticsearch", "vector", catalog.HTTP, ""},
		{"tairvector", "search", 0, `unknown engine "tairvector" (search engines: tairsearch, elasticsearch)`},
		{"milvus", "vector", 0, `unknown engine "milvus" (vector engines: tairvector, elasticsearch)`},
	}
	for _, c := range cases {
		find := Search
		if c.kind == "vector" {
			find = Vectors
		}
		e, err := find(c.name)
		if c.err != "" {
			assert.EqualError(t, err, c.err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, c.reach, e.Reach, c.name)
	}
	_, ok := ByName("milvus")
	assert.False(t, ok)
	assert.True(t, AtURL("elasticsearch"))
	assert.False(t, AtURL("tairsearch"))
	assert.False(t, AtURL("milvus"))
}

// TestChoose: --engines by default takes the engines at the RESP target,
// and those reached by URL with --es; an engine by URL without --es, and
// --es that no listed engine would use, are refused; so is an engine of
// another kind.
func TestChoose(t *testing.T) {
	es := "http://127.0.0.1:9200"
	tests := []struct {
		choose   func(list, es string) ([]string, error)
		list, es string
		want     []string
		wantErr  string
	}{
		{ChooseSearch, "", "", []string{"tairsearch"}, ""},
		{ChooseSearch, "", es, []string{"tairsearch", "elasticsearch"}, ""},
		{ChooseSearch, "elasticsearch, tairsearch", es, []string{"elasticsearch", "tairsearch"}, ""},
		{ChooseSearch, "tairsearch", "", []string{"tairsearch"}, ""},
		{ChooseSearch, "elasticsearch", "", nil, "--engines names elasticsearch: give --es URL"},
		{ChooseSearch, "tairsearch", es, nil, "--engines tairsearch names no engine reached by URL: add one (elasticsearch)"},
		{ChooseSearch, "lucene", "", nil, `--engines: unknown engine "lucene" (search engines: tairsearch, elasticsearch)`},
		{ChooseSearch, "tairvector", "", nil, `unknown engine "tairvector"`},
		{ChooseVectors, "", "", []string{"tairvector"}, ""},
		{ChooseVectors, "", es, []string{"tairvector", "elasticsearch"}, ""},
		{ChooseVectors, "elasticsearch", es, []string{"elasticsearch"}, ""},
		{ChooseVectors, "tairvector", es, nil, "--engines tairvector names no engine reached by URL"},
		{ChooseVectors, "faiss", "", nil, `--engines: unknown engine "faiss" (vector engines: tairvector, elasticsearch)`},
	}
	for _, tc := range tests {
		got, err := tc.choose(tc.list, tc.es)
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr, "%q with es %q", tc.list, tc.es)
			continue
		}
		require.NoError(t, err, "%q", tc.list)
		assert.Equal(t, tc.want, got, "%q with es %q", tc.list, tc.es)
	}
}

// TestVectorParams: every vector engine names the parameter it sweeps, as
// its driver does.
func TestVectorParams(t *testing.T) {
	for _, e := range All {
		if e.Vectors != nil {
			assert.NotEmpty(t, e.VectorParam, e.Name)
		}
	}
}
