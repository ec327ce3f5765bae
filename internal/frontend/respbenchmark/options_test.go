package respbenchmark

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	cases := []struct {
		line string
		want func(*Options)
		err  string
	}{
		{"", func(*Options) {}, ""},
		{"-h 10.0.0.1 -p 7000 -u app -a pw -c 64 -n 1000000 -P 10", func(o *Options) {
			o.Host, o.Port, o.User, o.Password, o.Connections, o.Requests, o.Pipeline = "10.0.0.1", 7000, "app", "pw", 64, 1_000_000, 10
		}, ""},
		{"-s 30 -t 50000 --cluster GET_{key_uniform_10}", func(o *Options) {
			o.Seconds, o.Target, o.Cluster, o.Command = 30, 50000, true, "GET_{key_uniform_10}"
		}, ""},
		{"-p6380 -c8 --dbid=3", func(o *Options) { o.Port, o.Connections, o.DBID, o.DB = 6380, 8, "3", 3 }, ""},
		{"--load -n 100 --cores 0,1", func(o *Options) { o.Load, o.Requests, o.Cores = true, 100, "0,1" }, ""},
		{"-q --embedded --json r.json --seed 9 --timeout 2s", func(o *Options) {
			o.Quiet, o.Embedded, o.JSON, o.Seed, o.Timeout = true, true, "r.json", 9, 2*time.Second
		}, ""},
		{"-c x", nil, "argument -c: invalid int value: 'x'"},
		{"-n", nil, "argument -n: expected one argument"},
		{"-P 0", nil, "pipeline must be greater than 0"},
		{"--load", nil, "--load needs -n"},
		{"--dbid 0-2,255", nil, "one database at a time"},
		{"--dbid 2-1", nil, "want IDs or inclusive ranges"},
		{"--cluster --dbid 1", nil, "--cluster only supports dbid 0"},
		{"--lua x", nil, "Lua workloads are not supported"},
		{"--lua-file w.lua", nil, "Lua workloads are not supported"},
		{"--short-connection", nil, "--short-connection"},
		{"--tls", nil, "unrecognized arguments: --tls"},
		{"GET x", nil, "unrecognized arguments: x"},
		{"--help", nil, "help requested"},
		{"-v", nil, "version requested"},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			got, err := Parse(strings.Fields(c.line))
			if c.err != "" {
				assert.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			want := Defaults()
			c.want(&want)
			assert.Equal(t, want, got)
		})
	}
}

func TestEndpoint(t *testing.T) {
	o, err := Parse([]string{"-h", "db", "-p", "7000", "-a", "pw"})
	require.NoError(t, err)
	tg, err := o.Endpoint()
	require.NoError(t, err)
	assert.Equal(t, "db:7000", tg.Addr)
	assert.Equal(t, "pw", tg.Auth, "a password alone is -a's form")
	assert.Equal(t, 30*time.Second, tg.Timeout, "resp-benchmark's own timeout")
	o, err = Parse([]string{"-u", "app", "-a", "pw", "--timeout", "2s", "--dbid", "4"})
	require.NoError(t, err)
	tg, err = o.Endpoint()
	require.NoError(t, err)
	assert.Equal(t, [3]any{"app", "pw", 4}, [3]any{tg.User, tg.Password, tg.DB})
	assert.Equal(t, 2*time.Second, tg.Timeout)
	assert.Equal(t, []string{"-a", "***", "-n", "1"}, RedactedArgs([]string{"-a", "pw", "-n", "1"}))
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"-c 4 -n 10 GET", "--dbid 0-2,255", "-p6379", "--load -n 1 SET {key sequence 10} {value 8}", "-P"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		o, err := Parse(strings.Fields(line))
		if err == nil {
			assert.Positive(t, o.Pipeline)
			assert.GreaterOrEqual(t, o.DB, 0)
		}
	})
}
