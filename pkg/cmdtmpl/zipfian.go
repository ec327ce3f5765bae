package cmdtmpl

// Zipfian and Zeta below are the request distribution that the command
// templates and the YCSB front-end share.

import (
	"math"
	"math/rand/v2"
)

// Zipfian is YCSB's zipfian generator (Gray et al., "Quickly generating
// billion-record synthetic databases") over [0, n): 0 is the most popular.
// The item count may grow (NextN), as YCSB's latest distribution needs; the
// zeta constant is then extended term by term. A Zipfian is not safe for
// concurrent use.
type Zipfian struct {
	n                        uint64
	theta, alpha, zetan, eta float64
	zeta2, half              float64
}

// exactTerms is how many zeta terms are summed one by one; beyond them the
// Euler–Maclaurin tail approximates the sum.
const exactTerms = 1 << 20

// Zeta is the sum of 1/i^theta for i from 1 to n.
func Zeta(n uint64, theta float64) float64 {
	m := min(n, exactTerms)
	var sum float64
	for i := uint64(1); i <= m; i++ {
		sum += 1 / math.Pow(float64(i), theta)
	}
	if n > m {
		a, b := float64(m), float64(n)
		sum += (math.Pow(b, 1-theta)-math.Pow(a, 1-theta))/(1-theta) + (math.Pow(b, -theta)-math.Pow(a, -theta))/2
	}
	return sum
}

// NewZipfian returns a zipfian over n items with constant theta (0: YCSB's 0.99).
func NewZipfian(n uint64, theta float64) *Zipfian {
	if theta == 0 {
		theta = 0.99
	}
	return NewZipfianZeta(n, theta, Zeta(n, theta))
}

// NewZipfianZeta is NewZipfian with zeta(n) given, as YCSB's scrambled
// zipfian gives it for its 10^10 items.
func NewZipfianZeta(n uint64, theta, zetan float64) *Zipfian {
	z := &Zipfian{n: max(n, 1), theta: theta, zetan: zetan, zeta2: Zeta(2, theta), alpha: 1 / (1 - theta),
		half: 1 + math.Pow(0.5, theta)}
	z.setEta()
	return z
}

func (z *Zipfian) setEta() {
	z.eta = (1 - math.Pow(2/float64(z.n), 1-z.theta)) / (1 - z.zeta2/z.zetan)
}

// Next draws a value in [0, n) from uniform u in [0, 1).
func (z *Zipfian) Next(u float64) uint64 {
	uz := u * z.zetan
	if uz < 1 || z.n == 1 {
		return 0
	}
	if uz < z.half {
		return 1
	}
	return min(uint64(float64(z.n)*math.Pow(z.eta*u-z.eta+1, z.alpha)), z.n-1)
}

// Sample draws a value with r.
func (z *Zipfian) Sample(r *rand.Rand) uint64 { return z.Next(r.Float64()) }

// NextN draws over n items, growing (or recomputing) zeta first when n
// changed, as YCSB's nextLong(itemcount) does.
func (z *Zipfian) NextN(u float64, n uint64) uint64 {
	n = max(n, 1)
	if n != z.n {
		if n > z.n && n <= exactTerms {
			for i := z.n; i < n; i++ {
				z.zetan += 1 / math.Pow(float64(i+1), z.theta)
			}
		} else {
			z.zetan = Zeta(n, z.theta)
		}
		z.n = n
		z.setEta()
	}
	return z.Next(u)
}
