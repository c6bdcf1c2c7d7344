package compare

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/stats"
)

// TestMemoBenchstatPTies checks that the memo's p-values of samples with
// ties, shared between samples of the same tie structure, are
// stats.BenchstatP's for every pair of samples.
func TestMemoBenchstatPTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := newMemo()
	hits := 0
	for i := range 2000 {
		n1, n2 := 1+rng.IntN(12), 1+rng.IntN(12)
		levels := 1 + rng.IntN(4) // few distinct values: many ties
		x, y := make([]float64, n1), make([]float64, n2)
		for k := range x {
			x[k] = float64(100 + rng.IntN(levels)*(1+i%3))
		}
		for k := range y {
			y[k] = float64(100 + rng.IntN(levels)*(1+i%3))
		}
		slices.Sort(x)
		slices.Sort(y)
		before := len(m.tied)
		p, w := m.benchstatP(x, y, 0.05)
		if len(m.tied) == before {
			hits++
		}
		wantP, wantW := stats.BenchstatP(x, y, 0.05)
		if p != wantP || len(w) != len(wantW) {
			t.Fatalf("%v vs %v: memo gives p=%v %v, BenchstatP p=%v %v", x, y, p, w, wantP, wantW)
		}
		for k := range w {
			if w[k].Error() != wantW[k].Error() {
				t.Fatalf("%v vs %v: warning %q, want %q", x, y, w[k], wantW[k])
			}
		}
	}
	if hits == 0 {
		t.Fatal("no two samples shared a tie structure: the memo was never used")
	}
}

// TestCollectorMerge checks that collecting inputs apart and merging them
// in order gives the comparison of collecting them one after the other:
// same rows, same order, same figures, over more rows than a chunk of
// the collector's row store holds.
func TestCollectorMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = rowChunk + 100
	var inputs [3][]*bench.Result
	for side, v := range []string{"a", "b", "b"} {
		for i := range n {
			if (i+side)%7 == 0 {
				continue // some rows only on some inputs
			}
			for range 5 {
				for _, unit := range []string{"ns/op", "B/op"} {
					inputs[side] = append(inputs[side], &bench.Result{
						Benchmark: fmt.Sprintf("X%d", (i*7+side)%n),
						Params:    bench.Params{{Name: "n", Value: fmt.Sprint(i % 3)}},
						Unit:      unit,
						Variant:   v,
						Samples:   []float64{100 + float64(i) + rng.Float64()},
					})
				}
			}
		}
	}
	opts := Options{Base: "a", Candidates: []string{"b"}}
	one, err := NewCollector(opts)
	if err != nil {
		t.Fatal(err)
	}
	var parts []*Collector
	for _, in := range inputs {
		c, err := NewCollector(opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range in {
			if err := one.Add(r); err != nil {
				t.Fatal(err)
			}
			if err := c.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		parts = append(parts, c)
	}
	for _, c := range parts[1:] {
		if err := parts[0].Merge(c); err != nil {
			t.Fatal(err)
		}
	}
	want, err := one.Compare()
	if err != nil {
		t.Fatal(err)
	}
	got, err := parts[0].Compare()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged comparison differs from the sequential one:\ngot  %+v\nwant %+v", got.Rows[:2], want.Rows[:2])
	}
}

// TestCompareParallel checks that a suite large enough to be compared on
// several processors gives the figures of one processor (a History
// function keeps Compare on one).
func TestCompareParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var rs []*bench.Result
	for _, v := range []string{"a", "b"} {
		for i := range minParallelRows + 100 {
			for k := range 6 {
				val := 100 + float64(i%50) + 3*rng.Float64()
				if k%2 == 0 {
					val = float64(64 + i%3) // ties, as in B/op
				}
				rs = append(rs, &bench.Result{Benchmark: fmt.Sprintf("X%d", i), Unit: []string{"ns/op", "B/op"}[k%2], Variant: v, Samples: []float64{val}})
			}
		}
	}
	opts := Options{Base: "a", Candidates: []string{"b"}}
	par, err := Compare(rs, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Verdicts.History = func(*Row) (stats.Noise, bool) { return stats.Noise{}, false }
	seq, err := Compare(rs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(par.Rows) != 2*(minParallelRows+100) {
		t.Fatalf("%d rows, want %d", len(par.Rows), 2*(minParallelRows+100))
	}
	if !reflect.DeepEqual(par, seq) {
		t.Fatal("the comparison on several processors differs from the one on one")
	}
}
