package bitmap

import (
	"fmt"
	"io"
	"math/bits"

	rb "github.com/RoaringBitmap/roaring/v2"

	"github.com/tairbench/tairbench/internal/driver/bitmaps"
	"github.com/tairbench/tairbench/pkg/result"
)

// plan estimates what each structure will take at point p: every key plus
// a scratch key as large as the largest (set operations store into it).
func plan(p point, structures []string) []result.BitmapPlannedLoad {
	var out []result.BitmapPlannedLoad
	for _, s := range structures {
		var total, largest uint64
		for _, set := range p.sets {
			n := estimate(s, set.IDs)
			total += n
			largest = max(largest, n)
		}
		if s == bitmaps.RedisSet && len(p.sets) > 1 {
			largest = estimate(s, rb.FastOr(setsOf(p)...)) // SUNIONSTORE keeps the union
		}
		out = append(out, result.BitmapPlannedLoad{Structure: s, Bytes: total + largest, How: how[s]})
	}
	return out
}

var how = map[string]string{
	bitmaps.TairRoaring: "TR.SETBITS of 1,000 IDs, pipelined",
	bitmaps.RedisBitmap: "SETBIT of the highest ID, then SETRANGE or SETBIT per 4 KiB stretch, pipelined",
	bitmaps.RedisSet:    "SADD of 1,000 IDs, pipelined",
}

func setsOf(p point) []*rb.Bitmap {
	out := make([]*rb.Bitmap, len(p.sets))
	for i, s := range p.sets {
		out[i] = s.IDs
	}
	return out
}

// estimate is one key's expected bytes as structure s: TairRoaring's
// containers (array 2 bytes an ID up to 4,096 IDs, bitset 8 KiB) with 48
// bytes of bookkeeping each; a Redis bitmap's string up to the highest ID,
// rounded up to the allocator's size class; a Redis set as an intset
// (512 IDs or fewer) or a hash table (about 48 bytes an ID, as Redis 7
// measures).
func estimate(s string, bm *rb.Bitmap) uint64 {
	const key = 100 // the key, its object and its slot, roughly
	card := bm.GetCardinality()
	switch s {
	case bitmaps.TairRoaring:
		var n uint64
		var chunk, inChunk uint64
		it := bm.ManyIterator()
		buf := make([]uint32, 4096)
		started := false
		done := func() {
			if started {
				n += min(2*inChunk, 8192) + 48
			}
		}
		for k := it.NextMany(buf); k > 0; k = it.NextMany(buf) {
			for _, v := range buf[:k] {
				if hi := uint64(v >> 16); !started || hi != chunk {
					done()
					chunk, inChunk, started = hi, 0, true
				}
				inChunk++
			}
		}
		done()
		return n + key
	case bitmaps.RedisBitmap:
		if card == 0 {
			return key
		}
		return sizeClass(uint64(bm.Maximum())/8+1+10) + key
	}
	if card <= 512 {
		width := uint64(8)
		switch {
		case card == 0 || bm.Maximum() < 1<<15:
			width = 2
		case bm.Maximum() < 1<<31:
			width = 4
		}
		return card*width + 8 + key
	}
	return card*48 + key
}

// sizeClass rounds n up as jemalloc does past 16 bytes: four classes
// between one power of two and the next.
func sizeClass(n uint64) uint64 {
	if n <= 16 {
		return 16
	}
	k := bits.Len64(n-1) - 1 // 2^k < n ≤ 2^(k+1)
	step := uint64(1) << max(k-2, 0)
	return (n + step - 1) / step * step
}

func planTotal(pl []result.BitmapPlannedLoad) uint64 {
	var n uint64
	for _, l := range pl {
		n += l.Bytes
	}
	return n
}

// writePlan prints what a point will load before anything is sent.
func writePlan(w io.Writer, i int, p point, pl []result.BitmapPlannedLoad) {
	fmt.Fprintf(w, "plan, point %d: %d keys, %d IDs in all, IDs below %d\n", i, len(p.sets), totalIDs(p), p.universe)
	for _, l := range pl {
		fmt.Fprintf(w, "  %-13s about %9s  (%s)\n", l.Structure, bytesText(l.Bytes), l.How)
	}
}

// bytesText is n in B, KiB, MiB or GiB.
func bytesText(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
