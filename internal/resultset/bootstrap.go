package resultset

import "math"

// SecondsTest is the two-sided p-value that two runs' per-second series
// have different means, with the seconds' autocorrelation taken into
// account: a run's speed drifts (a busy minute on a shared machine makes
// many slow seconds in a row), so its seconds are not independent
// samples. Each series' lag-1 autocorrelation ρ (bias-corrected, as an
// AR(1) process's) inflates the variance of its mean by (1+ρ)/(1−ρ) and
// shrinks its effective number of seconds by the same factor (to no fewer
// than two, where Student's t with one degree of freedom asks for a very
// large difference); Welch's t test then runs on those. It returns NaN
// for a series of fewer than three seconds.
func SecondsTest(a, b []float64) float64 {
	ma, va, na := effective(a)
	mb, vb, nb := effective(b)
	if len(a) < 3 || len(b) < 3 {
		return math.NaN()
	}
	se2 := va + vb
	if se2 == 0 {
		if ma == mb {
			return 1
		}
		return 0
	}
	t := math.Abs(mb-ma) / math.Sqrt(se2)
	df := se2 * se2 / (va*va/(na-1) + vb*vb/(nb-1))
	return 2 * studentTail(t, df)
}

// Apart says every value of one series lies beyond every value of the
// other, by a gap wider than either series' range (max − min): the runs
// differ by more than all the drift either one showed.
func Apart(a, b []float64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	loA, hiA := minMax(a)
	loB, hiB := minMax(b)
	gap := max(loB-hiA, loA-hiB)
	return gap > 0 && gap > hiA-loA && gap > hiB-loB
}

func minMax(xs []float64) (lo, hi float64) {
	lo, hi = xs[0], xs[0]
	for _, x := range xs[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// effective is a series' mean, the variance of that mean and its
// effective number of independent seconds.
func effective(xs []float64) (mean, varMean, nEff float64) {
	n := float64(len(xs))
	if n < 3 {
		return 0, 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= n
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	s2 := ss / (n - 1)
	rho := lag1(xs)
	switch {
	case rho <= 0:
		rho = 0 // no credit for anti-correlation: stay conservative
	case n >= 20:
		// The estimate's downward bias in short series (Kendall): large
		// below 20 seconds, where the estimate itself is too noisy to
		// correct.
		rho = math.Min(rho+(1+3*rho)/n, 0.99)
	default:
		rho = math.Min(rho, 0.99)
	}
	f := (1 + rho) / (1 - rho)
	return mean, s2 / n * f, math.Max(n/f, 2)
}

// lag1 is the lag-1 autocorrelation.
func lag1(xs []float64) float64 {
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var num, den float64
	for i, x := range xs {
		den += (x - mean) * (x - mean)
		if i > 0 {
			num += (x - mean) * (xs[i-1] - mean)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// studentTail is P(T > t) for Student's t with df degrees of freedom.
func studentTail(t, df float64) float64 {
	if math.IsInf(t, 1) {
		return 0
	}
	x := df / (df + t*t)
	return 0.5 * incompleteBeta(df/2, 0.5, x)
}

// incompleteBeta is the regularized incomplete beta function I_x(a, b)
// (a continued fraction, as in Numerical Recipes' betai).
func incompleteBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(a, b, x) / a
	}
	return 1 - front*betaFraction(b, a, 1-x)/b
}

func betaFraction(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-14
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d, c = 1+aa*d, 1+aa/c
		d, c = 1/nonzero(d, tiny), nonzero(c, tiny)
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d, c = 1+aa*d, 1+aa/c
		d, c = 1/nonzero(d, tiny), nonzero(c, tiny)
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

func nonzero(v, tiny float64) float64 {
	if math.Abs(v) < tiny {
		return tiny
	}
	return v
}
