package roaring

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/result"
)

func embedded(t *testing.T) (*server.Server, endpoint.Target) {
	t.Helper()
	s, err := server.Start(server.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, endpoint.Target{Addr: s.Addr(), Timeout: 5 * time.Second, InProcess: true}
}

func do(t *testing.T, tg endpoint.Target, args ...string) string {
	t.Helper()
	c, err := transport.Dial(context.Background(), tg)
	require.NoError(t, err)
	defer c.Close()
	s, err := c.DoString(args...)
	if err != nil {
		// Integer and array replies: fall back to the summary.
		rep, err2 := c.Do(args...)
		require.NoError(t, err2)
		return strconv.FormatInt(rep.Int, 10)
	}
	return s
}

// commandCalls reads INFO commandstats into name → calls.
func commandCalls(t *testing.T, tg endpoint.Target) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, l := range strings.Split(do(t, tg, "INFO", "commandstats"), "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(l), ":calls=")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.Split(rest, ",")[0], 10, 64)
		out[strings.TrimPrefix(name, "cmdstat_")] = n
	}
	return out
}

func cmdName(c Case) string {
	return strings.ToLower(strings.Fields(c.Template)[0])
}

// TestEveryCaseAgainstEmbeddedServer runs each case briefly and checks what
// the server saw: the case's command count, MULTI/EXEC per batch, and data
// where the reads look.
func TestEveryCaseAgainstEmbeddedServer(t *testing.T) {
	_, tg := embedded(t)
	var before []map[string]int64
	// The set operations on one-run keys: this test counts commands, and
	// TestSetOperationData checks the random keys.
	suite, err := RunCases(context.Background(), CaseOptions{
		Target: tg, CaseDuration: 150 * time.Millisecond, Cases: Cases(), Seed: 42, Flush: true, SetOpData: SetOpRuns,
		BeforeCase: func(Case) { before = append(before, commandCalls(t, tg)) },
	})
	require.NoError(t, err)
	require.Len(t, suite.Cases, len(Cases()))
	after := append(before[1:], commandCalls(t, tg))
	// A load that ran before case i+1 counts in case i's "after": take it out.
	loads := map[string]Load{}
	for _, l := range suite.Loads {
		loads[l.Name] = l
	}
	seen := map[string]bool{}
	for i, cr := range suite.Cases {
		if l := cr.Case.Load; l != "" && !seen[l] {
			seen[l] = true
			if i > 0 {
				after[i-1][strings.ToLower(strings.Fields(loads[l].Template)[0])] -= loads[l].Commands
			}
		}
	}
	for i, cr := range suite.Cases {
		c := cr.Case
		t.Run(c.ID, func(t *testing.T) {
			tot := cr.Run.Totals
			assert.Zero(t, tot.Errors, "errors: %v", cr.Run.Errors)
			// A slow case (TR.BITOP NOT builds a 9 M-bit result) on a loaded
			// machine may finish its first request after the short deadline:
			// it then counts as late, not as measured.
			assert.Positive(t, tot.Ops+tot.AfterDeadlineOps)
			name := cmdName(c)
			assert.Equal(t, tot.Ops+tot.AfterDeadlineOps, after[i][name]-before[i][name], "the server saw every %s", name)
			if c.Batching > 0 {
				late := tot.AfterDeadlineOps / int64(c.Batching)
				assert.Equal(t, tot.Requests+late, after[i]["exec"]-before[i]["exec"], "one EXEC per batch")
				assert.Equal(t, tot.Ops, tot.Requests*int64(c.Batching))
			} else {
				assert.Zero(t, after[i]["exec"]-before[i]["exec"])
			}
			if tot.Ops > 0 {
				assert.Greater(t, cr.Rate, 0.0)
				assert.True(t, cr.Ratio > 0 || cr.DataDiffers != "", "a ratio, or why there is none")
			}
		})
	}
	require.Len(t, suite.Loads, 3)
	assert.Equal(t, int64(10_000), suite.Loads[0].Commands)
	assert.Equal(t, int64(100_000), suite.Loads[1].Commands)
	assert.Equal(t, int64(setOpKeys), suite.Loads[2].Commands, "the set operations' one-run keys")
}

// TestLoadedDataIsWhereReadsLook checks the density the read cases see.
func TestLoadedDataIsWhereReadsLook(t *testing.T) {
	_, tg := embedded(t)
	byID := map[string]Case{}
	for _, c := range Cases() {
		byID[c.ID] = c
	}
	cases := []Case{byID["single-read/getbit"], byID["multi-key/getbit"]}
	_, err := RunCases(context.Background(), CaseOptions{Target: tg, CaseDuration: 50 * time.Millisecond, Cases: cases[:1], Seed: 1, Flush: true})
	require.NoError(t, err)
	card, err := strconv.Atoi(do(t, tg, "TR.BITCOUNT", "foo"))
	require.NoError(t, err)
	// 10^6 draws over 10^7 offsets: about 951,626 distinct.
	assert.InDelta(t, 951_626, card, 3000)
	// A GETBIT at a random offset reads a one about 9.5% of the time.
	ones := 0
	for i := 0; i < 2000; i++ {
		if do(t, tg, "TR.GETBIT", "foo", strconv.Itoa((i*7919*1013)%10_000_000)) == "1" {
			ones++
		}
	}
	assert.InDelta(t, 0.095, float64(ones)/2000, 0.025)
	_, err = RunCases(context.Background(), CaseOptions{Target: tg, CaseDuration: 50 * time.Millisecond, Cases: cases[1:], Seed: 1})
	require.NoError(t, err)
	keys, err := strconv.Atoi(do(t, tg, "DBSIZE"))
	require.NoError(t, err)
	assert.Equal(t, 100_001, keys, "foo and foo-0 … foo-99999")
	assert.Equal(t, "1000000", do(t, tg, "TR.BITCOUNT", "foo-99999"))
}

func TestFilter(t *testing.T) {
	all := Cases()
	tests := []struct {
		filter string
		want   int
		first  string
		err    string
	}{
		{"", len(all), "single-read/getbit", ""},
		{"all", len(all), "single-read/getbit", ""},
		{"batch/*", 12, "batch/setbit-p20-b10", ""},
		{"bitopcard", 5, "set-ops/bitopcard-and", ""},
		{"single-read/getbit, cluster/*", 5, "single-read/getbit", ""},
		{"single-read/getbi", 2, "single-read/getbit", ""},
		{"*/getbits", 3, "single-read/getbits", ""},
		{"nothing-like-this", 0, "", "no case matches"},
		{"[", 0, "", "bad case pattern"},
	}
	for _, tc := range tests {
		t.Run(tc.filter, func(t *testing.T) {
			got, err := Filter(all, tc.filter)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, got, tc.want)
			assert.Equal(t, tc.first, got[0].ID)
		})
	}
}

func TestCasesAreWellFormed(t *testing.T) {
	seen, seeds := map[string]bool{}, map[uint64]bool{}
	for _, c := range Cases() {
		assert.False(t, seen[c.ID], "duplicate %s", c.ID)
		seen[c.ID] = true
		var opts cmdtmpl.Options
		opts.Ranges[1], opts.Ranges[2], opts.Ranges[3] = rangeT{Max: max(c.R1, 1)}, rangeT{Max: max(c.R2, 1)}, rangeT{Max: max(c.R3, 1)}
		_, err := redis.TemplateSpec{Template: c.Template, Options: opts, Batching: c.Batching}.Workload()
		assert.NoError(t, err, c.ID)
		assert.False(t, seeds[CaseSeed(7, c.ID)], "seed of %s repeats", c.ID)
		seeds[CaseSeed(7, c.ID)] = true
		assert.Greater(t, c.Ref.Rate, 0.0, c.ID)
		assert.Greater(t, c.Parallel, 0, c.ID)
	}
	assert.Len(t, Cases(), 43)
}

func TestTableGolden(t *testing.T) {
	cases, err := Filter(Cases(), "single-read/getbit,single-write/setrange,batch/setbit-p20-b10,cluster/getbit")
	require.NoError(t, err)
	s := &Suite{Loads: []Load{{Name: LoadSingle, Description: "key foo", Commands: 10000, Seconds: 0.5, PerSecond: 20000}}}
	for i, c := range cases {
		run := &result.Run{Totals: result.Totals{Ops: 1000 * int64(i+1)}}
		if i == 1 {
			run.Totals.Errors, run.Totals.ErrorRate = 1000, 0.5
		}
		rate := 100000.0 * float64(i+1)
		s.Cases = append(s.Cases, CaseResult{Case: c, Run: run, Rate: rate, LatencyMS: 0.2 * float64(i+1), P99MS: float64(i + 1),
			Ratio: rate / c.Ref.Rate})
	}
	s.Warnings = []string{"single-write/setrange: 50.0% of commands failed"}
	var b bytes.Buffer
	require.NoError(t, WriteTables(&b, s, "label"))
	testenv.Golden(t, "tables.txt", b.Bytes())
}

func TestParseStat(t *testing.T) {
	st := "cardinality: 9\r\nnumber of containers: 1\r\nmax value: 9\r\nmin value: 1\r\nsum value: 45\r\n" +
		"number of array containers: 0\r\n\tarray container values: 0\r\n\tarray container bytes: 0\r\n" +
		"number of bitset containers: 0\r\n\tbitset container values: 0\r\n\tbitset container bytes: 0\r\n" +
		"number of run containers: 1\r\n\trun container values: 9\r\n\trun container bytes: 6\r\n"
	f, err := ParseStat(st)
	require.NoError(t, err)
	assert.Equal(t, StatFields{Cardinality: 9, Containers: 1, MaxValue: 9, MinValue: 1, SumValue: 45, RunContainers: 1, RunValues: 9, RunBytes: 6}, f)
	assert.Equal(t, uint64(6), f.Bytes())
	for _, bad := range []string{"", "cardinality: x\r\n", "garbage\r\n", strings.Replace(st, "sum value: 45\r\n", "", 1)} {
		_, err := ParseStat(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add("cardinality: 9\r\nnumber of containers: 1\r\n")
	f.Add("\tarray container values: 0\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseStat(s)
	})
}

func TestStatSamplingFollowsContainerRules(t *testing.T) {
	_, tg := embedded(t)
	tables, err := SampleStat(context.Background(), StatOptions{Target: tg, Distributions: []string{DistSparse, DistRandom, DistRuns},
		MaxCard: 200_000, Steps: 3, Universe: 1 << 20, RunLength: 500, Seed: 3})
	require.NoError(t, err)
	require.Len(t, tables, 3)
	for _, tb := range tables {
		require.Empty(t, tb.Error, tb.Distribution)
		require.Len(t, tb.Rows, 3, tb.Distribution)
		for _, r := range tb.Rows {
			assert.Equal(t, r.Predicted, r.HeapBytes, "%s at %d: TR.STAT bytes follow the container rules", tb.Distribution, r.Cardinality)
			assert.Greater(t, r.UsedMemoryDelta, int64(0))
		}
	}
	// 16 chunks of 2^16 offsets.
	sparse, random, runs := tables[0].Rows, tables[1].Rows, tables[2].Rows
	for _, r := range sparse {
		assert.Equal(t, uint64(16), r.ArrayC, "sparse: arrays only")
		assert.Zero(t, r.BitsetC+r.RunC)
		assert.Equal(t, 2*r.Cardinality, r.HeapBytes)
	}
	assert.LessOrEqual(t, sparse[2].Cardinality, uint64(float64(1<<20)*0.0625))
	last := random[2]
	assert.Equal(t, uint64(200_000), last.Cardinality)
	assert.Equal(t, uint64(16), last.BitsetC, "12,500 values a chunk: bitsets")
	assert.Equal(t, uint64(16*8192), last.HeapBytes)
	for _, r := range runs {
		assert.Greater(t, r.RunC, uint64(0), "runs: run containers after TR.OPTIMIZE")
		assert.Less(t, r.BytesPerBit, 0.1)
	}
	var b bytes.Buffer
	require.NoError(t, WriteStatTables(&b, tables))
	assert.Contains(t, b.String(), "TR.STAT memory, sparse")
}

func TestStatStepFailureKeepsRows(t *testing.T) {
	s, tg := embedded(t)
	ctx, cancel := context.WithCancel(context.Background())
	steps := 0
	var log bytes.Buffer
	o := StatOptions{Target: tg, Distributions: []string{DistRandom}, MaxCard: 50_000, Steps: 5, Universe: 1 << 20, Seed: 1,
		Log: writerFunc(func(p []byte) {
			log.Write(p)
			if strings.Contains(string(p), "step") {
				steps++
				if steps == 2 {
					_ = s.Close() // the server goes away after two steps
				}
			}
		})}
	tables, err := SampleStat(ctx, o)
	cancel()
	_ = err
	require.Len(t, tables, 1)
	assert.Len(t, tables[0].Rows, 2, "the measured rows are kept")
	assert.NotEmpty(t, tables[0].Error)
	var b bytes.Buffer
	require.NoError(t, WriteStatTables(&b, tables))
	assert.Contains(t, b.String(), "sampling stopped")
	fmt.Fprint(&b, log.String())
}

type rangeT = cmdtmpl.Range

type writerFunc func(p []byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// TestSetOperationData: the default shape gives every set-operation key
// random offsets at the single key's density and the cases a ratio; the
// runs shape, known not to cost what the whitepaper measured, prints
// "data differs" and no ratio.
func TestSetOperationData(t *testing.T) {
	_, tg := embedded(t)
	cs, err := Filter(Cases(), "*/bitop-and")
	require.NoError(t, err)
	require.Len(t, cs, 1)
	and := cs[0]
	s, err := RunCases(context.Background(), CaseOptions{Target: tg, CaseDuration: 100 * time.Millisecond, Cases: []Case{and}, Seed: 1, Flush: true})
	require.NoError(t, err)
	assert.Equal(t, SetOpRandom, s.Config.SetOpData)
	assert.Positive(t, s.Cases[0].Ratio)
	assert.Empty(t, s.Cases[0].DataDiffers)
	for _, key := range []string{"sop-0", "sop-31"} {
		card, err := strconv.Atoi(do(t, tg, "TR.BITCOUNT", key))
		require.NoError(t, err)
		// 950,000 draws over 10^7 offsets: about 906,000 distinct.
		assert.InDelta(t, 906_300, card, 4000, key)
	}

	s, err = RunCases(context.Background(), CaseOptions{Target: tg, CaseDuration: 100 * time.Millisecond, Cases: []Case{and}, Seed: 1,
		Flush: true, SetOpData: SetOpRuns})
	require.NoError(t, err)
	assert.Zero(t, s.Cases[0].Ratio)
	assert.Contains(t, s.Cases[0].DataDiffers, "not the whitepaper's data")
	assert.Equal(t, "1000000", do(t, tg, "TR.BITCOUNT", "sop-7"))
	var b strings.Builder
	require.NoError(t, WriteTables(&b, s, "test"))
	assert.Contains(t, b.String(), "data differs")

	_, err = RunCases(context.Background(), CaseOptions{Target: tg, CaseDuration: 100 * time.Millisecond, Cases: []Case{and}, SetOpData: "dense"})
	assert.ErrorContains(t, err, `unknown set-operation data "dense"`)
}
