package main

import (
	"bufio"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// ycsbCore returns the classpath of YCSB's core (fetched from Maven Central
// by scripts/ycsb-core.sh).
func ycsbCore(t *testing.T) string {
	testenv.Integration(t)
	out, err := exec.Command("bash", "../../scripts/ycsb-core.sh").Output()
	require.NoError(t, err, "scripts/ycsb-core.sh fetches YCSB's core with Maven ('make test' installs Maven and a JDK)")
	return strings.TrimSpace(string(out))
}

// ycsbOp is one operation: its type and key.
type ycsbOp struct{ op, key string }

// realYCSB runs YCSB's Client with its BasicDB, which prints every
// operation, and returns the operations.
func realYCSB(t *testing.T, cp string, load bool, props map[string]string) []ycsbOp {
	file := filepath.Join(t.TempDir(), "workload")
	var b strings.Builder
	b.WriteString("workload=site.ycsb.workloads.CoreWorkload\n")
	for k, v := range props {
		fmt.Fprintf(&b, "%s=%s\n", k, v)
	}
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))
	phase := "-t"
	if load {
		phase = "-load"
	}
	// -XX:-UsePerfData: the JVM would leave /tmp/hsperfdata_USER behind.
	cmd := exec.Command("java", "-XX:-UsePerfData", "-cp", cp, "site.ycsb.Client", phase, "-db", "site.ycsb.BasicDB", "-P", file,
		"-p", "basicdb.verbose=true", "-p", "basicdb.simulatedelay=0", "-threads", "1")
	if jdk, _ := filepath.Glob("/usr/lib/jvm/java-17-openjdk-*/bin/java"); len(jdk) > 0 {
		cmd.Path, cmd.Args[0] = jdk[0], jdk[0]
	}
	out, err := cmd.Output()
	require.NoError(t, err, string(out))
	var ops []ycsbOp
	re := regexp.MustCompile(`^(READ|UPDATE|INSERT) usertable (\S+)`)
	for _, line := range strings.Split(string(out), "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			ops = append(ops, ycsbOp{m[1], m[2]})
		}
	}
	require.NotEmpty(t, ops, string(out))
	return ops
}

// monitor records the commands redis-server runs (MONITOR) until stop,
// as YCSB operations of the hash command group.
func monitor(t *testing.T, addr string) (stop func() []ycsbOp) {
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = c.Write([]byte("MONITOR\r\n"))
	require.NoError(t, err)
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "+OK\r\n", line)
	var mu sync.Mutex
	var ops []ycsbOp
	done := make(chan struct{})
	arg := regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`) // MONITOR quotes each argument, escaping quotes inside
	const sentinel = "tairbench-monitor-end"
	go func() {
		defer close(done)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			args := arg.FindAllStringSubmatch(line, -1)
			if len(args) < 2 {
				continue
			}
			var op string
			switch strings.ToLower(args[0][1]) {
			case "echo":
				if args[1][1] == sentinel {
					return // every command before it has been seen
				}
				continue
			case "hgetall":
				op = "READ"
			case "hmset":
				op = "UPDATE"
				if len(args) > 4 { // every field: an insert
					op = "INSERT"
				}
			default:
				continue
			}
			mu.Lock()
			ops = append(ops, ycsbOp{op, args[1][1]})
			mu.Unlock()
		}
	}()
	return func() []ycsbOp {
		testenv.Do(t, addr, "ECHO", sentinel) // MONITOR shows it after every earlier command
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("MONITOR did not show the end marker within 30 s")
		}
		_ = c.Close()
		mu.Lock()
		defer mu.Unlock()
		return ops
	}
}

// mix is each operation type's share; hot the share of the requests that
// the hottest frac of keys (of n) took.
func mix(ops []ycsbOp) map[string]float64 {
	m := map[string]float64{}
	for _, o := range ops {
		m[o.op] += 1 / float64(len(ops))
	}
	return m
}

func hot(ops []ycsbOp, n int, frac float64) float64 {
	counts := map[string]int{}
	total := 0
	for _, o := range ops {
		if o.op == "INSERT" {
			continue
		}
		counts[o.key]++
		total++
	}
	var c []int
	for _, n := range counts {
		c = append(c, n)
	}
	slices.Sort(c)
	slices.Reverse(c)
	sum := 0
	for i := 0; i < int(float64(n)*frac) && i < len(c); i++ {
		sum += c[i]
	}
	return float64(sum) / float64(total)
}

// TestYCSBAgainstYCSBCore runs YCSB's own core (its generators, through
// BasicDB) and tairbench ycsb on the same workloads: the same key names for
// the same records, the operation mix within 1 point, and the share of
// requests to the hottest 1 % and 10 % of keys within 2 points, for
// zipfian, latest and uniform.
func TestYCSBAgainstYCSBCore(t *testing.T) {
	cp := ycsbCore(t)
	r := testenv.StartRedis(t)
	const records = 1000
	base := map[string]string{"recordcount": "1000", "fieldcount": "10", "fieldlength": "8"}
	tb := func(phase, workload string, extra ...string) []ycsbOp {
		stop := monitor(t, r.Addr)
		args := []string{"ycsb", phase, "redis", "-P", "workloads/" + workload, "-p", fmt.Sprintf("redis.port=%d", r.Port),
			"-p", "recordcount=1000", "-p", "fieldcount=10", "-p", "fieldlength=8", "-p", "redis.command_group=hash", "-threads", "4"}
		out, err := exec.Command(binary(t), append(args, extra...)...).CombinedOutput()
		ops := stop()
		require.NoError(t, err, string(out))
		return ops
	}

	// Load: the same key names.
	theirs := realYCSB(t, cp, true, base)
	ours := tb("load", "workloada")
	require.Len(t, ours, records)
	keys := func(ops []ycsbOp) []string {
		var k []string
		for _, o := range ops {
			k = append(k, o.key)
		}
		slices.Sort(k)
		return k
	}
	assert.Equal(t, keys(theirs), keys(ours), "the same keys for records 0 … 999")
	assert.Equal(t, "user6284781860667377211", theirs[0].key)

	for _, tc := range []struct {
		dist, workload string
		props          map[string]string
	}{
		{"zipfian", "workloada", map[string]string{"readproportion": "0.5", "updateproportion": "0.5"}},
		{"uniform", "workloada", map[string]string{"readproportion": "0.5", "updateproportion": "0.5"}},
		{"latest", "workloadd", map[string]string{"readproportion": "0.95", "updateproportion": "0", "insertproportion": "0.05"}},
	} {
		t.Run(tc.dist, func(t *testing.T) {
			props := map[string]string{"operationcount": "20000", "requestdistribution": tc.dist}
			for k, v := range base {
				props[k] = v
			}
			for k, v := range tc.props {
				props[k] = v
			}
			theirs := realYCSB(t, cp, false, props)
			ours := tb("run", tc.workload, "-p", "operationcount=20000", "-p", "requestdistribution="+tc.dist)
			require.Len(t, ours, 20000)
			tm, om := mix(theirs), mix(ours)
			t.Logf("%s mix: YCSB %v, tairbench %v", tc.dist, tm, om)
			for op, share := range tm {
				// Two independent draws of 20,000 operations: the shares'
				// difference has a binomial spread, sd = sqrt(p(1-p)·2/n)
				// (0.005 at p = 0.5); 5 sd stays silent on chance (2 sd
				// failed about one run in twenty) and still catches a
				// proportion read wrong by 0.03 or more.
				tol := 5 * math.Sqrt(share*(1-share)*2/20000)
				assert.InDelta(t, share, om[op], max(tol, 0.002), "%s share", op)
			}
			for _, frac := range []float64{0.01, 0.10} {
				th, oh := hot(theirs, records, frac), hot(ours, records, frac)
				t.Logf("%s: hottest %.0f%% of keys: YCSB %.3f, tairbench %.3f", tc.dist, frac*100, th, oh)
				assert.InDelta(t, th, oh, 0.02, "%s: share of the hottest %.0f%%", tc.dist, frac*100)
			}
		})
	}
}
