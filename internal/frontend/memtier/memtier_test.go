package memtier

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

func TestParseWhitepaperLine(t *testing.T) {
	o, err := Parse(strings.Fields("-s r-xxx.redis.rds.aliyuncs.com -p 6379 -a user:pw -c 20 -d 32 --threads=10 --ratio=1:1 --test-time=1800 --select-db=10"))
	require.NoError(t, err)
	assert.Equal(t, "r-xxx.redis.rds.aliyuncs.com", o.Server)
	assert.Equal(t, 200, o.Connections())
	assert.Equal(t, 32, o.DataSize)
	assert.Equal(t, 1800, o.TestTime)
	assert.Equal(t, 10, o.SelectDB)
	assert.Zero(t, o.PerClient(), "--test-time, not --requests, ends the run")
	tg, err := o.Target()
	require.NoError(t, err)
	assert.Equal(t, "user:pw", tg.Auth)
	assert.Equal(t, 10, tg.DB)
	ts, err := o.Spec()
	require.NoError(t, err)
	require.Len(t, ts.Mix, 2)
	assert.Equal(t, "SET memtier-__RAND__ "+strings.Repeat("x", 32), ts.Mix[0].Template)
	assert.Equal(t, "GET memtier-__RAND2__", ts.Mix[1].Template)
	assert.Equal(t, []int{1, 1}, []int{ts.Mix[0].Weight, ts.Mix[1].Weight})
	assert.True(t, ts.Rotate, "each connection cycles SET, GET as memtier's do")
	assert.Equal(t, uint64(10000001), ts.Options.Ranges[1].Max, "keys 0 … 10,000,000")
}

func TestParseOptions(t *testing.T) {
	for _, tc := range []struct {
		line string
		err  string
		want func(t *testing.T, o Options)
	}{
		{"", "", func(t *testing.T, o Options) {
			assert.Equal(t, 200, o.Connections())
			assert.Equal(t, int64(10000), o.PerClient())
		}},
		{"--key-minimum 100 --key-maximum 199 --key-pattern S:R --key-prefix k: --expiry-range 10-20 -n allkeys", "", func(t *testing.T, o Options) {
			assert.Equal(t, int64(99), o.PerClient(), "memtier's allkeys: max − min per client")
			ts, err := o.Spec()
			require.NoError(t, err)
			assert.Equal(t, "SET k:__RAND__ "+strings.Repeat("x", 32)+" EX __RAND3__", ts.Mix[0].Template)
			assert.Equal(t, uint64(100), ts.Options.Ranges[1].Offset)
			assert.Equal(t, uint64(100), ts.Options.Ranges[1].Max)
			assert.Equal(t, uint64(10), ts.Options.Ranges[3].Offset)
		}},
		{"--key-pattern G:P --key-minimum 100 --key-maximum 1099 --key-median 300 --key-stddev 50 --data-size-range=32-64 --data-size-pattern=S", "", func(t *testing.T, o Options) {
			ts, err := o.Spec()
			require.NoError(t, err)
			g, p := ts.Options.Ranges[1], ts.Options.Ranges[2]
			assert.Equal(t, cmdtmpl.Gauss, g.Dist)
			assert.InDelta(t, 200, g.Mean, 1e-9, "the median, within the range")
			assert.InDelta(t, 50, g.StdDev, 1e-9)
			assert.Equal(t, cmdtmpl.Part, p.Dist)
			assert.Equal(t, uint64(100), p.Offset)
			assert.Equal(t, []int{32, 64}, []int{ts.Options.DataSize, ts.Options.DataMax})
			assert.True(t, ts.Options.DataSeq)
			assert.Equal(t, "SET memtier-__RAND__ __DATA__", ts.Mix[0].Template, "varying sizes need __DATA__")
		}},
		{"--data-size-range=64-32", "", func(t *testing.T, o Options) {
			_, err := o.Spec()
			assert.ErrorContains(t, err, "--data-size-range")
		}},
		{"--ratio 1", "", func(t *testing.T, o Options) {
			_, err := o.Spec()
			assert.ErrorContains(t, err, "--ratio")
		}},
		{"--key-minimum 1 --key-maximum 1000 --key-pattern P:P -c 3 -t 2 -n allkeys", "", func(t *testing.T, o Options) {
			assert.Equal(t, int64(999/6+1), o.PerClient(), "memtier's allkeys over P:P: a slice per connection, plus one")
		}},
		{"--key-minimum 5 --key-maximum 5 -n allkeys", "allkeys", nil},
		{"--data-size-list=32:1,64:1", "--data-size-list", nil},
		{"--run-count 3", "--run-count", nil},
		{"-n 0", "--requests", nil},
		{"--protocol memcache_text", "--protocol", nil},
		{"--bogus", "unknown flag", nil},
		{"extra", "unexpected argument", nil},
	} {
		t.Run(tc.line, func(t *testing.T) {
			o, err := Parse(strings.Fields(tc.line))
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			tc.want(t, o)
		})
	}
}

func TestArbitraryCommands(t *testing.T) {
	o, err := Parse([]string{"--command", "HSET __key__ f __data__", "--command-ratio", "2", "--command-key-pattern", "S",
		"--command", "HGET __key__ f", "-d", "4", "--key-maximum", "99"})
	require.NoError(t, err)
	ts, err := o.Spec()
	require.NoError(t, err)
	require.Len(t, ts.Mix, 2)
	assert.Equal(t, "HSET memtier-__RAND3__ f xxxx", ts.Mix[0].Template)
	assert.Equal(t, 2, ts.Mix[0].Weight)
	assert.Equal(t, "HGET memtier-__RAND4__ f", ts.Mix[1].Template)
	assert.Equal(t, uint64(100), ts.Options.Ranges[4].Max)
	w, err := ts.Workload()
	require.NoError(t, err)
	assert.Equal(t, []string{"HSET", "HGET"}, w.OpNames())
	assert.Equal(t, "Hsets", typeName("HSET"))
}

func TestRedactedArgs(t *testing.T) {
	assert.Equal(t, []string{"-a", "u:***", "--authenticate=***"}, RedactedArgs([]string{"-a", "u:p", "--authenticate=secret"}))
}

func FuzzParse(f *testing.F) {
	f.Add("-s h -p 1 -a u:p -c 20 -d 32 --threads=10 --ratio=1:1 --test-time=1800 --select-db=10")
	f.Add("--command HSET__key__ --key-pattern S:S -n allkeys")
	f.Fuzz(func(t *testing.T, line string) {
		o, err := Parse(strings.Fields(line))
		if err != nil {
			return
		}
		if ts, err := o.Spec(); err == nil {
			_, _ = ts.Workload()
		}
		_, _ = o.Target()
	})
}

func TestParseSLO(t *testing.T) {
	o, err := Parse([]string{"--slo", "p99<2ms", "--rate-limiting", "10"})
	require.NoError(t, err)
	assert.True(t, o.SLO.Given())
	assert.False(t, o.SLO.StartGiven())
	_, err = Parse([]string{"--slo", "p99<2ms", "--json-out-file", "x.json"})
	assert.ErrorContains(t, err, "a capacity search (--slo) writes every step with --json")
}

// TestSentinelAndRetryReachTheTarget: tairbench's own --sentinel,
// --master-name and --retry, among memtier's words, shape the endpoint.
func TestSentinelAndRetryReachTheTarget(t *testing.T) {
	o, err := Parse([]string{"-s", "127.0.0.1", "-p", "6379", "--sentinel", "127.0.0.1:26379", "--sentinel", "127.0.0.1:26380",
		"--master-name", "mymaster", "--retry", "3"})
	require.NoError(t, err)
	tg, err := o.Target()
	require.NoError(t, err)
	assert.Equal(t, []string{"127.0.0.1:26379", "127.0.0.1:26380"}, tg.Sentinels)
	assert.Equal(t, "mymaster", tg.MasterName)
	assert.Equal(t, 3, tg.Retry)

	o, err = Parse([]string{"--sentinel", "127.0.0.1:26379"})
	require.NoError(t, err)
	_, err = o.Target()
	assert.ErrorContains(t, err, "master name", "a Sentinel without the name it knows the primary by")
}
