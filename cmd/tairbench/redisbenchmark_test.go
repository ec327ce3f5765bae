package main

import (
	"bytes"
	"encoding/csv"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// whitepaperRedisBenchmark are the enhanced-edition whitepaper's lines
// after the program name, with the host and password changed to a local
// redis-server that has the account testaccount (the whitepaper's "- r" is
// kept: its stray space is read as -r).
var whitepaperRedisBenchmark = []string{
	"-h 127.0.0.1 -p PORT -a testaccount:Rp829dlwa -n 3000000 - r 100000  -c 256 -t set -d 64 --threads 16",
	"-h 127.0.0.1 -p PORT -a testaccount:Rp829dlwa -n 3000000 - r 100000 -c 256 -t get -d 64 --threads 16",
}

func accountRedis(t *testing.T) *testenv.Redis {
	return testenv.StartRedis(t, "--maxclients", "1000", "--user", "testaccount", "on", ">Rp829dlwa", "~*", "&*", "+@all")
}

func TestWhitepaperRedisBenchmarkLines(t *testing.T) {
	r := accountRedis(t)
	for _, line := range whitepaperRedisBenchmark {
		args := append([]string{"redis-benchmark"}, strings.Fields(strings.ReplaceAll(line, "PORT", strconv.Itoa(r.Port)))...)
		out, err := exec.Command(binary(t), args...).CombinedOutput()
		require.NoError(t, err, string(out))
		s := string(out)
		name := "SET"
		if strings.Contains(line, "-t get") {
			name = "GET"
		}
		assert.Contains(t, s, "====== "+name+" ======")
		assert.Contains(t, s, "3000000 requests completed in")
		assert.Contains(t, s, "256 parallel clients")
		assert.Contains(t, s, "64 bytes payload")
		assert.Contains(t, s, "threads: 16")
		assert.Contains(t, s, "Cumulative distribution of latencies:")
		assert.Regexp(t, `(?m)^\d+\.\d{3}% <= 0\.100 milliseconds \(cumulative count \d+\)$`, s, "the whitepaper's 0.1 ms steps")
		assert.Contains(t, s, "throughput summary:")
		assert.Contains(t, s, "read '- r' as '-r'")
		assert.Contains(t, s, "tairbench: "+name+": 3000000 commands in 3000000 requests, 0 errors")
		assert.Contains(t, s, "server counted 3000000: match")
		assert.NotContains(t, s, "WARNING")
	}
	assert.Equal(t, int64(3000000), testenv.CommandCalls(t, r.Addr, "set"))
	assert.Equal(t, int64(3000000), testenv.CommandCalls(t, r.Addr, "get"))
}

// csvRPS reads redis-benchmark's --csv output: test name → requests per second.
func csvRPS(t *testing.T, out []byte) map[string]float64 {
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	require.NoError(t, err, string(out))
	require.Greater(t, len(rows), 1, string(out))
	require.Equal(t, "rps", rows[0][1])
	m := map[string]float64{}
	for _, row := range rows[1:] {
		v, err := strconv.ParseFloat(row[1], 64)
		require.NoError(t, err)
		m[row[0]] = v
	}
	return m
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestSideBySideWithRedisBenchmark runs Debian's redis-benchmark and
// tairbench's front-end with the same command line against one
// redis-server: the same commands reach the server, and at -P 1 the
// throughputs agree (medians of 5 interleaved pairs) within a band wide
// enough for a busy shared machine, where one pair's ratio swings by a
// third, and for tairbench's cheaper client (make bench-client): where
// client and server share two cores, the client's CPU sets the rate, and
// tairbench's ran at up to 1.62 times redis-benchmark's. The band is
// still narrow enough to catch a front-end that keeps twice or half the
// requests in flight.
func TestSideBySideWithRedisBenchmark(t *testing.T) {
	testenv.Integration(t)
	peer, err := exec.LookPath("redis-benchmark")
	require.NoError(t, err, "redis-benchmark (Debian's redis-tools) is installed by 'make test'")
	r := testenv.StartRedis(t)
	port := strconv.Itoa(r.Port)

	// Exact counts, with and without a pipeline (16 does not divide the
	// 10,000 requests: both tools send whole pipelines, 10,000 rounded up).
	for _, pipe := range []string{"1", "16"} {
		args := []string{"-p", port, "-t", "set,get", "-n", "10000", "-r", "1000", "-c", "7", "-d", "32", "-P", pipe, "-q"}
		testenv.Do(t, r.Addr, "CONFIG", "RESETSTAT")
		out, err := exec.Command(peer, args...).CombinedOutput()
		require.NoError(t, err, string(out))
		peerSet, peerGet := testenv.CommandCalls(t, r.Addr, "set"), testenv.CommandCalls(t, r.Addr, "get")
		testenv.Do(t, r.Addr, "CONFIG", "RESETSTAT")
		out, err = exec.Command(binary(t), append([]string{"redis-benchmark"}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
		assert.Equal(t, peerSet, testenv.CommandCalls(t, r.Addr, "set"), "-P %s: SET calls", pipe)
		assert.Equal(t, peerGet, testenv.CommandCalls(t, r.Addr, "get"), "-P %s: GET calls", pipe)
		assert.GreaterOrEqual(t, peerSet, int64(10000))
	}
	// The same keys: 12-digit zero-padded __rand_int__ below -r.
	keys := testenv.Do(t, r.Addr, "RANDOMKEY")
	assert.Regexp(t, `^key:0{9}\d{3}$`, keys)

	// Throughput, interleaved: each pair of runs is side by side in time, so
	// the shared machine's drift hits both; the median of the pairs' ratios
	// is compared (this machine's speed moves 2x from minute to minute).
	args := []string{"-p", port, "-t", "set,get", "-n", "100000", "-r", "100000", "-c", "50", "-d", "64", "--csv"}
	var peerSet, peerGet, ownSet, ownGet, setRatio, getRatio []float64
	for i := range 5 {
		runPeer := func() {
			out, err := exec.Command(peer, args...).Output()
			require.NoError(t, err)
			m := csvRPS(t, out)
			peerSet, peerGet = append(peerSet, m["SET"]), append(peerGet, m["GET"])
		}
		runOwn := func() {
			out, err := exec.Command(binary(t), append([]string{"redis-benchmark"}, args...)...).Output()
			require.NoError(t, err)
			m := csvRPS(t, out)
			ownSet, ownGet = append(ownSet, m["SET"]), append(ownGet, m["GET"])
		}
		if i%2 == 0 {
			runPeer()
			runOwn()
		} else {
			runOwn()
			runPeer()
		}
		setRatio = append(setRatio, ownSet[i]/peerSet[i])
		getRatio = append(getRatio, ownGet[i]/peerGet[i])
	}
	t.Logf("requests/s, 5 interleaved pairs: SET redis-benchmark %v tairbench %v; GET redis-benchmark %v tairbench %v; median ratios SET %.2f GET %.2f",
		peerSet, ownSet, peerGet, ownGet, median(setRatio), median(getRatio))
	for name, r := range map[string]float64{"SET": median(setRatio), "GET": median(getRatio)} {
		assert.True(t, r > 0.6 && r < 2.0, "%s throughput ratio %.2f: want 0.6 … 2.0", name, r)
	}
}
