package main

import (
	"math"
	"math/rand/v2"
)

// simulated draws benchmarks whose noise imitates real ones:
//
//   - spread: the log-scale standard deviation σ of a benchmark is 0.5-1.5%
//     for 60% of benchmarks, 1.5-4% for 30% and 4-10% for 10% (Go
//     micro-benchmarks on a shared machine, as testdata/sort.txt shows);
//   - skew: values are log-normal, level·exp(σZ), so slow runs stretch
//     further than fast ones;
//   - outliers: 3% of runs are slowed by a further 10% plus an exponential
//     amount with mean 20% (a GC cycle, a neighbour's burst);
//   - drift: a random walk in log scale with steps of 0.3σ per round, which
//     both sides share because their rounds are interleaved (A B B A ...).
type simulated struct{}

func (simulated) name() string { return "simulated" }

func (simulated) pick(rng *rand.Rand) source {
	b := simBench{level: math.Exp(math.Log(10) + rng.Float64()*math.Log(1e5))}
	switch u := rng.Float64(); {
	case u < 0.6:
		b.sigma = 0.005 + 0.01*rng.Float64()
	case u < 0.9:
		b.sigma = 0.015 + 0.025*rng.Float64()
	default:
		b.sigma = 0.04 + 0.06*rng.Float64()
	}
	return b
}

// simBench is one simulated benchmark: its level and log-scale spread.
type simBench struct {
	level, sigma float64
}

func (b simBench) rounds(rng *rand.Rand, n int, factor float64) (base, cand []float64) {
	draw := func(drift float64) float64 {
		v := b.level * math.Exp(drift+b.sigma*rng.NormFloat64())
		if rng.Float64() < 0.03 {
			v *= 1.1 + rng.ExpFloat64()*0.2
		}
		return v
	}
	base = make([]float64, n)
	cand = make([]float64, n)
	drift := 0.0
	for r := range n {
		drift += 0.3 * b.sigma * rng.NormFloat64()
		base[r] = draw(drift)
		cand[r] = draw(drift) * factor
	}
	return base, cand
}

// tier is the benchmark's noise class: 0 quiet (σ < 1.5%), 1 moderate
// (σ < 4%), 2 noisy.
func (b simBench) tier() int {
	switch {
	case b.sigma < 0.015:
		return 0
	case b.sigma < 0.04:
		return 1
	}
	return 2
}
