package bitmap

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/bitmaps"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/pkg/result"
)

// loadRate is how many IDs a second each structure loads and reads back,
// as measured on a 2-core machine (TR.SETBITS and SADD of 1,000 IDs
// pipelined; a Redis bitmap's time is its bytes', below).
var loadRate = map[string]float64{bitmaps.TairRoaring: 5e6, bitmaps.RedisBitmap: 2e7, bitmaps.RedisSet: 2e6}

// bitmapBytesRate is how many bytes of a Redis bitmap a second are
// written and read back (SETRANGE and GETRANGE of 4 KiB stretches).
const bitmapBytesRate = 5e8

// runStart is what each timed run costs beyond its duration: connecting,
// warming and closing its connections.
const runStart = 60 * time.Millisecond

// timeEstimate is how long the comparison will take once the points are
// generated: every timed run (its duration, runStart and its last call;
// or, for a call too slow for four per connection in the duration, four
// calls per connection one after another, as a single-threaded server
// runs them), the cross-check's calls, and every load and read-back at
// loadRate.
type timeEstimate struct {
	runs        int
	timed, load time.Duration
}

// callCost is one call's expected server time of op on structure s at
// point p, in seconds, from what a 2-core machine measured (redis-server
// 7.0 and the embedded server, 10^5 and 10^6 IDs a key): a Redis set's
// intersection about 180 ns an ID read, its union 500 ns; a Redis
// bitmap's BITOP about 2 GB/s of each key's bytes and its BITCOUNT 4 GB/s;
// TairRoaring's set operations about 5 ns an ID. Other calls are a few
// microseconds: 0 here.
func callCost(s string, op bitmaps.Op, p point) float64 {
	n := keysFor(op, p)
	ids := 0.0
	for i := 0; i < n && i < len(p.sets); i++ {
		ids += float64(p.sets[i].IDs.GetCardinality())
	}
	bytes := float64(p.universe / 8)
	union := op.Name == bitmaps.OpOrCard2 || op.Name == bitmaps.OpOrCardAll
	switch {
	case op.Keys != 1 && s == bitmaps.RedisSet && union:
		return ids * 500e-9
	case op.Keys != 1 && s == bitmaps.RedisSet:
		return ids * 180e-9
	case op.Keys != 1 && s == bitmaps.RedisBitmap:
		return float64(n) * bytes / 2e9
	case op.Keys != 1:
		return ids * 5e-9
	case s == bitmaps.RedisBitmap && (op.Name == bitmaps.OpCount || op.Name == bitmaps.OpCountRange || op.Name == bitmaps.OpRank):
		return bytes / 4e9
	}
	return 0
}

// runTime is one closed-loop run of op on s: the duration and its last
// call, or, when a call is too slow for four per connection, four calls
// per connection in turn; the cross-check's calls before it.
func (o *Options) runTime(s string, op bitmaps.Op, p point) float64 {
	c := callCost(s, op, p)
	checks := 1.0
	if op.Probe {
		checks = float64(o.Probes)
	}
	run := o.Duration.Seconds() + c
	if c*float64(4*o.Connections) > o.Duration.Seconds() {
		run = c * float64(4*o.Connections)
	}
	return run + checks*c
}

func (o *Options) estimateTime(points []point) timeEstimate {
	var e timeEstimate
	var timed float64
	for _, p := range points {
		for _, s := range o.Structures {
			ids := float64(totalIDs(p) + p.sets[0].IDs.GetCardinality()) // loaded, then key 0 read back
			sec := ids / loadRate[s]
			if s == bitmaps.RedisBitmap {
				sec += float64(len(p.sets)+1) * float64(p.universe/8) / bitmapBytesRate
			}
			e.load += time.Duration(sec * float64(time.Second))
			for _, name := range o.Ops {
				op, _ := bitmaps.OpByName(name)
				if op.Unsupported[s] != "" || keysFor(op, p) == 0 {
					continue
				}
				e.runs++
				timed += o.runTime(s, op, p) + runStart.Seconds()
				if o.Rate > 0 {
					e.runs++
					timed += o.Duration.Seconds() + runStart.Seconds()
				}
			}
		}
	}
	e.timed = time.Duration(timed * float64(time.Second))
	return e
}

func (e timeEstimate) total() time.Duration { return e.timed + e.load }

func (e timeEstimate) String() string {
	return fmt.Sprintf("about %s: %d timed runs, %s with their start-up, the cross-check and the slow calls, and loading and reading back about %s",
		harness.Round(e.total()), e.runs, harness.Round(e.timed), harness.Round(e.load))
}

// overLimit says which points a plan puts above --max-memory, each with
// the structures that fit in it together (the smallest first), and what
// would make the comparison fit; "" when every point fits.
func (o *Options) overLimit(points []point, plans [][]result.BitmapPlannedLoad) string {
	if o.MaxMemory == 0 {
		return ""
	}
	var over []string
	fitAll := slices.Clone(o.Structures)
	for i, pl := range plans {
		if planTotal(pl) <= o.MaxMemory {
			continue
		}
		sorted := slices.Clone(pl)
		slices.SortStableFunc(sorted, func(a, b result.BitmapPlannedLoad) int { return cmp.Compare(a.Bytes, b.Bytes) })
		var fit []string
		var sum uint64
		for _, l := range sorted {
			if sum+l.Bytes <= o.MaxMemory {
				fit, sum = append(fit, l.Structure), sum+l.Bytes
			}
		}
		fitAll = slices.DeleteFunc(fitAll, func(s string) bool { return !slices.Contains(fit, s) })
		what := "no structure fits alone"
		switch len(fit) {
		case 0:
		case 1:
			what = "only " + fit[0] + " fits"
		default:
			what = strings.Join(fit, " and ") + " fit together"
		}
		over = append(over, fmt.Sprintf("point %d (%d IDs below %d) would take about %s, %s", i+1, points[i].card, points[i].universe,
			bytesText(planTotal(pl)), what))
	}
	if len(over) == 0 {
		return ""
	}
	hint := "raise --max-memory, or lower the cardinality or the universe"
	if len(fitAll) > 0 {
		hint = fmt.Sprintf("give --structures %s, ", strings.Join(fitAll, ",")) + hint
	}
	return fmt.Sprintf("above --max-memory %s, nothing loaded: %s; %s", bytesText(o.MaxMemory), strings.Join(over, "; "), hint)
}

// generating says, at least once a second until done is closed, that
// points are being generated, and how long it has taken.
func generating(w io.Writer, what string, done <-chan struct{}) {
	fmt.Fprintf(w, "generating %s\n", what)
	start := time.Now()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			fmt.Fprintf(w, "  … %s so far\n", time.Since(start).Round(time.Second))
		}
	}
}
