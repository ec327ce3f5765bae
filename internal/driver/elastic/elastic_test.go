package elastic

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/vectors"

	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/testenv"
)

// TestCheckNamesARedisPort: --es pointed at a redis-server is named as
// not HTTP at once, not reported as a bare EOF or after a wait.
func TestCheckNamesARedisPort(t *testing.T) {
	r := testenv.StartRedis(t)
	e, err := New(fts.Options{Target: endpoint.Target{Addr: "http://" + r.Addr, Timeout: 2 * time.Second}, Index: "x"})
	require.NoError(t, err)
	start := time.Now()
	err = e.Check(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "elasticsearch at http://"+r.Addr+" cannot be used: ")
	assert.Contains(t, err.Error(), "a Redis port?")
	assert.Less(t, time.Since(start), 2*time.Second, "named before --timeout")
}

// TestParseInfo: GET /'s reply (or _nodes/_local's) names the product,
// version and build (a short hash); OpenSearch names its distribution; a
// reply without a version is refused, quoting it.
func TestParseInfo(t *testing.T) {
	for _, tc := range []struct {
		body, name, version, build, err string
	}{
		{`{"name":"n","version":{"number":"8.19.21","build_flavor":"default","build_hash":"0123456789abcdef0123"},"tagline":"You Know, for Search"}`,
			"elasticsearch", "8.19.21", "0123456789ab", ""},
		{`{"version":{"distribution":"opensearch","number":"2.11.0","build_hash":"abc"}}`, "opensearch", "2.11.0", "abc", ""},
		{`{"error":"no"}`, "", "", "", `GET / gave no version: "{\"error\":\"no\"}"`},
		{`not json`, "", "", "", `GET / gave no version: "not json"`},
		{`{"nodes":{"OwJ":{"version":"8.19.21","build_hash":"4fe44c255c3d0da06779b921e132cdc555ed9aff"}}}`,
			"elasticsearch", "8.19.21", "4fe44c255c3d", ""},
		{`{"nodes":{}}`, "", "", "", `_nodes/_local gave no version: "{\"nodes\":{}}"`},
	} {
		parse := parseInfo
		if strings.Contains(tc.body, `"nodes"`) {
			parse = parseNodes
		}
		id, err := parse([]byte(tc.body))
		if tc.err != "" {
			assert.EqualError(t, err, tc.err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.name, id.Name)
		assert.Equal(t, tc.version, id.Version)
		assert.Equal(t, tc.build, id.Build)
	}
}

func TestEncodeVectors(t *testing.T) {
	v := &esVectors{}
	assert.Equal(t, `{"knn":{"field":"vec","query_vector":[1,2.5],"k":10,"num_candidates":10},"size":10,"_source":false}`,
		string(v.EncodeSearch(nil, []float32{1, 2.5}, 10, 0, vectors.Filter{})))
	assert.Equal(t, `{"knn":{"field":"vec","query_vector":[1,2],"k":5,"num_candidates":40,"filter":{"range":{"attr":{"lt":1000}}}},"size":5,"_source":false}`,
		string(v.EncodeSearch(nil, []float32{1, 2}, 5, 40, vectors.Filter{Field: "attr", Below: 1000})))
	assert.Equal(t, "{\"index\":{\"_id\":\"3\"}}\n{\"vec\":[1,2]}\n", string(v.EncodeInsert(nil, 3, []float32{1, 2}, 2, "", nil)))
	assert.Equal(t, "{\"index\":{\"_id\":\"3\"}}\n{\"vec\":[1,2],\"attr\":42}\n{\"index\":{\"_id\":\"4\"}}\n{\"vec\":[3,4],\"attr\":0}\n",
		string(v.EncodeInsert(nil, 3, []float32{1, 2, 3, 4}, 2, "attr", []int32{42, 0})))
}
