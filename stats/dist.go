package stats

import "math"

// NormalCDF is the standard normal distribution function Φ(z).
func NormalCDF(z float64) float64 {
	return 0.5 * math.Erfc(-z/math.Sqrt2)
}

// NormalUpper is 1 - Φ(z), computed without cancellation for large z.
func NormalUpper(z float64) float64 {
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// NormalQuantile is the inverse of NormalCDF: the z with Φ(z) = p.
func NormalQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	}
	return -math.Sqrt2 * math.Erfcinv(2*p)
}

// TCDF is the distribution function of Student's t with df degrees of
// freedom. df need not be an integer (Welch's test gives fractional ones);
// an infinite df gives the normal distribution.
func TCDF(t, df float64) float64 {
	switch {
	case math.IsNaN(t) || math.IsNaN(df) || df <= 0:
		return math.NaN()
	case math.IsInf(df, 1):
		return NormalCDF(t)
	case math.IsInf(t, 1):
		return 1
	case math.IsInf(t, -1):
		return 0
	}
	// P(|T| > |t|) = I_{df/(df+t²)}(df/2, 1/2).
	tail := 0.5 * betaInc(df/(df+t*t), df/2, 0.5)
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// tUpper is P(T > t) for t >= 0, without the cancellation of 1 - TCDF.
func tUpper(t, df float64) float64 {
	if math.IsInf(df, 1) {
		return NormalUpper(t)
	}
	return 0.5 * betaInc(df/(df+t*t), df/2, 0.5)
}

// TQuantile is the inverse of TCDF: the t with TCDF(t, df) = p.
func TQuantile(p, df float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1 || math.IsNaN(df) || df <= 0:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case p == 0.5:
		return 0
	case math.IsInf(df, 1):
		return NormalQuantile(p)
	}
	if p < 0.5 {
		return -TQuantile(1-p, df)
	}
	// Bracket the root, then bisect: TCDF is monotone and the bracket
	// halves 200 times, far past float64 resolution.
	lo, hi := 0.0, 1.0
	for TCDF(hi, df) < p {
		lo, hi = hi, hi*2
		if hi > 1e300 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if TCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// betaInc is the regularized incomplete beta function I_x(a, b), evaluated
// with the continued fraction of Numerical Recipes §6.4 (modified Lentz). It
// returns NaN instead of failing when the fraction does not converge.
func betaInc(x, a, b float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0 || x > 1 || a <= 0 || b <= 0:
		return math.NaN()
	case x == 0:
		return 0
	case x == 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(x, a, b) / a
	}
	return 1 - front*betaFraction(1-x, b, a)/b
}

func betaFraction(x, a, b float64) float64 {
	const (
		tiny = 1e-300
		eps  = 1e-15
	)
	clamp := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c := 1.0
	d := 1 / clamp(1-(a+b)*x/(a+1))
	h := d
	for m := 1; m <= 100000; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 / clamp(1+num*d)
		c = clamp(1 + num/c)
		h *= d * c
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 / clamp(1+num*d)
		c = clamp(1 + num/c)
		step := d * c
		h *= step
		if math.Abs(step-1) < eps {
			return h
		}
	}
	return math.NaN()
}
