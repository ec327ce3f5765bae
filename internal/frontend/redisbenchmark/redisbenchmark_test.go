package redisbenchmark

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line string
		want func(o *Options)
		err  string
	}{
		{"", func(o *Options) {}, ""},
		{"-h r-bp1.redis.rds.aliyuncs.com -p 6379 -a testaccount:Rp829dlwa -n 3000000 - r 100000  -c 256 -t set -d 64 --threads 16",
			func(o *Options) {
				o.Host, o.Password, o.Requests, o.KeySpace, o.Clients, o.Selected, o.DataSize, o.Threads =
					"r-bp1.redis.rds.aliyuncs.com", "testaccount:Rp829dlwa", 3000000, 100000, 256, []string{"set"}, 64, 16
			}, ""},
		{"-q -P 16 --csv -l --precision 2 -3 --dbnum 3 --cluster", func(o *Options) {
			o.Quiet, o.Pipeline, o.CSV, o.Loop, o.Precision, o.RESP3, o.DBNum, o.Cluster = true, 16, true, true, 2, true, 3, true
		}, ""},
		{"-t SET,Get -a pw --user bench", func(o *Options) { o.Selected, o.Password, o.User = []string{"set", "get"}, "pw", "bench" }, ""},
		{"-u redis://u:p@h1:7000/2", func(o *Options) { o.Host, o.Port, o.User, o.Password, o.DBNum = "h1", 7000, "u", "p", 2 }, ""},
		{"-r 10000 -n 10000 lpush mylist __rand_int__", func(o *Options) {
			o.KeySpace, o.Requests, o.Command = 10000, 10000, []string{"lpush", "mylist", "__rand_int__"}
		}, ""},
		{"-x set k", func(o *Options) { o.StdinArg, o.Command = true, []string{"set", "k"} }, ""},
		{"--embedded --json r.json --seed 7", func(o *Options) { o.Embedded, o.JSON, o.Seed = true, "r.json", 7 }, ""},
		{"-s /tmp/redis.sock", func(o *Options) { o.Socket = "/tmp/redis.sock" }, ""},
		{"-k 0", nil, "-k 0"},
		{"-I", nil, "idle"},
		{"-c", nil, "needs a value"},
		{"-c x", nil, "not a whole number"},
		{"-c 0", nil, "-c must be at least 1"},
		{"--bogus", nil, "unrecognized option"},
		{"--user u", nil, "--user needs -a"},
		{"-u http://x", nil, "want redis://"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			var warn bytes.Buffer
			got, err := Parse(strings.Fields(tc.line), &warn)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			want := Defaults()
			tc.want(&want)
			assert.Equal(t, want, got)
		})
	}
}

func TestTests(t *testing.T) {
	o := Defaults()
	all, err := o.Tests()
	require.NoError(t, err)
	var names []string
	for _, x := range all {
		names = append(names, x.Name)
	}
	assert.Equal(t, []string{"PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "LPUSH", "RPUSH", "LPOP", "RPOP", "SADD", "HSET",
		"SPOP", "ZADD", "ZPOPMIN", "LPUSH (needed to benchmark LRANGE)", "LRANGE_100 (first 100 elements)", "LRANGE_300 (first 300 elements)",
		"LRANGE_500 (first 500 elements)", "LRANGE_600 (first 600 elements)", "MSET (10 keys)"}, names, "redis-benchmark's order")
	assert.True(t, all[0].Inline)
	assert.Regexp(t, `^SET key:__rand_int__ [A-Z]{3}$`, all[2].Template, "without -r the key is sent as is; -d 3 random capitals")
	assert.Equal(t, "ZADD myzset 0 element:__rand_int__", all[12].Template)

	o.KeySpace, o.Cluster, o.Selected = 1000, true, []string{"zadd", "lrange_300", "get"}
	sel, err := o.Tests()
	require.NoError(t, err)
	require.Len(t, sel, 4)
	assert.Equal(t, "GET key{tag}:__RAND__", sel[0].Template)
	assert.Equal(t, "ZADD myzset{tag} __RAND__ element:__RAND__", sel[1].Template)
	assert.Equal(t, "LPUSH (needed to benchmark LRANGE)", sel[2].Name)
	assert.Equal(t, "LRANGE mylist{tag} 0 299", sel[3].Template)
	assert.Equal(t, 12, o.TemplateOptions().Ranges[1].Pad)

	o.Command = []string{"set", "k", "hello world", "__rand_int__"}
	cmd, err := o.Tests()
	require.NoError(t, err)
	assert.Equal(t, `set k "hello world" __RAND__`, cmd[0].Template)
	assert.Equal(t, "set k hello world __rand_int__", cmd[0].Name)

	o.Command, o.Selected = nil, []string{"sett"}
	_, err = o.Tests()
	assert.ErrorContains(t, err, "unknown test")
}

func TestRedactedArgs(t *testing.T) {
	assert.Equal(t, []string{"-a", "user:***", "-n", "1"}, RedactedArgs([]string{"-a", "user:secret", "-n", "1"}))
	assert.Equal(t, []string{"-a", "***"}, RedactedArgs([]string{"-a", "secret"}))
	assert.Equal(t, []string{"-u", "redis://u:xxxxx@h:1"}, RedactedArgs([]string{"-u", "redis://u:p@h:1"}))
}

func FuzzParse(f *testing.F) {
	f.Add("-h h -p 1 -a u:p -n 10 - r 5 -c 2 -t set,get -d 64 --threads 4")
	f.Add("-r 10 lpush mylist __rand_int__")
	f.Fuzz(func(t *testing.T, line string) {
		o, err := Parse(strings.Fields(line), &bytes.Buffer{})
		if err != nil {
			return
		}
		_, _ = o.Tests()
		_, _ = o.Target()
	})
}
