package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/perf/benchmath"
)

// referenceP is benchstat's own p-value and warnings, through benchmath.
func referenceP(x, y []float64, alpha float64) (float64, string) {
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(append([]float64(nil), x...), th), benchmath.NewSample(append([]float64(nil), y...), th))
	return min(c.P, 1), fmt.Sprint(c.Warnings)
}

// TestTiedPEqualsBenchmath checks the tied exact path against benchmath
// over random samples of every size it takes, drawn from few values so
// that ties are common: bit for bit up to exactChooseMax values in all,
// where go-moremath's counts are exact, and to 1e-12 beyond, where they
// are sums of rounded coefficients; warnings always equal.
func TestTiedPEqualsBenchmath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphas := []float64{0.05, 0.01, 0.2, 1e-5, 0.5}
	var bt BenchstatTester
	tried, beyond := 0, 0
	for n1 := 1; n1 <= tiedExactMax; n1++ {
		for n2 := 1; n2 <= tiedExactMax; n2++ {
			draws := 6
			if n1+n2 > exactChooseMax {
				draws = 1 // benchmath is slow there
			}
			for range draws {
				levels := 1 + rng.IntN(n1+n2)
				x, y := make([]float64, n1), make([]float64, n2)
				for i := range x {
					x[i] = float64(rng.IntN(levels))
				}
				shift := rng.IntN(3)
				for i := range y {
					y[i] = float64(rng.IntN(levels) + shift)
				}
				alpha := alphas[rng.IntN(len(alphas))]
				p, w, ok := bt.tiedP(x, y, alpha)
				if !ok {
					continue
				}
				tried++
				wantP, wantW := referenceP(x, y, alpha)
				exact := n1+n2 <= exactChooseMax
				if !exact {
					beyond++
				}
				if exact && p != wantP || !exact && math.Abs(p-wantP) > 1e-12*wantP || fmt.Sprint(w) != wantW {
					t.Fatalf("x=%v y=%v alpha=%v: p=%v warnings=%v, benchmath p=%v warnings=%v", x, y, alpha, p, w, wantP, wantW)
				}
				if bp, bw := BenchstatP(x, y, alpha); bp != p || fmt.Sprint(bw) != wantW {
					t.Fatalf("BenchstatP(%v, %v) = %v %v, tied path %v %v", x, y, bp, bw, p, wantW)
				}
			}
		}
	}
	if tried < 1000 || beyond < 200 {
		t.Fatalf("only %d samples took the tied path (%d beyond %d values)", tried, beyond, exactChooseMax)
	}
}

// TestTiedPDeclines checks that the cases benchmath must decide are left
// to it.
func TestTiedPDeclines(t *testing.T) {
	var bt BenchstatTester
	for _, c := range []struct {
		name string
		x, y []float64
	}{
		{"no ties", []float64{1, 2, 3}, []float64{4, 5, 6}},
		{"all equal", []float64{1, 1}, []float64{1, 1}},
		{"empty", nil, []float64{1, 1}},
		{"too many", make([]float64, tiedExactMax+1), []float64{1, 2}},
		{"not finite", []float64{1, 1, math.Inf(1)}, []float64{1, 2}},
	} {
		if _, _, ok := bt.tiedP(c.x, c.y, 0.05); ok {
			t.Errorf("%s: took the tied path", c.name)
		}
	}
}

func BenchmarkBenchstatPTied(b *testing.B) {
	x := []float64{50.45, 50.22, 49.61, 50.33, 49.95, 49.49, 49.64, 49.53, 50.35, 50.22}
	y := []float64{50.45, 51.22, 49.61, 50.93, 49.95, 49.49, 52.64, 49.53, 50.35, 50.22}
	x20 := append(append([]float64(nil), x...), 50.12, 50.45, 49.61, 50.08, 49.95, 49.77, 49.64, 50.53, 50.35, 50.01)
	y20 := append(append([]float64(nil), y...), 50.12, 51.45, 49.61, 50.18, 49.95, 49.87, 49.64, 50.53, 50.35, 50.91)
	for _, c := range []struct {
		name string
		x, y []float64
	}{{"10+10", x, y}, {"20+20", x20, y20}} {
		var bt BenchstatTester
		b.Run(c.name+"/perfbot", func(b *testing.B) {
			for b.Loop() {
				bt.P(c.x, c.y, 0.05)
			}
		})
		b.Run(c.name+"/benchmath", func(b *testing.B) {
			for b.Loop() {
				referenceP(c.x, c.y, 0.05)
			}
		})
	}
}
