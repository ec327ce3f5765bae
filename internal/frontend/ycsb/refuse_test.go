package ycsb

import (
	"testing"

	"github.com/tairbench/tairbench/internal/testenv"
)

// TestRefusedLines: each bad word of a YCSB line is refused with one line
// naming it, when parsed or when its workload is built.
func TestRefusedLines(t *testing.T) {
	lines := []testenv.Refusal{
		{Args: []string{"load"}, WantErr: "usage: tairbench ycsb load|run redis"},
		{Args: []string{"load", "mongodb"}, WantErr: `only the redis binding is supported, not "mongodb"`},
		{Args: []string{"bogus", "redis"}, WantErr: `the first word is load or run, not "bogus"`},
		{Args: []string{"run", "redis", "--bogus"}, WantErr: `unknown option "--bogus"`},
		{Args: []string{"run", "redis", "-p", "noequals"}, WantErr: `-p "noequals": want name=value`},
		{Args: []string{"run", "redis", "-p", "recordcount=x"}, WantErr: `property recordcount="x"`},
		{Args: []string{"run", "redis", "-target", "-5"}, WantErr: `property target="-5"`},
		{Args: []string{"run", "redis", "-P", "no-such-workload"}, WantErr: "the built-in core workloads are named"},
		{Args: []string{"run", "redis", "-p", "requestdistribution=weird"}, WantErr: "requestdistribution=weird: uniform, zipfian, latest or hotspot"},
		{Args: []string{"run", "redis", "-p", "redis.command_group=graph"}, WantErr: "redis.command_group=graph: string, hash, list, set or zset"},
		{Args: []string{"run", "redis", "-p", "fieldcount=0"}, WantErr: "fieldcount must be at least 1"},
		{Args: []string{"run", "redis", "-threads", "0"}, WantErr: "threadcount (-threads) 0: at least 1"},
		{Args: []string{"run", "redis", "-p", "threadcount=0"}, WantErr: "threadcount (-threads) 0: at least 1"},
	}
	testenv.Refuses(t, lines, func(args []string) error {
		c, err := Parse(args)
		if err == nil {
			_, err = c.Workload()
		}
		return err
	})
}
