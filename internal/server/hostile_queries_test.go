package server

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/resp"

	"github.com/tairbench/tairbench/internal/fulltext"
)

// loadWords writes n documents of five random 8-letter words each to the
// TairSearch index key, pipelined: expansion queries over it take long.
func loadWords(t *testing.T, c *goredis.Client, key string, n int) {
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "tft.createindex", key, `{"mappings":{"properties":{"t":{"type":"text"}}}}`).Err())
	word := testenv.Words(1)
	pipe := c.Pipeline()
	for i := range n {
		pipe.Do(ctx, "tft.adddoc", key, fmt.Sprintf(`{"t":"%s %s %s %s %s"}`, word(), word(), word(), word(), word()), "WITH_ID", strconv.Itoa(i))
	}
	_, err := pipe.Exec(ctx)
	require.NoError(t, err)
}

// loadVectors writes n vectors of dims to a new FLAT TairVector index
// key, pipelined: a multi-search of thousands of vectors over it takes
// seconds.
func loadVectors(t *testing.T, c *goredis.Client, key string, dims, n int) {
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "tvs.createindex", key, dims, "FLAT", "L2").Err())
	pipe := c.Pipeline()
	for i := range n {
		pipe.Do(ctx, "tvs.hset", key, strconv.Itoa(i), "VECTOR", fmt.Sprintf("[%d%s]", i%97, strings.Repeat(",2", dims-1)))
	}
	_, err := pipe.Exec(ctx)
	require.NoError(t, err)
}

// wildcards is a bool of 1,000 wildcard clauses, each over the whole
// vocabulary: seconds of work for a few kilobytes.
func wildcards() string {
	clauses := make([]string, 1000)
	for i := range clauses {
		clauses[i] = fmt.Sprintf(`{"wildcard":{"t":"*%c*%c*"}}`, 'a'+i%26, 'a'+(i/26)%26)
	}
	return `{"query":{"bool":{"should":[` + strings.Join(clauses, ",") + `]}}}`
}

// repeated is args, then name n times, then tail.
func repeated(args []any, name string, n int, tail ...any) []any {
	for range n {
		args = append(args, name)
	}
	return append(args, tail...)
}

// TestAmplifyingRequestsAreChargedFirst: requests whose few kilobytes
// ask for gigabytes (an index named 1,000 times, 3,000 query vectors of
// topN 10,000, an index named 5,000 times) are refused before the work,
// naming --max-query-memory and what they would have kept; every long
// query (TFT.SEARCH, both EXPLAINs, TFT.MSEARCH, a TVS multi-search)
// stops when its client leaves; and closing the server (serve's SIGINT)
// ends within a second while a search and a vector multi-search run.
func TestAmplifyingRequestsAreChargedFirst(t *testing.T) {
	s, c := start(t, Config{Search: fulltext.Limits{MaxTime: time.Minute, MaxExpansions: 1 << 30}})
	ctx := context.Background()
	loadWords(t, c, "w", 20000)
	require.NoError(t, c.Do(ctx, "tvs.createindex", "v", 2, "HNSW", "L2").Err())
	require.NoError(t, c.Do(ctx, "tvs.hset", "v", "k1", "VECTOR", "[1,2]").Err())
	for name, args := range map[string][]any{
		"TFT.MSEARCH of 1,000 indexes":         repeated([]any{"tft.msearch", 1000}, "w", 1000, `{"size":20000,"query":{"match_all":{}}}`),
		"TVS.MKNNSEARCH of 3,000 vectors":      repeated([]any{"tvs.mknnsearch", "v", 10000, 3000}, "[1,2]", 3000),
		"TVS.MINDEXKNNSEARCH of 5,000 indexes": repeated([]any{"tvs.mindexknnsearch", 5000}, "v", 5000, 10000, "[1,2]"),
	} {
		err := c.Do(ctx, args...).Err()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "ERR too many hits: ", name)
		assert.Contains(t, err.Error(), "(tairbench serve --max-query-memory)", name)
		assert.Zero(t, s.queries.used.Load(), "%s: nothing stays charged", name)
	}
	require.NoError(t, c.Do(ctx, "tvs.mknnsearch", "v", 10, 2, "[1,2]", "[2,1]").Err(), "a modest one passes")

	// A client that leaves: its query stops (its charge is released), for
	// every long query.
	loadVectors(t, c, "f", 32, 20000)
	many := []string{"tvs.mknnsearch", "f", "10", "20000"}
	for i := range 20000 {
		many = append(many, fmt.Sprintf("[%d%s]", i, strings.Repeat(",1", 31)))
	}
	for _, args := range [][]string{{"tft.search", "w", wildcards()}, {"tft.explainscore", "w", wildcards()},
		{"tft.explaincost", "w", wildcards()}, {"tft.msearch", "2", "w", "w", wildcards()}, many} {
		raw, err := net.Dial("tcp", s.Addr())
		require.NoError(t, err)
		_, err = raw.Write(resp.AppendCommand(nil, args...))
		require.NoError(t, err)
		require.Eventually(t, func() bool { return s.queries.used.Load() > 0 }, 2*time.Second, time.Millisecond, "%s running", args[0])
		require.NoError(t, raw.Close())
		left := time.Now()
		require.Eventually(t, func() bool { return s.queries.used.Load() == 0 }, 5*time.Second, time.Millisecond, args[0])
		assert.Less(t, time.Since(left), 500*time.Millisecond, "%s stopped when its client left", args[0])
	}

	// Closing the server stops the queries running: a search and a
	// multi-search of vectors.
	done := make(chan error, 2)
	c2 := goredis.NewClient(&goredis.Options{Addr: s.Addr(), Protocol: 2, MaxRetries: -1, ReadTimeout: time.Minute})
	defer c2.Close()
	go func() { done <- c2.Do(ctx, "tft.search", "w", wildcards()).Err() }()
	go func() {
		args := make([]any, len(many))
		for i, a := range many {
			args[i] = a
		}
		done <- c2.Do(ctx, args...).Err()
	}()
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("a query ended before Close: %v", err)
	default: // running
	}
	closed := time.Now()
	require.NoError(t, s.Close())
	assert.Less(t, time.Since(closed), time.Second, "Close stops the queries running")
	assert.Error(t, <-done)
	assert.Error(t, <-done)
}
