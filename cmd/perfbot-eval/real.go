package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/perfbot/perfbot/parse"
)

// realRuns draws benchmarks from real repeated runs. Each series holds one
// benchmark's ns/op values in the order they were measured. A draw picks a
// series, a window of 2·rounds consecutive runs, and splits each
// consecutive pair of runs into a baseline and a candidate round at random,
// as interleaved rounds would be; the candidate is then scaled by factor.
type realRuns struct {
	label  string
	series [][]float64
}

func (r realRuns) name() string { return r.label }

func (r realRuns) pick(rng *rand.Rand) source {
	return realBench(r.series[rng.IntN(len(r.series))])
}

// realBench is one benchmark's runs in measurement order.
type realBench []float64

// rounds returns n rounds, or as many as the series holds.
func (s realBench) rounds(rng *rand.Rand, n int, factor float64) (base, cand []float64) {
	n = min(n, len(s)/2)
	start := rng.IntN(len(s) - 2*n + 1)
	base = make([]float64, n)
	cand = make([]float64, n)
	for i := range n {
		a, b := s[start+2*i], s[start+2*i+1]
		if rng.IntN(2) == 0 {
			a, b = b, a
		}
		base[i], cand[i] = a, b*factor
	}
	return base, cand
}

// loadReal reads Go benchmark output and returns each benchmark's ns/op
// values in file order, for benchmarks with at least 20 runs.
func loadReal(ctx context.Context, path string) ([][]float64, error) {
	results, err := parse.File(ctx, path, "gobench")
	if err != nil {
		return nil, err
	}
	byName := map[string][]float64{}
	for _, r := range results {
		if r.Unit != "ns/op" || len(r.Samples) == 0 {
			continue
		}
		byName[r.Key()] = append(byName[r.Key()], r.Samples...)
	}
	var names []string
	for k, v := range byName {
		if len(v) >= 20 {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no benchmark with 20 or more ns/op runs", path)
	}
	sort.Strings(names)
	out := make([][]float64, len(names))
	for i, k := range names {
		out[i] = byName[k]
	}
	return out, nil
}
