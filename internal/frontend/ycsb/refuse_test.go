package ycsb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefusedLines: each bad word of a YCSB line is refused with one line
// naming it, when parsed or when its workload is built.
func TestRefusedLines(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"load"}, "usage: tairbench ycsb load|run redis"},
		{[]string{"load", "mongodb"}, `only the redis binding is supported, not "mongodb"`},
		{[]string{"bogus", "redis"}, `the first word is load or run, not "bogus"`},
		{[]string{"run", "redis", "--bogus"}, `unknown option "--bogus"`},
		{[]string{"run", "redis", "-p", "noequals"}, `-p "noequals": want name=value`},
		{[]string{"run", "redis", "-p", "recordcount=x"}, `property recordcount="x"`},
		{[]string{"run", "redis", "-target", "-5"}, `property target="-5"`},
		{[]string{"run", "redis", "-P", "no-such-workload"}, "the built-in core workloads are named"},
		{[]string{"run", "redis", "-p", "requestdistribution=weird"}, "requestdistribution=weird: uniform, zipfian, latest or hotspot"},
		{[]string{"run", "redis", "-p", "redis.command_group=graph"}, "redis.command_group=graph: string, hash, list, set or zset"},
		{[]string{"run", "redis", "-p", "fieldcount=0"}, "fieldcount must be at least 1"},
		{[]string{"run", "redis", "-threads", "0"}, "threadcount (-threads) 0: at least 1"},
		{[]string{"run", "redis", "-p", "threadcount=0"}, "threadcount (-threads) 0: at least 1"},
	}
	for _, tc := range tests {
		c, err := Parse(tc.args)
		if err == nil {
			_, err = c.Workload()
		}
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.wantErr, "%v", tc.args)
	}
}
