package changepoint

import (
	"math"
	"math/rand/v2"
	"testing"
)

// noisy returns n points around level with relative Gaussian noise sd.
func noisy(rng *rand.Rand, n int, level, sd float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = level * (1 + sd*rng.NormFloat64())
	}
	return x
}

func concat(parts ...[]float64) []float64 {
	var out []float64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func indices(ps []Point) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.Index)
	}
	return out
}

func TestStep(t *testing.T) {
	for _, tc := range []struct {
		name         string
		before, at   int
		after        int
		level, ratio float64
		sd           float64
	}{
		{"slower 2x early", 5, 5, 20, 1000, 2, 0.02},
		{"slower 20% mid", 30, 30, 30, 1000, 1.2, 0.03},
		{"faster 30%", 25, 25, 40, 50, 0.7, 0.05},
		{"slower 10% late", 60, 60, 6, 1e6, 1.1, 0.01},
		{"12 commits 3x", 6, 6, 6, 200, 3, 0.05},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(20) {
				rng := rand.New(rand.NewPCG(seed, 1))
				x := concat(noisy(rng, tc.before, tc.level, tc.sd), noisy(rng, tc.after, tc.level*tc.ratio, tc.sd))
				ps, err := Detect(x, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if len(ps) != 1 || ps[0].Index != tc.at {
					t.Fatalf("seed %d: change points at %v, want [%d]", seed, indices(ps), tc.at)
				}
				p := ps[0]
				want := (tc.ratio - 1) * 100
				if math.Abs(p.DeltaPct-want) > math.Abs(want)/3 {
					t.Errorf("seed %d: delta %.1f%%, want about %.1f%%", seed, p.DeltaPct, want)
				}
				if p.Last != tc.at-1 || p.Before.Start != 0 || p.Before.End != tc.at || p.After.Start != tc.at || p.After.End != len(x) {
					t.Errorf("seed %d: segments %+v / %+v, last %d", seed, p.Before, p.After, p.Last)
				}
				for _, s := range []Segment{p.Before, p.After} {
					if !(s.Lo <= s.Centre && s.Centre <= s.Hi) {
						t.Errorf("seed %d: interval [%g, %g] misses centre %g", seed, s.Lo, s.Hi, s.Centre)
					}
				}
				if !(p.P <= 0.001) {
					t.Errorf("seed %d: p %g above alpha", seed, p.P)
				}
			}
		})
	}
}

// TestConstantNoise bounds the false change points on series without a
// change. With the default minimum change (5%) and 1% noise there are none;
// with no minimum change, the t-test at 0.001 over 300 series of 100 points
// finds them in at most 3% of the series (the figure with this seed is what
// the assertion fixes; it cannot change since the input is fixed).
func TestConstantNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	falseDefault, seriesWithAny := 0, 0
	const series = 300
	for range series {
		x := noisy(rng, 100, 1000, 0.01)
		ps, err := Detect(x, Options{})
		if err != nil {
			t.Fatal(err)
		}
		falseDefault += len(ps)
		ps, err = Detect(x, Options{MinChangePct: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) > 0 {
			seriesWithAny++
		}
	}
	if falseDefault != 0 {
		t.Errorf("%d change points with the default minimum change in %d constant series, want 0", falseDefault, series)
	}
	if seriesWithAny > series*3/100 {
		t.Errorf("%d of %d constant series had a change point without a minimum change, want at most 3%%", seriesWithAny, series)
	}
	t.Logf("without a minimum change: %d of %d constant series had a change point", seriesWithAny, series)
}

func TestTwoSteps(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 2))
		x := concat(noisy(rng, 25, 100, 0.02), noisy(rng, 20, 130, 0.02), noisy(rng, 25, 90, 0.02))
		ps, err := Detect(x, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := indices(ps); len(got) != 2 || got[0] != 25 || got[1] != 45 {
			t.Fatalf("seed %d: change points at %v, want [25 45]", seed, got)
		}
		if ps[0].After.End != 45 || ps[1].Before.Start != 25 {
			t.Errorf("seed %d: middle segment %+v / %+v", seed, ps[0].After, ps[1].Before)
		}
	}
}

func TestOutliers(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		x := noisy(rng, 60, 1000, 0.02)
		x[17] *= 10
		x[40] *= 5
		x[41] /= 3
		ps, err := Detect(x, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != 0 {
			t.Fatalf("seed %d: change points at %v in a series with outliers only", seed, indices(ps))
		}
		// A real step still shows through the outliers.
		for i := 30; i < len(x); i++ {
			x[i] *= 1.5
		}
		ps, err = Detect(x, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := indices(ps); len(got) != 1 || got[0] != 30 {
			t.Fatalf("seed %d: change points at %v, want [30]", seed, got)
		}
	}
}

func TestMinChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	x := concat(noisy(rng, 30, 100, 0.005), noisy(rng, 30, 104, 0.005))
	ps, err := Detect(x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 0 {
		t.Errorf("a 4%% step was reported under the default 5%% minimum: %v", indices(ps))
	}
	ps, err = Detect(x, Options{MinChangePct: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := indices(ps); len(got) != 1 || got[0] != 30 {
		t.Errorf("with a 2%% minimum: change points at %v, want [30]", got)
	}
}

func TestPermutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x := concat(noisy(rng, 20, 100, 0.03), noisy(rng, 20, 125, 0.03))
	opts := Options{Test: Permutation, Alpha: 0.01, Seed: 1}
	ps, err := Detect(x, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := indices(ps); len(got) != 1 || got[0] != 20 {
		t.Fatalf("change points at %v, want [20]", got)
	}
	if ps[0].P != 1.0/200 {
		t.Errorf("p %g, want 1/200 (no shuffle reaches the data's statistic)", ps[0].P)
	}
	ps, err = Detect(noisy(rng, 40, 100, 0.03), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 0 {
		t.Errorf("permutation test found %v in a constant series", indices(ps))
	}
}

func TestNotFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := concat(noisy(rng, 10, 100, 0.01), noisy(rng, 10, 200, 0.01))
	x[3], x[10], x[15] = math.NaN(), math.Inf(1), math.Inf(-1)
	ps, err := Detect(x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Index 10 is infinite: the change shows at the next finite point.
	if got := indices(ps); len(got) != 1 || got[0] != 11 || ps[0].Last != 9 {
		t.Fatalf("change points %+v, want one at 11 after 9", ps)
	}
	if ps[0].Before.N != 9 || ps[0].After.N != 8 {
		t.Errorf("segment sizes %d and %d, want 9 and 8 finite points", ps[0].Before.N, ps[0].After.N)
	}
	for _, x := range [][]float64{nil, {1}, {1, 2, 3}, {5, 5, 5, 5, 5, 5}, {math.NaN(), math.NaN(), math.NaN(), math.NaN()}} {
		if ps, err := Detect(x, Options{}); err != nil || len(ps) != 0 {
			t.Errorf("Detect(%v) = %v, %v; want nothing", x, ps, err)
		}
	}
}

func TestDeterministicStep(t *testing.T) {
	// Counts that do not vary (allocations per op) step exactly.
	x := []float64{3, 3, 3, 3, 3, 4, 4, 4, 4}
	ps, err := Detect(x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Index != 5 || ps[0].P != 0 || math.Abs(ps[0].DeltaPct-100.0/3) > 1e-9 {
		t.Fatalf("change points %+v, want one at 5 of +33.3%%", ps)
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{
		{Alpha: 1}, {Alpha: -0.1}, {Alpha: math.NaN()}, {MinSize: -1}, {Test: "chi"},
		{Permutations: -5}, {Confidence: 1.5}, {MinChangePct: math.Inf(1)},
	} {
		if _, err := Detect([]float64{1, 2, 3, 4, 5, 6}, o); err == nil {
			t.Errorf("Detect with %+v: no error", o)
		}
	}
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(0))
	f.Add([]byte{}, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		if len(data) > 256 {
			data = data[:256] // the cost is quadratic; longer series add nothing here
		}
		var x []float64
		specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64}
		for i, b := range data {
			if b >= 250 {
				x = append(x, specials[int(b)%len(specials)])
				continue
			}
			x = append(x, float64(b)*float64(1+i%3))
		}
		opts := Options{MinSize: int(mode%3) + 1}
		if mode&4 != 0 {
			opts.Test, opts.Permutations = Permutation, 9
		}
		if mode&8 != 0 {
			opts.MinChangePct = -1
		}
		ps, err := Detect(x, opts)
		if err != nil {
			t.Fatal(err)
		}
		last := -1
		for _, p := range ps {
			if p.Index <= last || p.Index >= len(x) || p.Last >= p.Index || math.IsNaN(p.DeltaPct) {
				t.Fatalf("bad change point %+v in %v", p, x)
			}
			last = p.Index
		}
	})
}

func BenchmarkDetect1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := concat(noisy(rng, 400, 100, 0.02), noisy(rng, 300, 120, 0.02), noisy(rng, 300, 95, 0.02))
	b.ResetTimer()
	for b.Loop() {
		ps, err := Detect(x, Options{})
		if err != nil || len(ps) != 2 {
			b.Fatalf("%v %v", indices(ps), err)
		}
	}
}

func BenchmarkDetect100(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := concat(noisy(rng, 50, 100, 0.02), noisy(rng, 50, 120, 0.02))
	for b.Loop() {
		if _, err := Detect(x, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
