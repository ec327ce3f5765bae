package bitmap

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	rb "github.com/RoaringBitmap/roaring/v2"

	"github.com/tairbench/tairbench/internal/driver/bitmaps"
	"github.com/tairbench/tairbench/pkg/result"
)

// keysFor is how many keys op uses at point p (0: it cannot run there).
func keysFor(op bitmaps.Op, p point) int {
	switch {
	case op.Keys == 0:
		return len(p.sets)
	case op.Keys > len(p.sets):
		return 0
	}
	return op.Keys
}

// probes draws the parameters the cross-check asks op with: IDs (half of
// them members) for membership, rank and add; ranks for kth; one 0 for
// questions with a single answer.
func probes(op bitmaps.Op, p point, n int, seed uint64) []uint64 {
	if !op.Probe {
		return []uint64{0}
	}
	rng := rand.New(rand.NewPCG(seed, 0x636865636b))
	first := p.sets[0].IDs
	card := first.GetCardinality()
	out := make([]uint64, 0, n+2)
	if op.Name == bitmaps.OpKth {
		out = append(out, 1, card)
		for len(out) < n {
			out = append(out, 1+rng.Uint64N(card))
		}
		return out
	}
	out = append(out, uint64(first.Minimum()), uint64(first.Maximum()))
	for len(out) < n {
		if len(out)%2 == 0 {
			v, _ := first.Select(uint32(rng.Uint64N(card)))
			out = append(out, uint64(v))
		} else {
			out = append(out, rng.Uint64N(p.universe))
		}
	}
	return out
}

// expect is op's answer for probe, from the client's own copy of the sets
// (add also adds probe to that copy, as the servers do).
func expect(op bitmaps.Op, p point, keys int, probe uint64) int64 {
	sets := make([]*rb.Bitmap, keys)
	for i := range sets {
		sets[i] = p.sets[i].IDs
	}
	first := sets[0]
	b := func(ok bool) int64 {
		if ok {
			return 1
		}
		return 0
	}
	switch op.Name {
	case bitmaps.OpMembership:
		return b(first.Contains(uint32(probe)))
	case bitmaps.OpCount:
		return int64(first.GetCardinality())
	case bitmaps.OpCountRange:
		lo, hi := bitmaps.MiddleHalf(p.universe)
		return int64(countIn(first, lo, hi+1))
	case bitmaps.OpRank:
		return int64(first.Rank(uint32(probe)))
	case bitmaps.OpKth:
		v, err := first.Select(uint32(probe - 1))
		if err != nil {
			return -1
		}
		return int64(v)
	case bitmaps.OpAndCard2, bitmaps.OpAndCardAll, bitmaps.OpBitopAnd:
		return int64(rb.FastAnd(sets...).GetCardinality())
	case bitmaps.OpOrCard2, bitmaps.OpOrCardAll:
		return int64(rb.FastOr(sets...).GetCardinality())
	case bitmaps.OpAdd:
		return b(!first.CheckedAdd(uint32(probe)))
	}
	return 0
}

// crosscheck asks every structure that can answer op the same probes and
// compares each answer with the client's: the first difference stops the
// comparison and is named.
//
// It also returns the longest single answer each structure took, which
// tells the timed run whether a duration is long enough.
func crosscheck(ctx context.Context, o *Options, stores map[string]*bitmaps.Store, p point, op bitmaps.Op) (result.BitmapCrosscheck, map[string]time.Duration, error) {
	cc := result.BitmapCrosscheck{Operation: op.Name}
	slowest := map[string]time.Duration{}
	keys := keysFor(op, p)
	if keys == 0 {
		return cc, slowest, nil
	}
	for _, probe := range probes(op, p, o.Probes, o.Seed) {
		cc.Probes++
		var got []string
		differs := false
		answers := map[string]int64{}
		for _, name := range o.Structures {
			if _, ok := op.Commands[name]; !ok {
				continue
			}
			start := time.Now()
			n, err := stores[name].Ask(ctx, op, keys, p.universe, probe)
			slowest[name] = max(slowest[name], time.Since(start))
			if err != nil {
				cc.Difference = err.Error()
				return cc, slowest, fmt.Errorf("cross-check of %s: %w", op.Name, err)
			}
			answers[name] = n
		}
		want := expect(op, p, keys, probe)
		for _, name := range o.Structures {
			if n, ok := answers[name]; ok {
				got = append(got, fmt.Sprintf("%s %d", name, n))
				differs = differs || n != want
			}
		}
		if differs {
			cc.Difference = fmt.Sprintf("%s with parameter %d: %s; the IDs loaded give %d", op.Name, probe, strings.Join(got, ", "), want)
			return cc, slowest, fmt.Errorf("answers differ: %s", cc.Difference)
		}
		cc.Agreed++
	}
	return cc, slowest, nil
}
