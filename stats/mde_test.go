package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMDEWelch(t *testing.T) {
	// Two summaries of mean 100, SE 1, n 10: s = sqrt(2), df = 18.
	// > (qt(0.975, 18) + qt(0.8, 18)) * sqrt(2)
	// [1] 4.190   (2.100922 + 0.8620592 = 2.962981; * 1.414214)
	got := MDEWelch(Moments{100, 1, 10}, Moments{100, 1, 10}, 0.05, 0.8)
	if !near(got, 4.190289, 1e-5) {
		t.Errorf("MDEWelch = %v, want 4.190289", got)
	}
	if got := MDEWelch(Moments{100, 0, 10}, Moments{100, 0, 10}, 0.05, 0.8); got != 0 {
		t.Errorf("no variance: %v, want 0", got)
	}
	if got := MDEWelch(Moments{100, 1, 1}, Moments{100, 1, 10}, 0.05, 0.8); !math.IsInf(got, 1) {
		t.Errorf("n = 1: %v, want +Inf", got)
	}
}

func TestMDEPaired(t *testing.T) {
	// log ratios with sd 0.01 over 10 rounds:
	// > d <- (qt(0.975, 9) + qt(0.8, 9)) * 0.01 / sqrt(10); 100 * expm1(d)
	// [1] 0.9839   (2.262157 + 0.8834039 = 3.145561; * 0.003162278 = 0.009947)
	d := []float64{0.01, -0.01, 0.01, -0.01, 0.01, -0.01, 0.01, -0.01, 0.01, -0.01}
	_, v := meanVar(d)
	scale := 0.01 / math.Sqrt(v)
	for i := range d {
		d[i] *= scale
	}
	if got := MDEPaired(d, 0.05, 0.8); !near(got, 100*math.Expm1(3.145561*0.01/math.Sqrt(10)), 1e-5) {
		t.Errorf("MDEPaired = %v", got)
	}
}

func TestMDERankSumUndetectable(t *testing.T) {
	// 3 values a side: min p = 0.1 > 0.05, nothing is detectable.
	if got := MDERankSum([]float64{1, 2, 3}, []float64{1, 2, 3}, 0.05, 0.8); !math.IsInf(got, 1) {
		t.Errorf("n = 3: MDE = %v, want +Inf", got)
	}
	if got := MDESignedRank([]float64{0.1, 0.2, 0.3, 0.4, 0.5}, 0.05, 0.8); !math.IsInf(got, 1) {
		t.Errorf("n = 5 paired: MDE = %v, want +Inf (2/32 > 0.05)", got)
	}
}

// TestMDEPower checks by simulation that a true change of the size the MDE
// names is detected in about 80% of runs.
func TestMDEPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, sigma, trials = 10, 0.02, 800
	sample := func(shift float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = 100 * math.Exp(shift+sigma*rng.NormFloat64())
		}
		return s
	}
	// Samples whose log values are ±a have MAD 1.4826·a = sigma.
	ref := make([]float64, n)
	for i := range ref {
		ref[i] = 100 * math.Exp(float64(2*(i%2)-1)*sigma/1.4826)
	}
	// attained alpha for 10 + 10 is 0.04326; t quantiles with 18 df.
	mdeTrue := 100 * math.Expm1((TQuantile(1-0.04326/2, 18)+TQuantile(0.8, 18))*sigma*math.Sqrt(0.2)/math.Sqrt(3/math.Pi))
	if got := MDERankSum(ref, ref, 0.05, 0.8); !near(got, mdeTrue, 1e-4) {
		t.Errorf("MDERankSum = %v, want %v", got, mdeTrue)
	}
	if got := attainedAlpha(rankSumDist(n, n), 0.05); !near(got, 0.04326, 1e-4) {
		t.Errorf("attained alpha for 10+10 = %v, want 0.04326", got)
	}
	shift := math.Log1p(mdeTrue / 100)
	hits := 0
	for range trials {
		r, _ := MannWhitney(sample(0), sample(shift), ExactAuto, true)
		if r.P < 0.05 {
			hits++
		}
	}
	power := float64(hits) / trials
	t.Logf("MDE %.2f%% (sigma %.0f%%, n %d): power %.3f", mdeTrue, 100*sigma, n, power)
	if power < 0.7 || power > 0.9 {
		t.Errorf("power at the MDE = %.3f, want about 0.8", power)
	}
}
