package server

import (
	"context"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func start(t testing.TB, cfg Config) (*Server, *goredis.Client) {
	t.Helper()
	s, err := Start(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr(), Password: cfg.Password, Protocol: 2, MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	return s, c
}

// step is one command and its expected reply; nil means a nil reply, an
// "ERR…" or "WRONGTYPE…" string with isErr means an error containing it.
type step struct {
	cmd   []any
	want  any
	isErr bool
}

func ints(v ...int64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

func runSteps(t *testing.T, c *goredis.Client, steps []step) {
	t.Helper()
	ctx := context.Background()
	for _, s := range steps {
		got, err := c.Do(ctx, s.cmd...).Result()
		if s.isErr {
			require.Error(t, err, "%v", s.cmd)
			assert.Contains(t, err.Error(), s.want.(string), "%v", s.cmd)
			continue
		}
		if s.want == nil {
			assert.ErrorIs(t, err, goredis.Nil, "%v", s.cmd)
			continue
		}
		require.NoError(t, err, "%v", s.cmd)
		assert.Equal(t, s.want, got, "%v", s.cmd)
	}
}

const statRun19 = "cardinality: 9\r\nnumber of containers: 1\r\nmax value: 9\r\nmin value: 1\r\nsum value: 45\r\n" +
	"number of array containers: 0\r\n\tarray container values: 0\r\n\tarray container bytes: 0\r\n" +
	"number of bitset containers: 0\r\n\tbitset container values: 0\r\n\tbitset container bytes: 0\r\n" +
	"number of run containers: 1\r\n\trun container values: 9\r\n\trun container bytes: 6\r\n"

// TestRoaringSpecExamples replays the examples of the spec (tair-api.md §2.3).
func TestRoaringSpecExamples(t *testing.T) {
	tests := map[string][]step{
		"setbit": {
			{[]any{"tr.setbit", "foo", 10, 1}, int64(0), false},
			{[]any{"tr.setbit", "foo", 30, 1}, int64(0), false},
			{[]any{"tr.setbit", "foo", 30, 0}, int64(1), false},
			{[]any{"TR.SETBIT", "e", 0, 0}, int64(0), false},
			{[]any{"tr.min", "e"}, int64(-1), false},
			{[]any{"exists", "e"}, int64(1), false},
		},
		"setbits and clearbits": {
			{[]any{"tr.setbits", "k", 1, 3, 5, 7, 9}, int64(5), false},
			{[]any{"tr.setbits", "k", 5, 7, 9, 11, 13}, int64(7), false},
			{[]any{"tr.clearbits", "k", 5, 6, 7, 8, 9}, int64(3), false},
			{[]any{"tr.clearbits", "missing", 1}, int64(0), false},
		},
		"getbit and getbits": {
			{[]any{"tr.setbits", "k", 1, 3, 11, 13}, int64(4), false},
			{[]any{"tr.getbit", "k", 3}, int64(1), false},
			{[]any{"tr.getbit", "k", 4}, int64(0), false},
			{[]any{"tr.getbits", "k", 1, 2, 3, 4, 5}, ints(1, 0, 1, 0, 0), false},
			{[]any{"tr.getbits", "missing", 1, 2}, []any{}, false},
			{[]any{"tr.setbits", "k2", 2, 3}, int64(2), false},
			{[]any{"tr.getbits", "k2", 1, 1, 2, 3, 3}, ints(0, 0, 1, 1, 1), false},
		},
		"setrange and fliprange": {
			{[]any{"tr.setrange", "r", 1, 10}, int64(10), false},
			{[]any{"tr.setrange", "r3", 1, 3}, int64(3), false},
			{[]any{"tr.getbits", "r3", 0, 1, 2, 3}, ints(0, 1, 1, 1), false},
			{[]any{"tr.setbits", "f", 0, 2, 3, 5}, int64(4), false},
			{[]any{"tr.fliprange", "f", 0, 5}, int64(2), false},
			{[]any{"tr.range", "f", 0, 10}, ints(1, 4), false},
		},
		"appendbitarray": {
			{[]any{"tr.appendbitarray", "a", 0, "101010101"}, int64(5), false},
			{[]any{"tr.range", "a", 0, 20}, ints(1, 3, 5, 7, 9), false},
			{[]any{"tr.appendbitarray", "b", -1, "101010101"}, int64(5), false},
			{[]any{"tr.range", "b", 0, 20}, ints(0, 2, 4, 6, 8), false},
			{[]any{"tr.setbits", "c", 1, 5, 7, 9}, int64(4), false},
			{[]any{"tr.appendbitarray", "c", 3, "1010101"}, int64(5), false},
			{[]any{"tr.range", "c", 0, 20}, ints(1, 4, 6, 8, 10), false},
			{[]any{"tr.setrange", "d", 0, 5}, int64(6), false},
			{[]any{"tr.appendbitarray", "d", 1, "1101"}, int64(5), false},
			{[]any{"tr.range", "d", 0, 20}, ints(0, 1, 2, 3, 5), false},
		},
		"int and bit arrays": {
			{[]any{"tr.setbit", "i", 0, 1}, int64(0), false},
			{[]any{"tr.appendintarray", "i", 7, 8}, "OK", false},
			{[]any{"tr.range", "i", 0, 10}, ints(0, 7, 8), false},
			{[]any{"tr.setintarray", "i", 2, 4, 5, 6}, "OK", false},
			{[]any{"tr.range", "i", 0, 10}, ints(2, 4, 5, 6), false},
			{[]any{"tr.setbitarray", "s", "10101001"}, "OK", false},
			{[]any{"tr.range", "s", 0, 10}, ints(0, 2, 4, 7), false},
		},
		"range and rangebitarray": {
			{[]any{"tr.setbits", "k", 1, 3, 5, 7, 9}, int64(5), false},
			{[]any{"tr.range", "k", 1, 5}, ints(1, 3, 5), false},
			{[]any{"tr.range", "k", 0, 4}, ints(1, 3), false},
			{[]any{"tr.range", "missing", 0, 4}, []any{}, false},
			{[]any{"tr.setbits", "z", 0, 2, 3, 5}, int64(4), false},
			{[]any{"tr.rangebitarray", "z", 0, 5}, "101101", false},
			{[]any{"tr.setbits", "y", 1, 4, 6, 8, 10}, int64(5), false},
			{[]any{"tr.rangebitarray", "y", 0, 10}, "01001010101", false},
		},
		"bitcount bitpos rank min max": {
			{[]any{"tr.setrange", "n", 1, 9}, int64(9), false},
			{[]any{"tr.bitcount", "n"}, int64(9), false},
			{[]any{"tr.bitcount", "n", 0, 5}, int64(5), false},
			{[]any{"tr.bitcount", "n", 9, 20}, int64(1), false},
			{[]any{"tr.bitcount", "missing"}, int64(0), false},
			{[]any{"tr.bitpos", "n", 1}, int64(1), false},
			{[]any{"tr.bitpos", "n", 0}, int64(0), false},
			{[]any{"tr.bitpos", "n", 1, 2}, int64(2), false},
			{[]any{"tr.bitpos", "n", 1, -4}, int64(6), false},
			{[]any{"tr.bitpos", "n", 0, 1}, int64(0), false},
			{[]any{"tr.bitpos", "missing", 1, 1}, int64(-1), false},
			{[]any{"tr.setbits", "q", 1, 2, 3, 10}, int64(4), false},
			{[]any{"tr.bitcount", "q", 2, 3}, int64(2), false},
			{[]any{"tr.bitpos", "q", 1, 2}, int64(2), false},
			{[]any{"tr.rank", "q", 10}, int64(4), false},
			{[]any{"tr.rank", "missing", 10}, int64(-1), false},
			{[]any{"tr.setbits", "mm", 10, 20}, int64(2), false},
			{[]any{"tr.min", "mm"}, int64(10), false},
			{[]any{"tr.max", "mm"}, int64(20), false},
			{[]any{"tr.max", "missing"}, int64(-1), false},
		},
		"scan": {
			{[]any{"tr.setbits", "k", 1, 3, 5, 7, 9}, int64(5), false},
			{[]any{"tr.scan", "k", 0}, []any{int64(0), ints(1, 3, 5, 7, 9)}, false},
			{[]any{"tr.scan", "k", 4, "COUNT", 2}, []any{int64(9), ints(5, 7)}, false},
			{[]any{"tr.scan", "missing", 0}, []any{int64(0), []any{}}, false},
			{[]any{"tr.setbits", "p", 1, 2, 3, 10}, int64(4), false},
			{[]any{"tr.scan", "p", 0, "count", 2}, []any{int64(3), ints(1, 2)}, false},
		},
		"bitop and bitopcard": {
			{[]any{"tr.setbits", "a", 0, 2, 3, 5}, int64(4), false},
			{[]any{"tr.setbits", "b", 2, 3}, int64(2), false},
			{[]any{"tr.setbits", "c", 1, 4}, int64(2), false},
			{[]any{"tr.bitop", "d", "AND", "a", "b"}, int64(2), false},
			{[]any{"tr.bitop", "d", "OR", "a", "c"}, int64(6), false},
			{[]any{"tr.bitop", "d", "XOR", "a", "c"}, int64(6), false},
			{[]any{"tr.bitop", "d", "DIFF", "a", "c"}, int64(4), false},
			{[]any{"tr.range", "d", 0, 10}, ints(0, 2, 3, 5), false},
			{[]any{"tr.bitop", "d", "NOT", "a"}, int64(2), false},
			{[]any{"tr.range", "d", 0, 10}, ints(1, 4), false},
			{[]any{"tr.bitopcard", "AND", "a", "b"}, int64(2), false},
			{[]any{"tr.bitopcard", "OR", "a", "c"}, int64(6), false},
			{[]any{"tr.bitopcard", "XOR", "a", "c"}, int64(6), false},
			{[]any{"tr.bitopcard", "NOT", "a"}, int64(2), false},
			{[]any{"tr.bitopcard", "DIFF", "a", "c"}, int64(4), false},
			{[]any{"tr.bitop", "d", "NAND", "a", "c"}, "ERR syntax error", true},
			{[]any{"tr.bitop", "d", "NOT", "a", "c"}, "single source key", true},
		},
		"diff jaccard contains": {
			{[]any{"tr.setbits", "odd", 1, 3, 5, 7, 9}, int64(5), false},
			{[]any{"tr.setrange", "all", 1, 10}, int64(10), false},
			{[]any{"tr.setbits", "even", 2, 4, 6, 8, 10}, int64(5), false},
			{[]any{"tr.diff", "d", "all", "odd"}, "OK", false},
			{[]any{"tr.range", "d", 0, 20}, ints(2, 4, 6, 8, 10), false},
			{[]any{"tr.jaccard", "odd", "all"}, "0.5", false},
			{[]any{"tr.jaccard", "odd", "odd"}, "1", false},
			{[]any{"tr.contains", "odd", "all"}, int64(1), false},
			{[]any{"tr.contains", "odd", "even"}, int64(0), false},
			{[]any{"tr.bitop", "oe", "OR", "odd", "even"}, int64(10), false},
			{[]any{"tr.bitopcard", "AND", "odd", "even"}, int64(0), false},
		},
		"optimize stat loadstring": {
			{[]any{"tr.setrange", "n", 1, 9}, int64(9), false},
			{[]any{"tr.optimize", "n"}, "OK", false},
			{[]any{"tr.stat", "n"}, statRun19, false},
			{[]any{"tr.optimize", "missing"}, nil, false},
			{[]any{"tr.stat", "missing"}, nil, false},
			{[]any{"set", "strkey", "101010101"}, "OK", false},
			{[]any{"tr.loadstring", "ls", "strkey"}, int64(5), false},
			{[]any{"tr.range", "ls", 0, 10}, ints(0, 2, 4, 6, 8), false},
		},
		"errors": {
			{[]any{"tr.setbit", "k", -1, 1}, "bit offset is not an integer", true},
			{[]any{"tr.setbit", "k", 4294967296, 1}, "bit offset is not an integer", true},
			{[]any{"tr.setbit", "k", "bar-1", 1}, "bit offset is not an integer", true},
			{[]any{"tr.setbit", "k", 1, 2}, "bit is not an integer", true},
			{[]any{"tr.setbit", "k", 1}, "wrong number of arguments for 'tr.setbit' command", true},
			{[]any{"tr.getbit", "k"}, "wrong number of arguments", true},
			{[]any{"tr.range", "k", 5, 1}, "greater than end", true},
			{[]any{"tr.appendbitarray", "k", -2, "1"}, "bit offset", true},
			{[]any{"tr.appendbitarray", "k", 0, "12"}, "only '0' and '1'", true},
			{[]any{"tr.setbit", "k", 4294967295, 1}, int64(0), false},
			{[]any{"set", "str", "v"}, "OK", false},
			{[]any{"tr.setbit", "str", 1, 1}, "WRONGTYPE", true},
			{[]any{"tr.getbits", "str", 1}, "WRONGTYPE", true},
			{[]any{"tr.bitop", "d", "AND", "k", "str"}, "WRONGTYPE", true},
			{[]any{"get", "k"}, "WRONGTYPE", true},
			{[]any{"type", "k"}, "tairroaring", false},
			{[]any{"tr.nosuch", "k"}, "unknown command 'tr.nosuch'", true},
		},
	}
	for name, steps := range tests {
		t.Run(name, func(t *testing.T) {
			_, c := start(t, Config{})
			runSteps(t, c, steps)
		})
	}
}

func TestStatJSONAndContainerTypes(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	// 5000 values in one chunk become a bitset container; 10 values an array.
	args := []any{"tr.setbits", "k"}
	for i := 0; i < 5000; i++ {
		args = append(args, i*2)
	}
	for i := 0; i < 10; i++ {
		args = append(args, 1<<20+i*7)
	}
	require.NoError(t, c.Do(ctx, args...).Err())
	js, err := c.Do(ctx, "tr.stat", "k", "JSON").Text()
	require.NoError(t, err)
	assert.JSONEq(t, `{"cardinality":5010,"number_of_containers":2,"max_value":1048639,"min_value":0,"sum_value":35481075,
		"array_container":{"containers":1,"values":10,"bytes":20},
		"bitset_container":{"containers":1,"values":5000,"bytes":8192},
		"run_container":{"containers":0,"values":0,"bytes":0}}`, js)
}

func TestAuth(t *testing.T) {
	s, _ := start(t, Config{Password: "pw"})
	ctx := context.Background()
	anon := goredis.NewClient(&goredis.Options{Addr: s.Addr(), Protocol: 2, MaxRetries: -1})
	defer anon.Close()
	err := anon.Do(ctx, "tr.getbit", "k", 1).Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "NOAUTH")
	steps := []step{
		{[]any{"auth", "bad"}, "WRONGPASS", true},
		{[]any{"auth", "default:pw"}, "OK", false},
		{[]any{"auth", "default", "pw"}, "OK", false},
		{[]any{"auth", "pw"}, "OK", false},
	}
	runSteps(t, anon, steps)
	resp3 := goredis.NewClient(&goredis.Options{Addr: s.Addr(), Password: "pw", Protocol: 3})
	defer resp3.Close()
	require.NoError(t, resp3.Set(ctx, "a", "b", 0).Err())
	assert.Equal(t, "b", resp3.Get(ctx, "a").Val())
}

func TestTransactions(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	cmds, err := c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.Do(ctx, "tr.setbit", "k", 1, 1)
		p.Do(ctx, "tr.setbits", "k", 2, 3)
		p.Do(ctx, "tr.getbits", "k", 1, 2, 4)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, int64(0), cmds[0].(*goredis.Cmd).Val())
	assert.Equal(t, int64(3), cmds[1].(*goredis.Cmd).Val())
	assert.Equal(t, ints(1, 1, 0), cmds[2].(*goredis.Cmd).Val())

	// A command rejected while queued aborts the transaction.
	_, err = c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.Do(ctx, "tr.setbit", "x", 1, 1)
		p.Do(ctx, "tr.setbit", "x")
		return nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "EXECABORT")
	assert.Equal(t, int64(0), c.Exists(ctx, "x").Val())

	// Transactions with SELECT and FLUSHALL lock every database.
	_, err = c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.Select(ctx, 1)
		p.Set(ctx, "in1", "v", 0)
		p.Do(ctx, "info", "keyspace")
		p.Select(ctx, 0)
		return nil
	})
	require.NoError(t, err)
}

func TestClusterClientWorks(t *testing.T) {
	s, _ := start(t, Config{})
	ctx := context.Background()
	cl := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: []string{s.Addr()}, Protocol: 2})
	defer cl.Close()
	require.NoError(t, cl.Do(ctx, "tr.setbit", "{t}a", 5, 1).Err())
	assert.Equal(t, int64(1), cl.Do(ctx, "tr.getbit", "{t}a", 5).Val())
	_, err := cl.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.Do(ctx, "tr.setbit", "{t}a", 6, 1)
		p.Do(ctx, "tr.setbit", "{t}b", 6, 1)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, int64(1), cl.Do(ctx, "tr.bitopcard", "AND", "{t}a", "{t}b").Val())
}

func TestKeySlot(t *testing.T) {
	assert.Equal(t, uint16(12182), KeySlot([]byte("foo")))
	assert.Equal(t, KeySlot([]byte("{user1000}.following")), KeySlot([]byte("{user1000}.followers")))
}
