package fit

import (
	"math"
	"slices"
)

// Zipf is a Zipf law fitted to how often each key came: the key of rank r
// (1: the most frequent) comes with probability r^−Exponent / H(n), over
// the n keys seen.
type Zipf struct {
	Exponent float64
	// KS is the Kolmogorov–Smirnov distance between the keys' cumulative
	// share by rank and the law's: the largest gap, from 0 to 1.
	KS float64
}

// maxExponent bounds the search for the exponent.
const maxExponent = 8

// FitZipf fits the exponent by maximum likelihood to the counts (any
// order; zeros ignored) and measures its distance from them. The
// log-likelihood −s·Σ cᵣ ln r − N ln H(n, s) is concave in s; its
// derivative's root is found by bisection.
func FitZipf(counts []int64) Zipf {
	c := make([]int64, 0, len(counts))
	var total float64
	for _, x := range counts {
		if x > 0 {
			c = append(c, x)
			total += float64(x)
		}
	}
	if len(c) < 2 {
		return Zipf{}
	}
	slices.SortFunc(c, func(a, b int64) int { return int(min(max(b-a, -1), 1)) })
	var sumLog float64 // Σ cᵣ ln r
	for i, x := range c {
		sumLog += float64(x) * math.Log(float64(i+1))
	}
	n := len(c)
	slope := func(s float64) float64 { // the derivative of the log-likelihood over N
		var h, hl float64
		for r := 1; r <= n; r++ {
			p := math.Pow(float64(r), -s)
			h += p
			hl += p * math.Log(float64(r))
		}
		return hl/h - sumLog/total
	}
	lo, hi := 0.0, float64(maxExponent)
	if slope(lo) <= 0 { // flatter than uniform by rank: no Zipf law fits better
		hi = 0
	}
	for range 50 {
		mid := (lo + hi) / 2
		if slope(mid) > 0 { // the likelihood still rises: the root is above
			lo = mid
		} else {
			hi = mid
		}
	}
	s := (lo + hi) / 2
	return Zipf{Exponent: s, KS: zipfKS(c, total, s)}
}

// zipfKS is the largest gap between the counts' cumulative share by rank
// (c sorted, most first) and the Zipf law's of exponent s over len(c).
func zipfKS(c []int64, total, s float64) float64 {
	var h float64
	for r := 1; r <= len(c); r++ {
		h += math.Pow(float64(r), -s)
	}
	var emp, law, d float64
	for i, x := range c {
		emp += float64(x) / total
		law += math.Pow(float64(i+1), -s) / h
		d = max(d, math.Abs(emp-law))
	}
	return d
}

// KSUniform is the largest gap between the counts' cumulative share by
// rank and a uniform law's over as many keys.
func KSUniform(counts []int64) float64 {
	c := slices.Clone(counts)
	slices.SortFunc(c, func(a, b int64) int { return int(min(max(b-a, -1), 1)) })
	var total float64
	for _, x := range c {
		total += float64(x)
	}
	var emp, d float64
	for i, x := range c {
		emp += float64(x) / total
		d = max(d, math.Abs(emp-float64(i+1)/float64(len(c))))
	}
	return d
}

// Dispersion is the variance of the counts over their mean: about 1 when
// every key is drawn alike (each count then varies as a Poisson count),
// far above when some keys are drawn more than others.
func Dispersion(counts []int64) float64 {
	if len(counts) < 2 {
		return 0
	}
	var sum, sq float64
	for _, x := range counts {
		sum += float64(x)
	}
	mean := sum / float64(len(counts))
	for _, x := range counts {
		d := float64(x) - mean
		sq += d * d
	}
	return sq / float64(len(counts)-1) / mean
}
