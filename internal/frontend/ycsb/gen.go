package ycsb

import (
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// FNV-1a 64 constants, as YCSB's Utils.fnvhash64 uses them.
const (
	fnvOffset64 = 0xCBF29CE484222325
	fnvPrime64  = 1099511628211
)

// FNVHash64 is YCSB's Utils.fnvhash64: the FNV hash of the number's eight
// bytes, low byte first, made non-negative as Java's Math.abs does.
func FNVHash64(v int64) int64 {
	h := uint64(fnvOffset64)
	for range 8 {
		h ^= uint64(v & 0xff)
		v >>= 8
		h *= fnvPrime64
	}
	x := int64(h)
	if x < 0 && x != math.MinInt64 {
		x = -x
	}
	return x
}

// KeyName is YCSB's CoreWorkload.buildKeyName: "user" and the key number,
// hashed unless the insert order is "ordered", zero-padded to zeropadding digits.
func KeyName(keynum int64, ordered bool, zeroPadding int) string {
	return string(AppendKeyName(nil, keynum, ordered, zeroPadding))
}

// AppendKeyName appends KeyName's key to dst, without allocating once dst
// has room.
func AppendKeyName(dst []byte, keynum int64, ordered bool, zeroPadding int) []byte {
	if !ordered {
		keynum = FNVHash64(keynum)
	}
	dst = append(dst, "user"...)
	digits := 1
	for x := keynum; x >= 10; x /= 10 {
		digits++
	}
	for i := digits; i < zeroPadding; i++ {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, keynum, 10)
}

const zipfianConstant = 0.99

// YCSB's ScrambledZipfianGenerator draws from a zipfian over 10^10 items
// with a precomputed zeta, then hashes the value into the key range.
const (
	scrambledItemCount = 10_000_000_000
	scrambledZetan     = 26.46902820178302
)

// chooser picks key numbers for the transaction phase.
type chooser interface {
	next(r *rand.Rand) int64
}

type uniformChooser struct{ lo, hi int64 }

func (c uniformChooser) next(r *rand.Rand) int64 { return c.lo + r.Int64N(c.hi-c.lo+1) }

type scrambledChooser struct {
	min, items int64
	z          *cmdtmpl.Zipfian
}

func newScrambled(min, max int64) *scrambledChooser {
	return &scrambledChooser{min: min, items: max - min + 1,
		z: cmdtmpl.NewZipfianZeta(scrambledItemCount, zipfianConstant, scrambledZetan)}
}

func (c *scrambledChooser) next(r *rand.Rand) int64 {
	return c.min + FNVHash64(int64(c.z.Sample(r)))%c.items
}

// hotspotChooser is YCSB's HotspotIntegerGenerator: a fraction of the
// operations go to a fraction of the keys at the start of the range.
type hotspotChooser struct {
	lo, hi             int64
	hotFrac, hotOpFrac float64
}

func (c hotspotChooser) next(r *rand.Rand) int64 {
	n := c.hi - c.lo + 1
	hot := int64(float64(n) * c.hotFrac)
	if r.Float64() < c.hotOpFrac && hot > 0 {
		return c.lo + r.Int64N(hot)
	}
	if n-hot <= 0 {
		return c.lo + r.Int64N(n)
	}
	return c.lo + hot + r.Int64N(n-hot)
}

// counter is YCSB's AcknowledgedCounterGenerator, simplified: numbers are
// handed out in order and acknowledged when their insert completed;
// lastValue is the highest number below which every insert completed.
type counter struct {
	next  atomic.Int64
	mu    sync.Mutex
	acked map[int64]bool
	limit atomic.Int64 // every number below it is acknowledged
}

func newCounter(start int64) *counter {
	c := &counter{acked: map[int64]bool{}}
	c.next.Store(start)
	c.limit.Store(start)
	return c
}

func (c *counter) take() int64 { return c.next.Add(1) - 1 }

func (c *counter) acknowledge(v int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.acked[v] = true
	l := c.limit.Load()
	for c.acked[l] {
		delete(c.acked, l)
		l++
	}
	c.limit.Store(l)
}

// lastValue is the last acknowledged number in order.
func (c *counter) lastValue() int64 { return c.limit.Load() - 1 }

// latestChooser is YCSB's SkewedLatestGenerator: recent inserts are the
// most popular (max − zipfian(max)).
type latestChooser struct {
	c *counter
	z *cmdtmpl.Zipfian
}

func newLatest(c *counter) *latestChooser {
	return &latestChooser{c: c, z: cmdtmpl.NewZipfian(uint64(max(c.lastValue(), 1)), zipfianConstant)}
}

func (l *latestChooser) next(r *rand.Rand) int64 {
	m := l.c.lastValue()
	return m - int64(l.z.NextN(r.Float64(), uint64(max(m, 1))))
}
