package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is the 10-row table two SDK suites share (tairvector.md §4).
var fixture = []struct {
	vec, name string
	age       int
}{
	{"[7,3]", "Aaron", 12}, {"[9,2]", "Bob", 33}, {"[6,6]", "Charlie", 29}, {"[3,5]", "Daniel", 23},
	{"[3,7]", "Eason", 22}, {"[3,6]", "Fabian", 35}, {"[5,2]", "George", 12}, {"[8,9]", "Henry", 30},
	{"[5,5]", "Ivan", 16}, {"[2,7]", "James", 12},
}

func loadFixture(t *testing.T, c *goredis.Client, algo string) {
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "TVS.CREATEINDEX", "fx", 2, algo, "L2").Err())
	for i, r := range fixture {
		n, err := c.Do(ctx, "TVS.HSET", "fx", strconv.Itoa(i), "VECTOR", r.vec, "name", r.name, "age", r.age).Int64()
		require.NoError(t, err)
		require.Equal(t, int64(3), n)
	}
}

// keysOf returns the keys of a flat [key, dist, ...] reply.
func keysOf(t *testing.T, v any) []string {
	arr := v.([]any)
	var out []string
	for i := 0; i < len(arr); i += 2 {
		out = append(out, arr[i].(string))
	}
	return out
}

func scanKeys(t *testing.T, c *goredis.Client, args ...any) []string {
	v, err := c.Do(context.Background(), append([]any{"TVS.SCAN", "fx", 0, "COUNT", 100}, args...)...).Slice()
	require.NoError(t, err)
	assert.Equal(t, "0", v[0])
	var out []string
	for _, k := range v[1].([]any) {
		out = append(out, k.(string))
	}
	sort.Strings(out)
	return out
}

func TestVectorFixture(t *testing.T) {
	for _, algo := range []string{"HNSW", "FLAT"} {
		t.Run(algo, func(t *testing.T) {
			_, c := start(t, Config{})
			ctx := context.Background()
			loadFixture(t, c, algo)
			knn := func(args ...any) []string {
				v, err := c.Do(ctx, append([]any{"TVS.KNNSEARCH", "fx", 5, "[0,0]"}, args...)...).Result()
				require.NoError(t, err)
				return keysOf(t, v)
			}
			assert.Equal(t, []string{"6", "3", "5", "8", "9"}, knn())
			assert.Equal(t, []string{"6", "3", "5", "8"}, knn("MAX_DIST", 50)) // inclusive
			assert.Equal(t, []string{"6", "8", "9", "0"}, knn("age<20"))
			assert.Equal(t, []string{"6", "8"}, knn("age<20", "MAX_DIST", 50))
			assert.Equal(t, []string{"6", "3", "5", "8", "9"}, knn("", "ef_search", 10)) // JAVA's empty filter
			v, err := c.Do(ctx, "TVS.KNNSEARCH", "fx", 2, "[0,0]").Result()
			require.NoError(t, err)
			assert.Equal(t, []any{"6", "29", "3", "34"}, v)

			m, err := c.Do(ctx, "TVS.MKNNSEARCH", "fx", 5, 2, "[0,0]", "[0,0]", "age<20").Slice()
			require.NoError(t, err)
			require.Len(t, m, 2)
			assert.Equal(t, []string{"6", "8", "9", "0"}, keysOf(t, m[1]))
			mi, err := c.Do(ctx, "TVS.MINDEXKNNSEARCH", 1, "fx", 5, "[0,0]", "age<20", "MAX_DIST", 50).Result()
			require.NoError(t, err)
			assert.Equal(t, []string{"6", "8"}, keysOf(t, mi))
			mm, err := c.Do(ctx, "TVS.MINDEXMKNNSEARCH", 1, "fx", 5, 1, "[0,0]").Slice()
			require.NoError(t, err)
			assert.Equal(t, []string{"6", "3", "5", "8", "9"}, keysOf(t, mm[0]))

			all := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
			assert.Equal(t, all, scanKeys(t, c, "MATCH", "*"))
			assert.Empty(t, scanKeys(t, c, "MATCH", "a*"))
			assert.Equal(t, []string{"1", "5"}, scanKeys(t, c, "FILTER", "age>30"))
			assert.Equal(t, []string{"7", "8", "9"}, scanKeys(t, c, "FILTER", `name>"H"`))
			assert.Equal(t, []string{"7"}, scanKeys(t, c, "FILTER", `name=="Henry"`))
			assert.Equal(t, []string{"3", "5", "6"}, scanKeys(t, c, "VECTOR", "[0,0]", "MAX_DIST", 50)) // strict
			assert.Equal(t, []string{"3", "6"}, scanKeys(t, c, "MAX_DIST", 50, "FILTER", "age<30", "VECTOR", "[0,0]"))

			gd := func(args ...any) []string {
				v, err := c.Do(ctx, append([]any{"TVS.GETDISTANCE", "fx", "[0,0]", 10, "0", "1", "2", "3", "4", "5", "6",
					"7", "8", "9"}, args...)...).Result()
				require.NoError(t, err)
				return keysOf(t, v)
			}
			assert.Equal(t, all, gd())
			assert.Equal(t, []string{"6", "3", "5", "8", "9"}, gd("TOPN", 5))
			assert.Equal(t, []string{"7", "8", "9"}, gd("FILTER", `name>"H"`))
			assert.Equal(t, []string{"6", "3", "5"}, gd("MAX_DIST", 50, "TOPN", 5)) // strict
			v, err = c.Do(ctx, "TVS.GETDISTANCE", "fx", "[0,0]", 3, "0", "nope", "1").Result()
			require.NoError(t, err)
			assert.Equal(t, []any{"0", "58", "1", "85"}, v)
		})
	}
}

// TestVectorReplies checks the reply shapes and texts the SDKs parse.
func TestVectorReplies(t *testing.T) {
	_, c := start(t, Config{})
	runSteps(t, c, []step{
		{[]any{"tvs.createindex", "i", 2, "HNSW", "L2", "data_type", "FLOAT16", "ef_construct", 200, "M", 32, "auto_gc", 1}, "OK", false},
		{[]any{"TVS.CREATEINDEX", "i", 2, "HNSW", "L2"}, "ERR duplicated index key", true},
		{[]any{"TVS.CREATEINDEX", "b", 8, "HNSW", "L2", "data_type", "BINARY"}, "ERR index parameters invalid", true},
		{[]any{"TVS.CREATEINDEX", "b", 8, "HNSW", "HAMMING"}, "ERR index parameters invalid", true},
		{[]any{"TVS.CREATEINDEX", "b", 0, "HNSW", "L2"}, "ERR index parameters invalid", true},
		{[]any{"TVS.CREATEINDEX", "b", 8, "HNSW", "L2", "M", 101}, "ERR index parameters invalid", true},
		{[]any{"TVS.CREATEINDEX", "b", 8, "HNSW", "L2", "lexical_algorithm", "bm25"}, "not supported", true},
		{[]any{"TVS.CREATEINDEX", "j", 8, "HNSW", "JACCARD", "data_type", "BINARY", "ef_construct", 100, "M", 16}, "OK", false},
		{[]any{"TVS.HSET", "j", "a", "VECTOR", "[1,1,0,0,1,0,1,0]", "name", "x"}, int64(2), false},
		{[]any{"TVS.HSET", "j", "b", "VECTOR", "[1,2,0,0,1,0,1,0]"}, "BINARY", true},
		{[]any{"TVS.GETINDEX", "missing"}, []any{}, false},
		{[]any{"TVS.HSET", "i", "k", "VECTOR", "[1,2,3]"}, "ERR Illegal vector dimensions", true},
		{[]any{"TVS.HSET", "i", "k", "VECTOR", "[1,x]"}, "ERR invalid vector", true},
		{[]any{"TVS.HSET", "nope", "k", "VECTOR", "[1,2]"}, "ERR index not exists", true},
		{[]any{"TVS.KNNSEARCH", "i", 2, "[1,2]", "age <"}, "ERR invalid filter", true},
		{[]any{"TVS.KNNSEARCH", "i", 2, "[1,2]", "TEXT", "hi"}, "not supported", true},
		{[]any{"TVS.KNNSEARCH", "nope", 2, "[1,2]"}, []any{}, false},
		{[]any{"TVS.HSET", "i", "k", "VECTOR", "[1,2]", "name", "x", "age", 3}, int64(3), false},
		{[]any{"TVS.HSET", "i", "k", "VECTOR", "[1,3]", "name", "y"}, int64(0), false},
		{[]any{"TVS.HGETALL", "i", "k"}, []any{"VECTOR", "[1,3]", "name", "y", "age", "3"}, false},
		{[]any{"TVS.HMGET", "i", "k", "VECTOR", "age", "zz"}, []any{"[1,3]", "3", nil}, false},
		{[]any{"TVS.HDEL", "i", "k", "VECTOR"}, int64(1), false},
		{[]any{"TVS.HGETALL", "i", "k"}, []any{"name", "y", "age", "3"}, false},
		{[]any{"TVS.HINCRBY", "i", "n", "f", 2}, int64(2), false},
		{[]any{"TVS.HINCRBY", "i", "n", "f", 2}, int64(4), false},
		{[]any{"TVS.HINCRBYFLOAT", "i", "n", "g", "1.5"}, "1.5", false},
		{[]any{"TVS.HINCRBYFLOAT", "i", "n", "g", "1.5"}, "3", false},
		{[]any{"TVS.HINCRBY", "i", "k", "name", 1}, "ERR hash value is not an integer", true},
		{[]any{"TVS.DEL", "i", "k", "n", "zz"}, int64(2), false},
		{[]any{"TVS.DEL", "nope", "k"}, int64(0), false},
		{[]any{"TVS.HDEL", "nope", "k", "x"}, int64(0), false},
		{[]any{"TVS.DELINDEX", "j"}, int64(1), false},
		{[]any{"TVS.DELINDEX", "j"}, int64(0), false},
		{[]any{"type", "i"}, "tairvector", false},
	})
	ctx := context.Background()
	g, err := c.Do(ctx, "TVS.GETINDEX", "i").Slice()
	require.NoError(t, err)
	require.Len(t, g, 24)
	m := map[string]any{}
	for i := 0; i < len(g); i += 2 {
		m[g[i].(string)] = g[i+1]
	}
	for k, want := range map[string]string{"algorithm": "HNSW", "distance_method": "L2", "data_type": "FLOAT16",
		"dimension": "2", "ef_construct": "200", "M": "32", "auto_gc": "1", "data_count": "0", "current_record_count": "0"} {
		assert.Equal(t, want, m[k], k)
	}
	assert.Equal(t, "auto_gc", g[0])
	g2, _ := c.Do(ctx, "TVS.GETINDEX", "i").Slice()
	assert.Equal(t, g, g2)

	// Distances print as Tair prints them: float32, widened, %.17g.
	require.NoError(t, c.Do(ctx, "TVS.CREATEINDEX", "d", 2, "FLAT", "L2").Err())
	require.NoError(t, c.Do(ctx, "TVS.HSET", "d", "a", "VECTOR", "[3,4]").Err())
	require.NoError(t, c.Do(ctx, "TVS.HSET", "d", "b", "VECTOR", "[5,6]").Err())
	v, err := c.Do(ctx, "TVS.KNNSEARCH", "d", 2, "[3,3.1]").Result()
	require.NoError(t, err)
	assert.Equal(t, []any{"a", "0.81000018119812012", "b", "12.410000801086426"}, v)
	// Input with spaces comes back in shortest float32 form.
	require.NoError(t, c.Do(ctx, "TVS.CREATEINDEX", "ip", 8, "HNSW", "IP").Err())
	require.NoError(t, c.Do(ctx, "TVS.HSET", "ip", "first", "VECTOR", "[0.12, 0.23, 0.56, 0.67, 0.78, 0.89, 0.01, 0.89]", "name", "sammy").Err())
	assert.Equal(t, []any{"[0.12,0.23,0.56,0.67,0.78,0.89,0.01,0.89]"}, c.Do(ctx, "TVS.HMGET", "ip", "first", "VECTOR").Val())
	f, err := c.Do(ctx, "TVS.KNNSEARCHFIELD", "ip", 2, "[0.12,0.23,0.56,0.67,0.78,0.89,0.01,0.89]", 1, "name").Slice()
	require.NoError(t, err)
	require.Len(t, f, 1)
	assert.Len(t, f[0], 4)
	assert.Equal(t, "sammy", f[0].([]any)[3])
	mf, err := c.Do(ctx, "TVS.MINDEXKNNSEARCHFIELD", 1, "ip", 2, "[0.12,0.23,0.56,0.67,0.78,0.89,0.01,0.89]", 0).Slice()
	require.NoError(t, err)
	assert.Len(t, mf[0], 7) // key, dist, index, VECTOR, v, name, sammy

	sc, err := c.Do(ctx, "TVS.SCANINDEX", 0, "COUNT", 10, "MATCH", "i*").Slice()
	require.NoError(t, err)
	assert.Equal(t, []any{"0", []any{"i", "ip"}}, sc)
	require.NoError(t, c.Do(ctx, "FLUSHDB").Err())
	sc, _ = c.Do(ctx, "TVS.SCANINDEX", 0).Slice()
	assert.Equal(t, []any{"0", []any{}}, sc)
}

func TestVectorMultiIndexMerge(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	for _, ix := range []string{"index1", "index2"} {
		require.NoError(t, c.Do(ctx, "TVS.CREATEINDEX", ix, 8, "HNSW", "L2").Err())
	}
	one := func(x int) string { return fmt.Sprintf("[%d,1,1,1,1,1,1,1]", x) }
	require.NoError(t, c.Do(ctx, "TVS.HSET", "index1", "k1", "VECTOR", one(1)).Err())
	require.NoError(t, c.Do(ctx, "TVS.HSET", "index1", "k2", "VECTOR", one(3)).Err())
	require.NoError(t, c.Do(ctx, "TVS.HSET", "index2", "k1", "VECTOR", one(2)).Err())
	require.NoError(t, c.Do(ctx, "TVS.HSET", "index2", "k2", "VECTOR", one(4)).Err())
	v, err := c.Do(ctx, "TVS.MINDEXKNNSEARCH", 2, "index1", "index2", 2, "[0,0,0,0,0,0,0,0]").Result()
	require.NoError(t, err)
	assert.Equal(t, []any{"k1", "8", "k1", "11"}, v)
}

func TestVectorExpiry(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "TVS.CREATEINDEX", "e", 2, "FLAT", "L2").Err())
	for _, k := range []string{"a", "b", "c", "d"} {
		require.NoError(t, c.Do(ctx, "TVS.HSET", "e", k, "VECTOR", "[1,1]").Err())
	}
	assert.Equal(t, int64(-1), c.Do(ctx, "TVS.HTTL", "e", "a").Val())
	assert.Equal(t, int64(-2), c.Do(ctx, "TVS.HTTL", "e", "zz").Val())
	assert.Equal(t, int64(1), c.Do(ctx, "TVS.HEXPIRE", "e", "a", 100).Val())
	ttl := c.Do(ctx, "TVS.HTTL", "e", "a").Val().(int64)
	assert.True(t, ttl > 0 && ttl <= 100, "%d", ttl)
	assert.Equal(t, int64(1), c.Do(ctx, "TVS.HPEXPIRE", "e", "b", 100).Val())
	pttl := c.Do(ctx, "TVS.HPTTL", "e", "b").Val().(int64)
	assert.True(t, pttl > 0 && pttl <= 100, "%d", pttl)
	at := time.Now().Unix() + 1000
	assert.Equal(t, int64(1), c.Do(ctx, "TVS.HEXPIREAT", "e", "c", at).Val())
	assert.Equal(t, at, c.Do(ctx, "TVS.HEXPIRETIME", "e", "c").Val())
	assert.Equal(t, int64(1), c.Do(ctx, "TVS.HPEXPIREAT", "e", "d", at*1000+7).Val())
	assert.Equal(t, at*1000+7, c.Do(ctx, "TVS.HPEXPIRETIME", "e", "d").Val())
	assert.Equal(t, int64(0), c.Do(ctx, "TVS.HEXPIRE", "e", "zz", 1).Val())
	time.Sleep(300 * time.Millisecond)
	assert.Equal(t, []any{}, c.Do(ctx, "TVS.HGETALL", "e", "b").Val())
	assert.Equal(t, int64(-2), c.Do(ctx, "TVS.HPTTL", "e", "b").Val())
	v, _ := c.Do(ctx, "TVS.KNNSEARCH", "e", 10, "[1,1]").Slice()
	assert.Len(t, v, 6)                                                      // b expired: a, c, d
	assert.Equal(t, int64(1), c.Do(ctx, "TVS.HEXPIREAT", "e", "a", 1).Val()) // the past: gone at once
	assert.Equal(t, int64(-2), c.Do(ctx, "TVS.HTTL", "e", "a").Val())
}

// TestVectorHNSWOverwriteAndDelete: replaced and deleted vectors never
// come back, and many of them trigger a compaction that keeps the rest.
func TestVectorHNSWOverwriteAndDelete(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "TVS.CREATEINDEX", "h", 4, "HNSW", "L2", "M", 8, "ef_construct", 50).Err())
	r := rand.New(rand.NewPCG(1, 2))
	vec := func() string {
		return fmt.Sprintf("[%g,%g,%g,%g]", r.Float32(), r.Float32(), r.Float32(), r.Float32())
	}
	pipe := c.Pipeline()
	for i := 0; i < 3000; i++ {
		pipe.Do(ctx, "TVS.HSET", "h", strconv.Itoa(i%1000), "VECTOR", vec())
	}
	_, err := pipe.Exec(ctx)
	require.NoError(t, err)
	g, _ := c.Do(ctx, "TVS.GETINDEX", "h").Slice()
	m := map[string]any{}
	for i := 0; i < len(g); i += 2 {
		m[g[i].(string)] = g[i+1]
	}
	assert.Equal(t, "1000", m["data_count"])
	assert.Equal(t, "1000", m["current_record_count"])
	require.NoError(t, c.Do(ctx, "TVS.HSET", "h", "far", "VECTOR", "[9,9,9,9]").Err())
	v, _ := c.Do(ctx, "TVS.KNNSEARCH", "h", 1, "[9,9,9,9]").Slice()
	assert.Equal(t, []any{"far", "0"}, v)
	require.Equal(t, int64(1), c.Do(ctx, "TVS.DEL", "h", "far").Val())
	v, _ = c.Do(ctx, "TVS.KNNSEARCH", "h", 1000, "[9,9,9,9]", "ef_search", 1000).Slice()
	assert.Len(t, v, 2000)
	assert.NotContains(t, keysOf(t, v), "far")
}

// TestVectorConcurrentSearchesAndWrites: searches share the read lock and
// pooled scratch space while writes come in; the race detector watches.
func TestVectorConcurrentSearchesAndWrites(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "TVS.CREATEINDEX", "cc", 4, "HNSW", "L2", "M", 8).Err())
	for i := 0; i < 300; i++ {
		require.NoError(t, c.Do(ctx, "TVS.HSET", "cc", strconv.Itoa(i), "VECTOR", fmt.Sprintf("[%d,1,2,3]", i)).Err())
	}
	done := make(chan error, 8)
	for w := 0; w < 8; w++ {
		go func(w int) {
			for i := 0; i < 50; i++ {
				if w%4 == 0 {
					if err := c.Do(ctx, "TVS.HSET", "cc", strconv.Itoa(300+w*50+i), "VECTOR", fmt.Sprintf("[%d,0,0,0]", i)).Err(); err != nil {
						done <- err
						return
					}
					continue
				}
				v, err := c.Do(ctx, "TVS.KNNSEARCH", "cc", 5, fmt.Sprintf("[%d,1,2,3]", i), "ef_search", 50).Slice()
				if err == nil && len(v) != 10 {
					err = fmt.Errorf("%d elements", len(v))
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}(w)
	}
	for w := 0; w < 8; w++ {
		require.NoError(t, <-done)
	}
}
