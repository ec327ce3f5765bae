package cli

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// The persistent-memory whitepaper's lines after "./bin/ycsb", with the
// ${…} variables filled in for a local redis-server (small counts).
const (
	seedYCSBLoad = `load redis -s -P workloads/workload${workload} -p "redis.host=127.0.0.1" -p  "redis.port=${port}" -p "redis.password=${password}" -p "recordcount=${recordcount}" -p "operationcount=${operationcount}" -p "redis.timeout=30000" -p "redis.command_group=${command_group}" -p "fieldcount=${fieldcount}" -p "fieldlength=${fieldlength}" -threads ${threads}`
	seedYCSBRun  = `run redis -s -P workloads/workload${workload} -p "redis.host=127.0.0.1" -p  "redis.port=${port}" -p "redis.password=${password}" -p "recordcount=${recordcount}" -p "operationcount=${operationcount}" -p "redis.timeout=30000" -p "redis.command_group=${command_group}" -p "fieldcount=${fieldcount}" -p "fieldlength=${fieldlength}" -threads ${threads}`
)

func TestYCSBSeedLinesEveryCommandGroup(t *testing.T) {
	for _, group := range []string{"string", "hash", "list", "set", "zset"} {
		t.Run(group, func(t *testing.T) {
			r := testenv.StartRedis(t, "--requirepass", "pw") // the groups' keys would clash
			fields := "10"
			if group == "string" {
				fields = "1"
			}
			vars := strings.NewReplacer("${port}", strconv.Itoa(r.Port), "${password}", "pw", "${recordcount}", "2000",
				"${command_group}", group, "${fieldcount}", fields, "${fieldlength}", "32", "${threads}", "4")
			dir := t.TempDir()
			// Load, then workload C (reads) and A (reads and updates).
			for _, step := range []struct{ line, workload, ops string }{{seedYCSBLoad, "a", "2000"}, {seedYCSBRun, "c", "3000"}, {seedYCSBRun, "a", "3000"}} {
				line := strings.NewReplacer("${workload}", step.workload, "${operationcount}", step.ops).Replace(vars.Replace(step.line))
				jsonPath := filepath.Join(dir, step.workload+".json")
				res := runCLI(context.Background(), append(append([]string{"ycsb"}, splitLine(line)...), "--json", jsonPath)...)
				require.Equal(t, 0, res.code, "%s\n%s", line, res.err)
				assert.Contains(t, res.out, "[OVERALL], RunTime(ms), ")
				assert.Contains(t, res.out, "[OVERALL], Throughput(ops/sec), ")
				assert.Contains(t, res.out, "server counted "+step.ops+": match", "every operation reached the server once")
				doc := readCompat(t, jsonPath)
				runRes := doc.Tests[0].Run
				assert.Zero(t, runRes.Totals.Errors, "%v", runRes.Errors)
				if strings.HasPrefix(line, "load") {
					assert.Contains(t, res.out, "[INSERT], Return=OK, 2000")
					continue
				}
				assert.Contains(t, res.out, "[READ], Operations, ")
				assert.Contains(t, res.out, "[READ], 99thPercentileLatency(us), ")
				assert.NotContains(t, res.out, "NOT_FOUND", "every record was loaded")
				if step.workload == "a" {
					assert.Contains(t, res.out, "[UPDATE], Return=OK, ")
					require.Len(t, runRes.Operations, 2)
					assert.InDelta(t, 1500, runRes.Operations[0].Ops, 150, "workload A: half reads")
				}
			}
		})
	}
}

func readCompat(t *testing.T, path string) *result.Compat {
	t.Helper()
	doc := readDoc(t, path)
	c, ok := doc.(*result.Compat)
	require.True(t, ok)
	return c
}

// The ESSD whitepaper's four lines after "./bin/ycsb", variables filled in.
var seedESSD = []string{
	`load redis -s -P workloads/workloada -p "redis.host=${ip}" -p "redis.port=${port}" -p "recordcount=${recordcount}" -p "operationcount=${recordcount}" -p "redis.timeout=${timeout}" -p "redis.command_group=${command_group}" -p "fieldcount=${fieldcount}" -p "fieldlength=${fieldlength}" -threads ${threads}`,
	`run redis -s -P workloads/workloadc -p "redis.host=${ip}" -p "redis.port=${port}" -p "recordcount=${recordcount}" -p "operationcount=${run_operationcount}" -p "redis.timeout=${timeout}" -p "redis.command_group=${command_group}" -p "fieldcount=${fieldcount}" -p "fieldlength=${fieldlength}" -p "requestdistribution=uniform" -threads ${threads}`,
	`run redis -s -P workloads/workloadc -p "redis.host=${ip}" -p "redis.port=${port}" -p "recordcount=${recordcount}" -p "operationcount=${run_operationcount}" -p "redis.timeout=${timeout}" -p "redis.command_group=${command_group}" -p "fieldcount=${fieldcount}" -p "fieldlength=${fieldlength}" -p "requestdistribution=zipfian" -threads ${threads}`,
	`run redis -s -P workloads/workloada -p "redis.host=${ip}" -p "redis.port=${port}" -p "recordcount=${recordcount}" -p "operationcount=${run_operationcount}" -p "redis.timeout=${timeout}" -p "redis.command_group=${command_group}" -p "fieldcount=${fieldcount}" -p "fieldlength=${fieldlength}" -p "requestdistribution=uniform" -threads ${threads}`,
}

func TestYCSBSeedLinesESSD(t *testing.T) {
	r := testenv.StartRedis(t)
	vars := strings.NewReplacer("${ip}", "127.0.0.1", "${port}", strconv.Itoa(r.Port), "${recordcount}", "5000",
		"${run_operationcount}", "5000", "${timeout}", "30000", "${command_group}", "string", "${fieldcount}", "1",
		"${fieldlength}", "100", "${threads}", "8")
	for i, line := range seedESSD {
		res := runCLI(context.Background(), append([]string{"ycsb"}, splitLine(vars.Replace(line))...)...)
		require.Equal(t, 0, res.code, "line %d: %s", i, res.err)
		assert.Contains(t, res.out, "server counted 5000: match", "line %d", i)
		assert.NotContains(t, res.out, "NOT_FOUND", "line %d", i)
	}
	// The load's 5,000 SETs, and workload A's updates: about half of its 5,000 operations.
	assert.InDelta(t, 7500, testenv.CommandCalls(t, r.Addr, "set"), 150)
}
