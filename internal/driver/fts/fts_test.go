package fts

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTotalHits(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       int64
	}{
		{"elasticsearch", `{"took":1,"_shards":{"total":1,"successful":1},"hits":{"total":{"value":42,"relation":"eq"},"hits":[]}}`, 42},
		{"tairsearch", `{"hits":{"hits":[{"_id":"1","_source":{"total":{"value":9}}}],"max_score":1.0,"total":{"relation":"eq","value":7}}}`, 7},
		{"zero", `{"hits":{"hits":[],"max_score":0.0,"total":{"relation":"eq","value":0}}}`, 0},
		{"none", `{"aggregations":{}}`, -1},
		{"shards only", `{"_shards":{"total":1}}`, -1},
	} {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, TotalHits([]byte(c.body))) })
	}
}

func TestParseHitsReadsIDs(t *testing.T) {
	h, err := ParseHits([]byte(`{"hits":{"hits":[{"_id":"3"},{"_id":"1"}],"total":{"relation":"eq","value":2}}}`))
	require.NoError(t, err)
	assert.Equal(t, Hits{Total: 2, IDs: []string{"3", "1"}}, h)
}

func FuzzTotalHits(f *testing.F) {
	f.Add([]byte(`{"hits":{"total":{"value":42}}}`))
	f.Add([]byte(`"total":{"relation":"eq","value":`))
	f.Fuzz(func(t *testing.T, b []byte) { _ = TotalHits(b) })
}
