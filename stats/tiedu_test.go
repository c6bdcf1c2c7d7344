package stats

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"golang.org/x/perf/benchmath"
)

// benchmathP is benchstat's own p-value and warnings, through benchmath.
func benchmathP(x, y []float64, alpha float64) (float64, string) {
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(append([]float64(nil), x...), th), benchmath.NewSample(append([]float64(nil), y...), th))
	return min(c.P, 1), fmt.Sprint(c.Warnings)
}

// TestTiedBenchstatPEqualsBenchmath checks the tied exact path against
// benchmath bit for bit, warnings included, over random samples of every
// size it takes, drawn from few values so that ties are common.
func TestTiedBenchstatPEqualsBenchmath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphas := []float64{0.05, 0.01, 0.2, 1e-5, 0.5}
	tried := 0
	for n1 := 1; n1 <= tiedExactMax-1; n1++ {
		for n2 := 1; n1+n2 <= tiedExactMax; n2++ {
			for range 12 {
				levels := 1 + rng.IntN(n1+n2)
				x, y := make([]float64, n1), make([]float64, n2)
				for i := range x {
					x[i] = float64(rng.IntN(levels))
				}
				for i := range y {
					y[i] = float64(rng.IntN(levels)+rng.IntN(2)) * 1.5
				}
				alpha := alphas[rng.IntN(len(alphas))]
				p, w, ok := tiedBenchstatP(x, y, alpha)
				if !ok {
					continue
				}
				tried++
				wantP, wantW := benchmathP(x, y, alpha)
				if p != wantP || fmt.Sprint(w) != wantW {
					t.Fatalf("x=%v y=%v alpha=%v: p=%v warnings=%v, benchmath p=%v warnings=%v", x, y, alpha, p, w, wantP, wantW)
				}
				if bp, bw := BenchstatP(x, y, alpha); bp != wantP || fmt.Sprint(bw) != wantW {
					t.Fatalf("BenchstatP(%v, %v) = %v %v, benchmath %v %v", x, y, bp, bw, wantP, wantW)
				}
			}
		}
	}
	if tried < 1000 {
		t.Fatalf("only %d samples took the tied path", tried)
	}
}

// TestTiedBenchstatPDeclines checks that the cases benchmath must decide
// are left to it.
func TestTiedBenchstatPDeclines(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y []float64
	}{
		{"no ties", []float64{1, 2, 3}, []float64{4, 5, 6}},
		{"all equal", []float64{1, 1}, []float64{1, 1}},
		{"empty", nil, []float64{1, 1}},
		{"too many", make([]float64, 11), append(make([]float64, 9), 1, 2)},
	} {
		if _, _, ok := tiedBenchstatP(c.x, c.y, 0.05); ok {
			t.Errorf("%s: took the tied path", c.name)
		}
	}
}

func BenchmarkBenchstatPTied(b *testing.B) {
	x := []float64{50.45, 50.22, 49.61, 50.33, 49.95, 49.49, 49.64, 49.53, 50.35, 50.22}
	y := []float64{50.45, 51.22, 49.61, 50.93, 49.95, 49.49, 52.64, 49.53, 50.35, 50.22}
	b.Run("perfbot", func(b *testing.B) {
		for b.Loop() {
			BenchstatP(x, y, 0.05)
		}
	})
	b.Run("benchmath", func(b *testing.B) {
		for b.Loop() {
			benchmathP(x, y, 0.05)
		}
	})
}
