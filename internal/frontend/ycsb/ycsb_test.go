package ycsb

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

func TestKeyNames(t *testing.T) {
	// YCSB's first keys of a hashed load (CoreWorkload.buildKeyName).
	assert.Equal(t, "user6284781860667377211", KeyName(0, false, 1))
	assert.Equal(t, "user8517097267634966620", KeyName(1, false, 1))
	assert.Equal(t, "user1820151046732198393", KeyName(2, false, 1))
	assert.Equal(t, "user42", KeyName(42, true, 1))
	assert.Equal(t, "user00042", KeyName(42, true, 5))
}

// The seeds' lines, after "./bin/ycsb".
const seedLoad = `load redis -s -P workloads/workloada -p redis.host=127.0.0.1 -p redis.port=6379 -p redis.password=user:pw -p recordcount=7680000000 -p operationcount=7680000000 -p redis.timeout=30000 -p redis.command_group=string -p fieldcount=1 -p fieldlength=128 -threads 32`

func TestParseSeedLine(t *testing.T) {
	c, err := Parse(strings.Fields(seedLoad))
	require.NoError(t, err)
	assert.Equal(t, "load", c.Phase)
	assert.True(t, c.Status)
	w, err := c.Workload()
	require.NoError(t, err)
	assert.Equal(t, int64(7_680_000_000), w.RecordCount, "64-bit counts (the ESSD paper loads 7.68 billion)")
	assert.Equal(t, "string", w.CommandGroup)
	assert.Equal(t, 1, w.FieldCount)
	assert.Equal(t, 128, w.FieldLength)
	assert.Equal(t, 32, w.Threads)
	assert.Equal(t, "zipfian", w.RequestDist, "workloada's")
	assert.InDelta(t, 0.5, w.Proportions["UPDATE"], 1e-9)
	tg, err := c.Target()
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:6379", tg.Addr)
	assert.Equal(t, "user:pw", tg.Auth)
	assert.Contains(t, c.PropertyLines(), "redis.password=user:***")
}

func TestParseOverridesAndFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mywork")
	require.NoError(t, os.WriteFile(file, []byte("# comment\nreadproportion=0.2\nupdateproportion=0.8\nrequestdistribution=hotspot\n"), 0o644))
	c, err := Parse([]string{"run", "redis", "-P", file, "-p", "updateproportion=0.3", "-p", "insertstart=100", "-p", "insertcount=50", "-target", "500"})
	require.NoError(t, err)
	w, err := c.Workload()
	require.NoError(t, err)
	assert.InDelta(t, 0.2, w.Proportions["READ"], 1e-9)
	assert.InDelta(t, 0.3, w.Proportions["UPDATE"], 1e-9, "-p wins over -P")
	assert.Equal(t, "hotspot", w.RequestDist)
	assert.Equal(t, int64(100), w.InsertStart)
	assert.Equal(t, int64(50), w.InsertCount)
	assert.InDelta(t, 500, w.Target, 1e-9)

	for _, tc := range []struct{ line, err string }{
		{"run redis -P workloads/workloade", "no scan"},
		{"run redis -P workloads/workloadz", "core workloads"},
		{"run mongodb", "only the redis binding"},
		{"walk redis", "load or run"},
		{"run redis -p recordcount=x", "recordcount"},
		{"run redis -p redis.command_group=stream", "command_group"},
		{"run redis -p requestdistribution=exponential", "requestdistribution"},
		{"run redis -bogus", "unknown option"},
	} {
		c, err := Parse(strings.Fields(tc.line))
		if err == nil {
			_, err = c.Workload()
		}
		assert.ErrorContains(t, err, tc.err, tc.line)
	}
}

// share is the fraction of draws that go to the hottest frac of keys.
func share(draws []int64, frac float64) float64 {
	counts := map[int64]int{}
	for _, d := range draws {
		counts[d]++
	}
	var c []int
	for _, n := range counts {
		c = append(c, n)
	}
	slices.Sort(c)
	slices.Reverse(c)
	top := int(float64(1000) * frac)
	sum := 0
	for i := 0; i < top && i < len(c); i++ {
		sum += c[i]
	}
	return float64(sum) / float64(len(draws))
}

func TestPopularity(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	draw := func(c chooser) []int64 {
		out := make([]int64, 200000)
		for i := range out {
			out[i] = c.next(r)
			require.True(t, out[i] >= 0 && out[i] < 1000, "in the key range: %d", out[i])
		}
		return out
	}
	uni := draw(uniformChooser{0, 999})
	zip := draw(newScrambled(0, 999))
	hot := draw(hotspotChooser{lo: 0, hi: 999, hotFrac: 0.2, hotOpFrac: 0.8})
	ctr := newCounter(0)
	for i := range int64(1000) {
		ctr.take()
		ctr.acknowledge(i)
	}
	lat := draw(newLatest(ctr))
	assert.InDelta(t, 0.01, share(uni, 0.01), 0.005)
	assert.Greater(t, share(zip, 0.01), 0.08, "zipfian: the hottest 1% of keys take many times their share")
	assert.InDelta(t, 0.8, share(hot, 0.2), 0.02, "hotspot: 80% of operations on 20% of keys")
	assert.Greater(t, share(lat, 0.01), 0.15, "latest: the newest keys are the hottest")
	// latest's hottest key is the last inserted.
	counts := map[int64]int{}
	for _, k := range lat {
		counts[k]++
	}
	assert.Greater(t, counts[999], counts[500])
}

func FuzzParse(f *testing.F) {
	f.Add(seedLoad)
	f.Add("run redis -P workloads/workloadd -p requestdistribution=latest -threads 4 -target 100")
	f.Fuzz(func(t *testing.T, line string) {
		c, err := Parse(strings.Fields(line))
		if err != nil {
			return
		}
		if w, err := c.Workload(); err == nil {
			_ = NewFactory(endpoint.Target{}, w, c.Phase == "load")
		}
		_, _ = c.Target()
	})
}

func TestFieldLengths(t *testing.T) {
	for _, dist := range []string{"constant", "uniform", "zipfian"} {
		w := &worker{f: &Factory{Workload: &Workload{FieldLength: 100, FieldLengthDist: dist}}, rng: rand.New(rand.NewPCG(1, 1)),
			values: make([]byte, 4196)}
		short, total := 0, 0
		for range 10000 {
			n := len(w.value())
			require.True(t, n >= 1 && n <= 100, "%s: %d", dist, n)
			if n <= 10 {
				short++
			}
			total += n
		}
		switch dist {
		case "constant":
			assert.Equal(t, 100*10000, total)
		case "uniform":
			assert.InDelta(t, 50.5, float64(total)/10000, 2)
		case "zipfian":
			assert.Greater(t, short, 5000, "zipfian: short values most often (uniform gives 1,000 of 10,000)")
		}
	}
}

func TestShardedLoad(t *testing.T) {
	var starts, counts []int64
	for i := range 3 {
		c, err := Parse(strings.Fields("load redis -p recordcount=1000 -p insertstart=100"))
		require.NoError(t, err)
		c.ShardIndex, c.Shards = i, 3
		w, err := c.Workload()
		require.NoError(t, err)
		starts, counts = append(starts, w.InsertStart), append(counts, w.InsertCount)
	}
	assert.Equal(t, []int64{100, 400, 700}, starts)
	assert.Equal(t, []int64{300, 300, 300}, counts, "recordcount 1000 - insertstart 100 = 900 records, in thirds")
}

// BenchmarkPrepare is a request's preparation (key, fields, RESP) in the
// hash group: nothing allocated per request.
func BenchmarkPrepare(b *testing.B) {
	c, err := Parse(strings.Fields("run redis -P workloads/workloada -p recordcount=1000 -p fieldlength=100"))
	require.NoError(b, err)
	wl, err := c.Workload()
	require.NoError(b, err)
	f := NewFactory(endpoint.Target{}, wl, false)
	w := &worker{f: f, rng: rand.New(rand.NewPCG(1, 1)), values: make([]byte, 4196), choose: newScrambled(0, 999)}
	w.Prepare()
	b.ReportAllocs()
	for b.Loop() {
		w.Prepare()
	}
}

func TestStatusEveryTenSeconds(t *testing.T) {
	var b bytes.Buffer
	status := Status(&b, []string{"READ", "UPDATE"})
	for s := 1; s <= 20; s++ {
		status(stats.Progress{TotalOps: int64(s) * 100, Elapsed: time.Duration(s) * time.Second,
			Interval: result.Interval{Ops: 100, Operations: []result.IntervalOperation{{Name: "READ", Ops: 60}, {Name: "UPDATE", Ops: 40}}}})
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 2, "one line per 10 s")
	assert.Regexp(t, ` 10 sec: 1000 operations; 100.00 current ops/sec; \[READ: Count=600\] \[UPDATE: Count=400\]$`, lines[0])
	assert.Regexp(t, ` 20 sec: 2000 operations; 100.00 current ops/sec; \[READ: Count=1200\] \[UPDATE: Count=800\]$`, lines[1])
}

func TestParseSLOOptions(t *testing.T) {
	c, err := Parse([]string{"run", "redis", "-P", "workloads/workloadc", "--slo=p99<2ms", "--slo-window", "3", "--slo-start=800", "-target", "100"})
	require.NoError(t, err)
	require.True(t, c.SLO.Given())
	assert.True(t, c.SLO.StartGiven())
	o, err := c.SLO.Options()
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second, o.Window)
	assert.Equal(t, 800.0, o.Start)
	assert.Equal(t, "100", c.Props["target"])

	_, err = Parse([]string{"run", "redis", "--slo-windw", "3"})
	assert.ErrorContains(t, err, `unknown option "--slo-windw"`)
	_, err = Parse([]string{"load", "redis", "--slo", "p99<2ms"})
	assert.ErrorContains(t, err, "run phase")
}

func TestPropertiesChecked(t *testing.T) {
	cases := []struct {
		args []string
		err  string
	}{
		{args: []string{"-p", "recordcout=100"}, err: `unknown property "recordcout": did you mean "recordcount"?`},
		{args: []string{"-p", "redis.prot=7000"}, err: `did you mean "redis.port"?`},
		{args: []string{"-p", "redis.prot=7000", "--allow-unknown-properties"}},
		{args: []string{"-p", "readallfields=true", "-p", "workload=site.ycsb.workloads.CoreWorkload"}},
	}
	for _, c := range cases {
		_, err := Parse(append([]string{"load", "redis", "-P", "workloads/workloada"}, c.args...))
		if c.err == "" {
			require.NoError(t, err, "%v", c.args)
			continue
		}
		require.ErrorContains(t, err, c.err, "%v", c.args)
	}
	_, err := Parse([]string{"load", "redis", "-P", "/tmp/nope/workloada"})
	require.ErrorContains(t, err, "no such file")
	file := filepath.Join(t.TempDir(), "w")
	require.NoError(t, os.WriteFile(file, []byte("recordcount=5\nfeildcount=3\n"), 0o644))
	_, err = Parse([]string{"load", "redis", "-P", file})
	require.ErrorContains(t, err, `unknown property "feildcount": did you mean "fieldcount"?`)
}

// TestCommonOptions: tairbench's own options among YCSB's words, parsed
// by the common declarations, and left out of the workload's words.
func TestCommonOptions(t *testing.T) {
	args := []string{"run", "redis", "-P", "workloads/workloada", "--timeout", "3s", "--no-server-stats", "--json=r.json",
		"--seed", "7", "--metrics-linger", "5", "-p", "recordcount=10"}
	c, err := Parse(args)
	require.NoError(t, err)
	tg, err := c.Target()
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second, tg.Timeout, "--timeout replaces redis.timeout")
	assert.Equal(t, "r.json", c.JSON)
	assert.Equal(t, uint64(7), c.Seed)
	assert.Equal(t, 5*time.Second, c.MetricsLinger)
	wl, err := c.Workload()
	require.NoError(t, err)
	spec := RunSpec(c, wl, NewFactory(tg, wl, false), tg, 1, "test", nil)
	assert.Nil(t, spec.Sampler, "--no-server-stats samples no INFO")
	assert.Equal(t, []string{"run", "redis", "-P", "workloads/workloada", "-p", "recordcount=10"}, workloadArgs(args))
	c, err = Parse([]string{"run", "redis"})
	require.NoError(t, err)
	tg, err = c.Target()
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, tg.Timeout, "redis.timeout's default, 2000 ms")
	_, err = Parse([]string{"run", "redis", "--seed", "x"})
	assert.ErrorContains(t, err, `--seed "x"`)

	// The same options as YCSB properties: -p tairbench.NAME=VALUE, or a
	// tairbench.NAME line of a -P file; they are not workload properties.
	file := filepath.Join(t.TempDir(), "w.properties")
	require.NoError(t, os.WriteFile(file, []byte("recordcount=10\ntairbench.timeout=4s\n"), 0o644))
	args = []string{"run", "redis", "-P", file, "-p", "tairbench.seed=9", "-p", "tairbench.no-server-stats=true"}
	c, err = Parse(args)
	require.NoError(t, err)
	tg, err = c.Target()
	require.NoError(t, err)
	assert.Equal(t, 4*time.Second, tg.Timeout)
	assert.Equal(t, uint64(9), c.Seed)
	assert.True(t, c.NoServerStats)
	assert.NotContains(t, c.Props, "tairbench.seed")
	assert.Equal(t, []string{"run", "redis", "-P", file}, workloadArgs(args))
	_, err = Parse([]string{"run", "redis", "-p", "tairbench.sed=9"})
	assert.ErrorContains(t, err, `property tairbench.sed: "sed" is not one of tairbench's own options (embedded, json, seed,`)
	_, err = Parse([]string{"run", "redis", "-p", "tairbench.seed=x"})
	assert.ErrorContains(t, err, `property tairbench.seed: seed "x"`)
}
