package redis

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/serverstat"
)

func TestParseInfo(t *testing.T) {
	info := "# Stats\r\ntotal_commands_processed:1500\r\n# CPU\r\nused_cpu_sys:1.25\r\nused_cpu_user:2.75\r\n" +
		"# Memory\r\nused_memory:1048576\r\n# Clients\r\nconnected_clients:5\r\n" +
		"# Commandstats\r\ncmdstat_set:calls=1000,usec=1200,usec_per_call=1.20\r\ncmdstat_TR.GETBIT:calls=7,usec=1\r\n"
	r := ParseInfo(time.Unix(10, 0), info)
	get := func(m serverstat.Metric) float64 { v, ok := r.Get(m); require.True(t, ok, m.String()); return v }
	assert.Equal(t, 1500.0, get(serverstat.Commands))
	assert.Equal(t, 4.0, get(serverstat.CPUSeconds))
	assert.Equal(t, 1048576.0, get(serverstat.UsedMemory))
	assert.Equal(t, 5.0, get(serverstat.Clients))
	assert.Equal(t, map[string]int64{"set": 1000, "tr.getbit": 7}, r.Calls)

	noCPU := ParseInfo(time.Unix(10, 0), "total_commands_processed:3\r\nused_cpu_user:1\r\n")
	_, ok := noCPU.Get(serverstat.CPUSeconds)
	assert.False(t, ok, "half the CPU figures is no CPU figure")
}

// TestParseInfoCountsContainersWhole: Redis 7 counts a container
// command by subcommand; its calls add up under its own name too.
func TestParseInfoCountsContainersWhole(t *testing.T) {
	r := ParseInfo(time.Unix(10, 0), "cmdstat_config|get:calls=3,usec=1,rejected_calls=1,failed_calls=0\r\n"+
		"cmdstat_config|set:calls=2,usec=1,rejected_calls=0,failed_calls=1\r\ncmdstat_get:calls=5,usec=1\r\n")
	assert.Equal(t, int64(5), r.Calls["config"])
	assert.Equal(t, int64(1), r.Rejected["config"])
	assert.Equal(t, int64(1), r.Failed["config"])
	assert.Equal(t, int64(3), r.Calls["config|get"])
	assert.Equal(t, int64(5), r.Calls["get"])
}
