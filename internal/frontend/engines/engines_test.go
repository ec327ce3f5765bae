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
