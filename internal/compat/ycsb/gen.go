package ycsb

import (
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
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
	if !ordered {
		keynum = FNVHash64(keynum)
	}
	v := strconv.FormatInt(keynum, 10)
	b := make([]byte, 0, 4+max(zeroPadding, len(v)))
	b = append(b, "user"...)
	for i := len(v); i < zeroPadding; i++ {
		b = append(b, '0')
	}
	return string(append(b, v...))
}

// zipfian is YCSB's ZipfianGenerator (Gray et al.) over [base, base+items).
// It is not safe for concurrent use: each worker has its own.
type zipfian struct {
	base                     int64
	items                    int64
	theta, alpha, zetan, eta float64
	zeta2theta, countForZeta float64
}

const zipfianConstant = 0.99

func zetaStatic(n int64, theta float64) float64 {
	var sum float64
	for i := int64(0); i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

func newZipfian(base, items int64, theta, zetan float64) *zipfian {
	z := &zipfian{base: base, items: items, theta: theta}
	z.zeta2theta = zetaStatic(2, theta)
	z.alpha = 1 / (1 - theta)
	if zetan == 0 {
		zetan = zetaStatic(items, theta)
	}
	z.zetan = zetan
	z.countForZeta = float64(items)
	z.eta = (1 - math.Pow(2/float64(items), 1-theta)) / (1 - z.zeta2theta/z.zetan)
	return z
}

// next draws one value with uniform u in [0, 1), for item count n.
func (z *zipfian) next(u float64, n int64) int64 {
	if float64(n) != z.countForZeta {
		if float64(n) > z.countForZeta {
			// Incremental, as YCSB does for a growing item count.
			for i := int64(z.countForZeta); i < n; i++ {
				z.zetan += 1 / math.Pow(float64(i+1), z.theta)
			}
		} else {
			z.zetan = zetaStatic(n, z.theta)
		}
		z.countForZeta = float64(n)
		z.eta = (1 - math.Pow(2/float64(n), 1-z.theta)) / (1 - z.zeta2theta/z.zetan)
	}
	zetan, eta := z.zetan, z.eta
	uz := u * zetan
	if uz < 1 {
		return z.base
	}
	if uz < 1+math.Pow(0.5, z.theta) {
		return z.base + 1
	}
	return z.base + int64(float64(n)*math.Pow(eta*u-eta+1, z.alpha))
}

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
	z          *zipfian
}

func newScrambled(min, max int64) *scrambledChooser {
	return &scrambledChooser{min: min, items: max - min + 1,
		z: newZipfian(0, scrambledItemCount, zipfianConstant, scrambledZetan)}
}

func (c *scrambledChooser) next(r *rand.Rand) int64 {
	v := c.z.next(r.Float64(), scrambledItemCount)
	return c.min + FNVHash64(v)%c.items
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
	z *zipfian
}

func newLatest(c *counter) *latestChooser {
	return &latestChooser{c: c, z: newZipfian(0, max(c.lastValue(), 1), zipfianConstant, 0)}
}

func (l *latestChooser) next(r *rand.Rand) int64 {
	m := l.c.lastValue()
	return m - l.z.next(r.Float64(), max(m, 1))
}
