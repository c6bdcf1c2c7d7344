package stats

import (
	"math"
	"testing"
)

func TestWelch(t *testing.T) {
	// > t.test(extra ~ group, data = sleep)
	// t = -1.8608, df = 17.776, p-value = 0.07939
	// 95 percent confidence interval: -3.3654832  0.2054832
	got, err := WelchSamples(sleep1, sleep2, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	checkT(t, "sleep welch", got, -1.8608, 17.776, 0.07939, -3.3654832, 0.2054832)

	// The same test from JMH-style summaries: each group's mean with its
	// error at 99.9% (t_{0.9995,9} * sd/sqrt(10)) and n = 10 must give the
	// same answer as the samples.
	var ms [2]Moments
	for i, g := range [][]float64{sleep1, sleep2} {
		m := MomentsOf(g)
		errHalf := TQuantile(0.9995, 9) * m.SE
		ms[i], err = MomentsFromError(m.Mean, errHalf, 0.999, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !near(ms[i].SE, m.SE, 1e-9) {
			t.Errorf("group %d: SE from error = %v, want %v", i+1, ms[i].SE, m.SE)
		}
	}
	got, err = Welch(ms[0], ms[1], 0.95)
	if err != nil {
		t.Fatal(err)
	}
	checkT(t, "sleep welch from summaries", got, -1.8608, 17.776, 0.07939, -3.3654832, 0.2054832)

	// JMH: score 100 ± 8.610302 (99.9%) over 5 iterations, since
	// qt(0.9995, 4) = 8.610302, is a standard error of 1.
	m, err := MomentsFromError(100, 8.610302, 0.999, 5)
	if err != nil || !near(m.SE, 1, 1e-6) {
		t.Errorf("MomentsFromError = %v, %v; want SE 1", m, err)
	}
	// Two such summaries, 100 and 103: t = -3/sqrt(2), df = 2^2/(2 * 1/4) = 8.
	// > 2 * pt(-3/sqrt(2), 8)
	// [1] 0.06675
	got, err = Welch(Moments{100, 1, 5}, Moments{103, 1, 5}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !near(got.T, -3/math.Sqrt2, 1e-12) || !near(got.DF, 8, 1e-12) || !near(got.P, 0.06675, 5e-4) {
		t.Errorf("summary welch: got %+v", got)
	}

	for _, bad := range [][4]float64{{1, -1, 0.999, 5}, {1, 1, 0, 5}, {1, 1, 1, 5}, {1, 1, 0.999, 1}} {
		if _, err := MomentsFromError(bad[0], bad[1], bad[2], int(bad[3])); err != ErrSummary {
			t.Errorf("MomentsFromError%v: err = %v, want ErrSummary", bad, err)
		}
	}
	if _, err := WelchSamples([]float64{1, 1}, []float64{2, 2}, 0.95); err != ErrNoVariance {
		t.Errorf("no variance: err = %v", err)
	}
	if _, err := WelchSamples([]float64{1}, []float64{2, 3}, 0.95); err != ErrEmpty {
		t.Errorf("n = 1: err = %v", err)
	}
}

func TestPairedT(t *testing.T) {
	// > with(sleep, t.test(extra[group == 1], extra[group == 2], paired = TRUE))
	// t = -4.0621, df = 9, p-value = 0.002833
	// 95 percent confidence interval: -2.4598858 -0.7001142
	got, err := PairedT(sleep1, sleep2, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	checkT(t, "sleep paired", got, -4.0621, 9, 0.002833, -2.4598858, -0.7001142)
	if _, err := PairedT([]float64{1}, []float64{1, 2}, 0.95); err != ErrLength {
		t.Errorf("length mismatch: err = %v", err)
	}
}

func checkT(t *testing.T, name string, got TTest, tv, df, p, lo, hi float64) {
	t.Helper()
	if !near(got.T, tv, 5e-5) || !near(got.DF, df, 5e-4) || !near(got.P, p, 5e-6) ||
		!near(got.Lo, lo, 1e-7) || !near(got.Hi, hi, 1e-7) {
		t.Errorf("%s: got t=%.5f df=%.4f p=%.6g [%.7f, %.7f], want t=%v df=%v p=%v [%v, %v]",
			name, got.T, got.DF, got.P, got.Lo, got.Hi, tv, df, p, lo, hi)
	}
}

func TestDistributions(t *testing.T) {
	tests := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"qt(0.975, 9)", TQuantile(0.975, 9), 2.262157, 1e-6},
		{"qt(0.9995, 4)", TQuantile(0.9995, 4), 8.610302, 1e-6},
		{"qt(0.995, 10)", TQuantile(0.995, 10), 3.169273, 1e-6},
		{"qt(0.9995, 9)", TQuantile(0.9995, 9), 4.780913, 1e-6},
		{"qt(0.95, 1)", TQuantile(0.95, 1), 6.313752, 1e-6},
		{"qt(0.025, 9)", TQuantile(0.025, 9), -2.262157, 1e-6},
		{"qt(0.975, Inf)", TQuantile(0.975, math.Inf(1)), 1.959964, 1e-6},
		{"pt(2.228139, 10)", TCDF(2.228139, 10), 0.975, 1e-7},
		{"pt(-1, 1)", TCDF(-1, 1), 0.25, 1e-12},
		{"pt(1.5, 1e7)", TCDF(1.5, 1e7), 0.9331928, 1e-6},
		{"qnorm(0.975)", NormalQuantile(0.975), 1.959964, 1e-6},
		{"qnorm(0.8)", NormalQuantile(0.8), 0.8416212, 1e-7},
		{"pnorm(-1.959964)", NormalCDF(-1.959964), 0.025, 1e-7},
	}
	for _, tt := range tests {
		if !near(tt.got, tt.want, tt.tol) {
			t.Errorf("%s = %.9g, want %.9g", tt.name, tt.got, tt.want)
		}
	}
	for _, bad := range []float64{TCDF(1, 0), TQuantile(2, 3), TQuantile(0.5, -1), NormalQuantile(-0.1)} {
		if !math.IsNaN(bad) {
			t.Errorf("invalid argument gave %v, want NaN", bad)
		}
	}
}
