// Package roaring is the TairRoaring whitepaper as a suite: its scenarios
// as cases with the whitepaper's commands, ranges, parallelism, batching
// and reference figures, the data they read, and TR.STAT memory sampling.
package roaring

import (
	"fmt"
	"path"
	"strings"

	"github.com/tairbench/tairbench/pkg/result"
)

// Group names.
const (
	GroupSingleRead  = "single-read"
	GroupSingleWrite = "single-write"
	GroupBatch       = "batch"
	GroupMultiKey    = "multi-key"
	GroupSetOps      = "set-ops"
	GroupCluster     = "cluster"
)

// Reference is the whitepaper's figure for a case (see result.Reference).
type Reference = result.Reference

// ref is a reference figure: rate (QPS or bits/s), latency and table.
func ref(rate, latencyMS float64, table string) Reference {
	return Reference{Rate: rate, LatencyMS: latencyMS, Table: table}
}

// Case is one scenario (see result.RoaringCase).
type Case = result.RoaringCase

// Data sets loaded before the cases that read them.
const (
	// LoadSingle fills key "foo" with 1,000,000 random offsets below 10^7.
	LoadSingle = "single-key"
	// LoadMany gives each of foo-0 … foo-99999 the run [0, 999999].
	LoadMany = "many-keys"
	// LoadSetOps fills the set operations' keys sop-0 … sop-31 in the
	// shape CaseOptions.SetOpData names (SetOpRandom by default).
	LoadSetOps = "set-op-keys"
)

// The set operations' data shapes (tairbench roaring --setop-data).
const (
	// SetOpRandom gives each key random offsets below 10^7 at the
	// density the whitepaper states for its one described random load
	// (the single key: 10^6 offsets, about 9.5% of the range set).
	SetOpRandom = "random"
	// SetOpRuns gives each key the one run [0, 999999] (as the many-key
	// cases' keys): a few containers, so an operation costs almost
	// nothing. Known not to match the whitepaper's costs: its cases print
	// "data differs" instead of a ratio.
	SetOpRuns = "runs"
	// setOpKeys is how many keys the set operations draw from.
	setOpKeys = 32
)

const (
	tenMillion = 10_000_000
	hundredK   = 100_000
)

func rands(n int, ph string) string { return strings.TrimSpace(strings.Repeat(ph+" ", n)) }

// ordered returns 100 ascending offsets sharing one drawn block:
// 1B00 … 1B99 for a block B of __RAND3__ (the leading 1 avoids a leading zero).
func ordered() string {
	var b strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, " 1__RAND3{b}__%02d", i)
	}
	return b.String()[1:]
}

// bitArray is 1000 characters with 500 ones.
var bitArray = strings.Repeat("10", 500)

// Cases returns the whole suite in the whitepaper's order.
func Cases() []Case {
	var cs []Case
	add := func(c Case) {
		if c.Parallel == 0 {
			c.Parallel = 20
		}
		cs = append(cs, c)
	}
	const t1, t2, t3, t4, t5, t7, t8, t9 = "TairRoaring-1 (single key, reads)", "TairRoaring-2 (single key, writes)",
		"TairRoaring-3 (batch TR.SETBIT)", "TairRoaring-4 (batch TR.GETBIT)", "TairRoaring-5 (many keys)",
		"TairRoaring-7 (TR.BITOP)", "TairRoaring-8 (TR.BITOPCARD)", "TairRoaring-9 (cluster, 2 shards)"

	// Single key, reads: key foo, offsets below 10^7.
	add(Case{ID: "getbit", Group: GroupSingleRead, Command: "TR.GETBIT", Template: "TR.GETBIT foo __RAND__", R1: tenMillion,
		Keys: "1", Items: "1", ArgRange: "0~10^7", Load: LoadSingle, Ref: ref(255000, 0.21, t1)})
	add(Case{ID: "getbits", Group: GroupSingleRead, Command: "TR.GETBITS", Template: "TR.GETBITS foo " + rands(100, "__RAND__"),
		R1: tenMillion, Keys: "1", Items: "100", ArgRange: "0~10^7", Load: LoadSingle, Ref: ref(54000, 0.97, t1)})
	add(Case{ID: "rank", Group: GroupSingleRead, Command: "TR.RANK", Template: "TR.RANK foo __RAND__", R1: tenMillion,
		Keys: "1", Items: "1", ArgRange: "0~10^7", Load: LoadSingle, Ref: ref(161000, 0.24, t1)})
	add(Case{ID: "range", Group: GroupSingleRead, Command: "TR.RANGE", Template: "TR.RANGE foo 0 100", R1: 1,
		Keys: "1", Items: "100", ArgRange: "0~100", Load: LoadSingle, Ref: ref(129000, 0.46, t1)})
	add(Case{ID: "scan", Group: GroupSingleRead, Command: "TR.SCAN", Template: "TR.SCAN foo __RAND__ COUNT 100", R1: tenMillion,
		Keys: "1", Items: "100", ArgRange: "0~10^7", Load: LoadSingle, Ref: ref(130000, 0.38, t1)})

	// Single key, writes.
	add(Case{ID: "setbit", Group: GroupSingleWrite, Command: "TR.SETBIT", Template: "TR.SETBIT foo __RAND__ 1", R1: tenMillion,
		Keys: "1", Items: "1", ArgRange: "0~10^7", Ref: ref(145000, 0.37, t2)})
	add(Case{ID: "setbits", Group: GroupSingleWrite, Command: "TR.SETBITS", Template: "TR.SETBITS foo " + rands(100, "__RAND__"),
		R1: tenMillion, Keys: "1", Items: "100", ArgRange: "0~10^7", Ref: ref(22000, 0.71, t2)})
	add(Case{ID: "setbits-ordered", Group: GroupSingleWrite, Command: "TR.SETBITS (ordered)", Template: "TR.SETBITS foo " + ordered(),
		R1: 1, R3: 6000, Keys: "1", Items: "100", ArgRange: "6000 blocks", Ref: ref(28000, 0.66, t2),
		Note: "100 ascending offsets 1B00…1B99 in a block B drawn from 6000"})
	add(Case{ID: "appendbitarray", Group: GroupSingleWrite, Command: "TR.APPENDBITARRAY", Template: "TR.APPENDBITARRAY foo __RAND__ " + bitArray,
		R1: tenMillion, Keys: "1", Items: "1000 (500 ones)", ArgRange: "0~10^7", Ref: ref(10000, 0.38, t2)})
	add(Case{ID: "setrange", Group: GroupSingleWrite, Command: "TR.SETRANGE", Template: "TR.SETRANGE foo 1__RAND{s}__000 1__RAND{s}__999",
		R1: 10_000, Keys: "1", Items: "-", ArgRange: "1000 bits", Ref: ref(130000, 0.30, t2),
		Note: "ranges of 1000 bits, 1B000…1B999 for a block B below 10^4"})
	add(Case{ID: "fliprange", Group: GroupSingleWrite, Command: "TR.FLIPRANGE", Template: "TR.FLIPRANGE foo 1__RAND{f}__00 1__RAND{f}__99",
		R1: hundredK, Keys: "1", Items: "-", ArgRange: "100 bits <2x10^7", Ref: ref(100000, 0.46, t2),
		Note: "ranges of 100 bits, 1B00…1B99 for a block B below 10^5"})

	// Batches (MULTI/EXEC): the whitepaper's parallel × batching grid.
	type grid struct {
		p, b    int
		bps, ms float64
	}
	for _, g := range []grid{{20, 10, 460000, 0.42}, {10, 50, 665000, 0.72}, {6, 100, 660000, 0.85}, {3, 200, 680000, 0.79}, {3, 500, 681500, 1.96}, {2, 100, 658000, 2.6}} {
		add(Case{ID: fmt.Sprintf("setbit-p%d-b%d", g.p, g.b), Group: GroupBatch, Command: "TR.SETBIT", Template: "TR.SETBIT foo __RAND__ 1",
			R1: tenMillion, Parallel: g.p, Batching: g.b, Keys: "1", Items: "1", ArgRange: "0~10^7", Ref: ref(g.bps, g.ms, t3),
			Note: "the whitepaper prints TR.SETBIT foo-__RAND__ 1, which lacks the value argument"})
	}
	for _, g := range []grid{{20, 10, 572700, 0.34}, {10, 50, 725900, 0.65}, {7, 100, 772000, 0.85}, {7, 200, 788800, 1.67}, {5, 500, 746000, 3.1}, {2, 100, 770000, 2.1}} {
		add(Case{ID: fmt.Sprintf("getbit-p%d-b%d", g.p, g.b), Group: GroupBatch, Command: "TR.GETBIT", Template: "TR.GETBIT foo-__RAND__ __RAND2__",
			R1: hundredK, R2: tenMillion, Parallel: g.p, Batching: g.b, Keys: "10^5", Items: "1", ArgRange: "0~10^7", Load: LoadMany,
			Ref: ref(g.bps, g.ms, t4)})
	}

	// Many keys (10^5).
	mk := func(id, cmd, tmpl, items string, load string, ref Reference) {
		add(Case{ID: id, Group: GroupMultiKey, Command: cmd, Template: tmpl, R1: tenMillion, R2: hundredK,
			Keys: "10^5", Items: items, ArgRange: "0~10^7", Load: load, Ref: ref})
	}
	mk("getbit", "TR.GETBIT", "TR.GETBIT foo-__RAND2__ __RAND__", "1", LoadMany, ref(154941, 0.32, t5))
	mk("getbits", "TR.GETBITS", "TR.GETBITS foo-__RAND2__ "+rands(100, "__RAND__"), "100", LoadMany, ref(40166, 1.08, t5))
	mk("scan", "TR.SCAN", "TR.SCAN foo-__RAND2__ __RAND__ COUNT 100", "100", LoadMany, ref(104637, 0.47, t5))
	mk("rank", "TR.RANK", "TR.RANK foo-__RAND2__ __RAND__", "-", LoadMany, ref(151161, 0.32, t5))
	mk("setbit", "TR.SETBIT", "TR.SETBIT foo-__RAND2__ __RAND__ 1", "1", LoadMany, ref(91003, 0.43, t5))
	mk("setbits", "TR.SETBITS", "TR.SETBITS foo-__RAND2__ "+rands(100, "__RAND__"), "100", LoadMany, ref(15127, 0.96, t5))

	// Set operations over the loaded keys.
	for _, op := range []struct {
		name    string
		p       int
		qps, ms float64
	}{{"AND", 3, 940, 3.18}, {"OR", 2, 595, 3.45}, {"XOR", 2, 551, 3.61}, {"DIFF", 3, 3577, 0.83}, {"NOT", 1, 1281, 0.77}} {
		src := "sop-__RAND__ sop-__RAND__"
		if op.name == "NOT" {
			src = "sop-__RAND__"
		}
		add(Case{ID: "bitop-" + strings.ToLower(op.name), Group: GroupSetOps, Command: "TR.BITOP " + op.name,
			Template: "TR.BITOP dest-__RAND__ " + op.name + " " + src, R1: setOpKeys, Parallel: op.p,
			Keys: "10^5", Items: "-", ArgRange: "-", Load: LoadSetOps, Ref: ref(op.qps, op.ms, t7)})
	}
	for _, op := range []struct {
		name    string
		qps, ms float64
	}{{"AND", 971, 2.05}, {"OR", 609, 3.27}, {"XOR", 572, 3.48}, {"DIFF", 4290, 0.46}, {"NOT", 3577, 0.55}} {
		src := "sop-__RAND__ sop-__RAND__"
		if op.name == "NOT" {
			src = "sop-__RAND__"
		}
		add(Case{ID: "bitopcard-" + strings.ToLower(op.name), Group: GroupSetOps, Command: "TR.BITOPCARD " + op.name,
			Template: "TR.BITOPCARD " + op.name + " " + src, R1: setOpKeys, Parallel: 2,
			Keys: "10^5", Items: "-", ArgRange: "-", Load: LoadSetOps, Ref: ref(op.qps, op.ms, t8)})
	}

	// Cluster: through the cluster client (slot-aware routing).
	cl := func(id, cmd, tmpl, items string, qps float64) {
		add(Case{ID: id, Group: GroupCluster, Command: cmd, Template: tmpl, R1: hundredK, R2: tenMillion, Keys: "10^5",
			Items: items, ArgRange: "0~10^7", Load: LoadMany, Ref: ref(qps, 0, t9), Cluster: true})
	}
	cl("getbit", "TR.GETBIT", "TR.GETBIT foo-__RAND__ __RAND2__", "1", 590742)
	cl("getbits", "TR.GETBITS", "TR.GETBITS foo-__RAND__ "+rands(100, "__RAND2__"), "100", 53900)
	cl("setbit", "TR.SETBIT", "TR.SETBIT foo-__RAND__ __RAND2__ 1", "1", 316753)
	cl("setbits", "TR.SETBITS", "TR.SETBITS foo-__RAND__ "+rands(100, "__RAND2__"), "100", 31917)

	for i := range cs {
		cs[i].ID = cs[i].Group + "/" + cs[i].ID
	}
	return cs
}

// Filter returns the cases whose ID matches one of the comma-separated
// patterns: a case ID ("single-read/getbit" is that case alone), a glob
// ("batch/*", "*/getbit*") or a plain substring ("bitop").
// An empty filter matches every case; a pattern that matches nothing is an error.
func Filter(cases []Case, filter string) ([]Case, error) {
	filter = strings.TrimSpace(filter)
	if filter == "" || filter == "all" {
		return cases, nil
	}
	var pats []string
	for _, p := range strings.Split(filter, ",") {
		if p = strings.ToLower(strings.TrimSpace(p)); p != "" {
			pats = append(pats, p)
		}
	}
	ids := map[string]bool{}
	for _, c := range cases {
		ids[c.ID] = true
	}
	matched := map[string]bool{}
	var out []Case
	for _, c := range cases {
		for _, p := range pats {
			ok, err := path.Match(p, c.ID)
			if err != nil {
				return nil, fmt.Errorf("bad case pattern %q: %w", p, err)
			}
			if ok || (!ids[p] && !strings.ContainsAny(p, "*?[") && strings.Contains(c.ID, p)) {
				matched[p] = true
				out = append(out, c)
				break
			}
		}
	}
	for _, p := range pats {
		if !matched[p] {
			return nil, fmt.Errorf("no case matches %q (see 'tairbench roaring --list')", p)
		}
	}
	return out, nil
}
