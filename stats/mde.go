package stats

import "math"

// Minimum detectable effects.
//
// A minimum detectable effect (MDE) is the smallest true relative change
// that a two-sided test at level alpha would detect with the given power
// (perfbot uses 80%), for the sample sizes and spread at hand. It is what
// gives "no change" a meaning: a verdict of "same" with an MDE of 2% rules
// out changes of 2% or more, one with an MDE of 30% rules out little.
//
// All MDEs are in percent of the baseline. They return +Inf when no change
// could be detected at all, such as a rank test whose smallest achievable
// p-value exceeds alpha (Mann-Whitney with 3 values per side can never go
// below p = 0.1).

// MDEWelch is the MDE of Welch's t-test: with s the standard error of the
// difference and ν the Welch-Satterthwaite degrees of freedom, the shift
// (t_{1-α/2,ν} + t_{power,ν})·s, relative to the baseline mean. This is the
// usual normal-theory power approximation with t quantiles in place of z.
func MDEWelch(base, cand Moments, alpha, power float64) float64 {
	if base.N < 2 || cand.N < 2 || base.Mean == 0 {
		return math.Inf(1)
	}
	vb, vc := base.SE*base.SE, cand.SE*cand.SE
	s2 := vb + vc
	if s2 == 0 {
		return 0
	}
	df := s2 * s2 / (vb*vb/float64(base.N-1) + vc*vc/float64(cand.N-1))
	d := (TQuantile(1-alpha/2, df) + TQuantile(power, df)) * math.Sqrt(s2)
	return 100 * d / math.Abs(base.Mean)
}

// MDEPaired is the MDE of the paired t-test on per-round log ratios
// log(cand_i/base_i): (t_{1-α/2,n-1} + t_{power,n-1})·sd/√n on the log
// scale, turned into a relative change.
func MDEPaired(logRatios []float64, alpha, power float64) float64 {
	n := len(logRatios)
	if n < 2 {
		return math.Inf(1)
	}
	_, v := meanVar(logRatios)
	df := float64(n - 1)
	d := (TQuantile(1-alpha/2, df) + TQuantile(power, df)) * math.Sqrt(v/float64(n))
	return 100 * math.Expm1(d)
}

// MDESignedRank is the MDE of the Wilcoxon signed-rank test on per-round
// log ratios, by Noether's (1987) sample-size formula for that test,
// n = (z_{1-α/2} + z_power)² / (3 (p' - ½)²) with p' = P(D₁ + D₂ > 0),
// solved for p' and turned into a shift δ = σ/√2 · Φ⁻¹(p') for normal
// differences with σ estimated robustly (MAD). It is +Inf when 2/2ⁿ > alpha.
func MDESignedRank(logRatios []float64, alpha, power float64) float64 {
	n := len(logRatios)
	if n == 0 || SignedRankMinP(n) > alpha {
		return math.Inf(1)
	}
	sigma := MAD(logRatios)
	if sigma == 0 {
		return 0
	}
	pp := 0.5 + (NormalQuantile(1-alpha/2)+NormalQuantile(power))/math.Sqrt(3*float64(n))
	if pp >= 1 {
		return math.Inf(1)
	}
	return 100 * math.Expm1(sigma/math.Sqrt2*NormalQuantile(pp))
}

// MDERankSum is the MDE of the Mann-Whitney test for two samples, by
// Noether's (1987) sample-size formula
// N = (z_{1-α/2} + z_power)² / (12 c(1-c) (p' - ½)²), with N = n₁+n₂,
// c = n₁/N and p' = P(Y > X), solved for p' and turned into a shift of
// log-normal data, δ = σ√2 · Φ⁻¹(p'), where σ is the pooled robust (MAD)
// spread of the log values. It is +Inf when the exact test's smallest
// p-value, 2/C(n₁+n₂, n₁), exceeds alpha: no data of that size could reach
// significance.
//
// Noether's formula is a large-sample approximation; with the exact test at
// 10 values per side a simulated change of the MDE's size is detected about
// 89% of the time rather than 80%, so the MDE errs on the large side.
func MDERankSum(base, cand []float64, alpha, power float64) float64 {
	n1, n2 := len(base), len(cand)
	if n1 == 0 || n2 == 0 || MannWhitneyMinP(n1, n2) > alpha {
		return math.Inf(1)
	}
	sigma, ok := pooledLogMAD(base, cand)
	if !ok {
		return math.Inf(1)
	}
	if sigma == 0 {
		return 0
	}
	N := float64(n1 + n2)
	c := float64(n1) / N
	pp := 0.5 + (NormalQuantile(1-alpha/2)+NormalQuantile(power))/math.Sqrt(12*c*(1-c)*N)
	if pp >= 1 {
		return math.Inf(1)
	}
	return 100 * math.Expm1(sigma*math.Sqrt2*NormalQuantile(pp))
}

// pooledLogMAD is the spread of log values pooled over two samples:
// √((n₁ MAD₁² + n₂ MAD₂²)/(n₁+n₂)).
func pooledLogMAD(a, b []float64) (float64, bool) {
	la, ok1 := logs(a)
	lb, ok2 := logs(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	ma, mb := MAD(la), MAD(lb)
	n1, n2 := float64(len(a)), float64(len(b))
	return math.Sqrt((n1*ma*ma + n2*mb*mb) / (n1 + n2)), true
}

func logs(x []float64) ([]float64, bool) {
	out := make([]float64, len(x))
	for i, v := range x {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, false
		}
		out[i] = math.Log(v)
	}
	return out, true
}
