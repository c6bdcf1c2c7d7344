package stats

import (
	"encoding/binary"
	"math"
	"testing"
)

// floats decodes b as little-endian float64s, split into two samples at
// cut.
func floats(b []byte, cut uint8) (x, y []float64) {
	var all []float64
	for len(b) >= 8 {
		all = append(all, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		b = b[8:]
	}
	k := int(cut)
	if k > len(all) {
		k = len(all)
	}
	return all[:k], all[k:]
}

// FuzzTests checks that no routine panics and p-values stay in [0, 1]
// whatever the samples hold.
func FuzzTests(f *testing.F) {
	seed := make([]byte, 0, 80)
	for _, v := range []float64{1, 2, 2, 3, math.NaN(), 5, 1e300, -1, 0, 7} {
		seed = binary.LittleEndian.AppendUint64(seed, math.Float64bits(v))
	}
	f.Add(seed, uint8(4))
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		x, y := floats(b, cut)
		check := func(name string, p float64) {
			if !(p >= 0 && p <= 1) {
				t.Fatalf("%s: p = %v for %v vs %v", name, p, x, y)
			}
		}
		for _, e := range []Exactness{ExactAuto, ExactAlways, ExactNever} {
			r, _ := MannWhitney(x, y, e, true)
			check("MannWhitney", r.P)
		}
		if len(x) == len(y) {
			r, _ := SignedRank(x, y, ExactAuto, true)
			check("SignedRank", r.P)
		}
		p, _ := BenchstatP(x, y, 0.05)
		check("BenchstatP", p)
		if r, err := WelchSamples(x, y, 0.95); err == nil && !math.IsNaN(r.P) {
			check("Welch", r.P)
		}
		for _, a := range BenjaminiHochberg(append(x, y...)) {
			_ = a
		}
		_ = CompareDeterministic(x, y)
		_ = MDERankSum(x, y, 0.05, 0.8)
		_, _ = NoiseRule{}.Learn(x)
	})
}
