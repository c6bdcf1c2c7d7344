package stats

import (
	"math"
	"testing"
)

// Reference data from R's own documentation (?wilcox.test, ?t.test), whose
// printed outputs are published with R.
var (
	// Hollander & Wolfe (1973), 69f: permeability constants, ?wilcox.test.
	hwX = []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	hwY = []float64{1.15, 0.88, 0.90, 0.74, 1.21}
	// Hollander & Wolfe (1973), 29f: depression scale, ?wilcox.test.
	depX = []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	depY = []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	// R's sleep data set, extra by group (Cushny & Peebles).
	sleep1 = []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	sleep2 = []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
)

func near(got, want, tol float64) bool {
	if math.IsInf(want, 0) || math.IsNaN(want) {
		return got == want || math.IsNaN(got) && math.IsNaN(want)
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		name    string
		x, y    []float64
		exact   Exactness
		correct bool
		w, p    float64
		tol     float64
		isExact bool
	}{
		// > wilcox.test(x, y, alternative = "greater")
		// W = 35, p-value = 0.1272          (two-sided: 2 * 0.1272 = 0.2544;
		// exactly 2 * 2 * 0.063606 = 0.2544122544 from dwilcox)
		{"hw exact", hwX, hwY, ExactAuto, true, 35, 0.2544122544, 1e-9, true},
		// > wilcox.test(x, y, alternative = "greater", exact = FALSE, correct = FALSE)
		// W = 35, p-value = 0.1103          (two-sided 0.2207: z = 10/sqrt(50*16/12))
		{"hw normal", hwX, hwY, ExactNever, false, 35, 0.2206713619, 1e-8, false},
		// > wilcox.test(x, y, exact = FALSE)   # correct = TRUE
		// W = 35, p-value = 0.2446          (z = 9.5/8.164966)
		{"hw normal corrected", hwX, hwY, ExactNever, true, 35, 0.2446236051, 1e-8, false},
		// > wilcox.test(extra ~ group, data = sleep)
		// W = 25.5, p-value = 0.06933       (ties: normal approximation)
		{"sleep ties", sleep1, sleep2, ExactAuto, true, 25.5, 0.06933, 5e-5, false},
		// > wilcox.test(c(1, 2, 3), c(4, 5, 6))
		// W = 0, p-value = 0.1              (2 / choose(6, 3))
		{"separated", []float64{1, 2, 3}, []float64{4, 5, 6}, ExactAuto, true, 0, 0.1, 1e-12, true},
		// > wilcox.test(c(4, 5, 6), c(1, 2, 3))
		// W = 9, p-value = 0.1
		{"separated upper", []float64{4, 5, 6}, []float64{1, 2, 3}, ExactAuto, true, 9, 0.1, 1e-12, true},
		// > wilcox.test(c(1, 3), c(2, 4))
		// W = 1, p-value = 0.6667           (2 * pwilcox(1, 2, 2) = 2 * 2/6)
		{"middle", []float64{1, 3}, []float64{2, 4}, ExactAuto, true, 1, 2.0 / 3, 1e-12, true},
		// > wilcox.test(c(1, 4), c(2, 3))
		// W = 2, p-value = 1                (W = mn/2: min(1, 2 * 4/6))
		{"centre", []float64{1, 4}, []float64{2, 3}, ExactAuto, true, 2, 1, 1e-12, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MannWhitney(tt.x, tt.y, tt.exact, tt.correct)
			if err != nil {
				t.Fatal(err)
			}
			if got.Statistic != tt.w || !near(got.P, tt.p, tt.tol) || got.Exact != tt.isExact {
				t.Errorf("got W=%v p=%.10g exact=%v, want W=%v p=%.10g exact=%v", got.Statistic, got.P, got.Exact, tt.w, tt.p, tt.isExact)
			}
		})
	}
}

func TestMannWhitneyErrors(t *testing.T) {
	if r, err := MannWhitney(nil, []float64{1}, ExactAuto, true); err != ErrEmpty || r.P != 1 {
		t.Errorf("empty: got %v, %v", r, err)
	}
	if r, err := MannWhitney([]float64{2, 2}, []float64{2, 2, 2}, ExactAuto, true); err != ErrIdentical || r.P != 1 {
		t.Errorf("identical: got %v, %v", r, err)
	}
	if _, err := MannWhitney([]float64{math.NaN()}, []float64{1}, ExactAuto, true); err != ErrNotFinite {
		t.Errorf("NaN: got %v", err)
	}
}

// TestRankSumDistEnumeration checks the exact distribution against a brute
// force count over all C(m+n, m) label assignments.
func TestRankSumDistEnumeration(t *testing.T) {
	for _, mn := range [][2]int{{1, 1}, {2, 3}, {4, 4}, {5, 7}, {6, 6}} {
		m, n := mn[0], mn[1]
		counts := make([]float64, m*n+1)
		total := 0.0
		// Subsets of {0..m+n-1} of size m are sample 1's ranks.
		for mask := 0; mask < 1<<(m+n); mask++ {
			if popcount(mask) != m {
				continue
			}
			u, below := 0, 0
			for i := 0; i < m+n; i++ {
				if mask&(1<<i) != 0 {
					u += below
				} else {
					below++
				}
			}
			counts[u]++
			total++
		}
		d := rankSumDist(m, n)
		for k := range counts {
			if !near(d[k], counts[k]/total, 1e-12) {
				t.Errorf("m=%d n=%d: P(W=%d) = %v, enumeration %v", m, n, k, d[k], counts[k]/total)
			}
		}
	}
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

func TestMannWhitneyMinP(t *testing.T) {
	// R: 2 / choose(m + n, m)
	for _, tt := range []struct {
		m, n int
		p    float64
	}{{3, 3, 0.1}, {4, 4, 2.0 / 70}, {5, 5, 2.0 / 252}, {10, 10, 2.0 / 184756}, {1, 1, 1}, {0, 4, 1}} {
		if got := MannWhitneyMinP(tt.m, tt.n); !near(got, tt.p, 1e-10) {
			t.Errorf("MannWhitneyMinP(%d, %d) = %v, want %v", tt.m, tt.n, got, tt.p)
		}
	}
}

func TestSignedRank(t *testing.T) {
	tests := []struct {
		name    string
		x, y    []float64
		exact   Exactness
		v, p    float64
		tol     float64
		isExact bool
	}{
		// > wilcox.test(x, y, paired = TRUE, alternative = "greater")
		// V = 40, p-value = 0.01953          (two-sided 0.0390625 = 20/512)
		{"depression", depX, depY, ExactAuto, 40, 0.0390625, 1e-12, true},
		// > wilcox.test(x, y, paired = TRUE, exact = FALSE)
		// V = 40, p-value = 0.04401  (z = (40 - 22.5 - 0.5)/sqrt(9*10*19/24) = 2.01398,
		//                             2 * pnorm(-2.01398) = 0.044011)
		{"depression normal", depX, depY, ExactNever, 40, 0.044011, 5e-5, false},
		// > with(sleep, wilcox.test(extra[group == 1], extra[group == 2], paired = TRUE))
		// V = 0, p-value = 0.009091          (one zero dropped, one tie)
		{"sleep", sleep1, sleep2, ExactAuto, 0, 0.009091, 5e-6, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SignedRank(tt.x, tt.y, tt.exact, true)
			if err != nil {
				t.Fatal(err)
			}
			if got.Statistic != tt.v || !near(got.P, tt.p, tt.tol) || got.Exact != tt.isExact {
				t.Errorf("got V=%v p=%.10g exact=%v, want V=%v p=%.10g exact=%v", got.Statistic, got.P, got.Exact, tt.v, tt.p, tt.isExact)
			}
		})
	}
	if _, err := SignedRank([]float64{1}, []float64{1, 2}, ExactAuto, true); err != ErrLength {
		t.Errorf("length mismatch: got %v", err)
	}
	if r, err := SignedRank([]float64{1, 2}, []float64{1, 2}, ExactAuto, true); err != ErrIdentical || r.P != 1 {
		t.Errorf("all zero: got %v, %v", r, err)
	}
}

func TestSignedRankDist(t *testing.T) {
	// > dsignrank(0:6, 3)  # 1 1 1 2 1 1 1, over 8
	want := []float64{1, 1, 1, 2, 1, 1, 1}
	for k, c := range signedRankDist(3) {
		if !near(c, want[k]/8, 1e-15) {
			t.Errorf("dsignrank(%d, 3) = %v, want %v", k, c, want[k]/8)
		}
	}
	if got := SignedRankMinP(6); got != 2.0/64 {
		t.Errorf("SignedRankMinP(6) = %v", got)
	}
}

func TestExactAlwaysLarge(t *testing.T) {
	// 60 values a side: ExactAuto switches to the normal approximation,
	// ExactAlways stays exact; both agree closely for a clear shift.
	x := make([]float64, 60)
	y := make([]float64, 60)
	for i := range x {
		x[i] = float64(2 * i)
		y[i] = float64(2*i+1) + 20
	}
	a, _ := MannWhitney(x, y, ExactAuto, true)
	e, _ := MannWhitney(x, y, ExactAlways, true)
	if a.Exact || !e.Exact || math.Abs(a.P-e.P) > 0.01 {
		t.Errorf("auto %+v, always %+v", a, e)
	}
	// Beyond MaxExact the normal approximation is used regardless.
	big := make([]float64, MaxExact+1)
	shifted := make([]float64, MaxExact+1)
	for i := range big {
		big[i] = float64(i)
		shifted[i] = float64(i) + 0.5
	}
	if r, _ := MannWhitney(big, shifted, ExactAlways, true); r.Exact {
		t.Errorf("n > MaxExact computed exactly")
	}
}
