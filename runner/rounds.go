package runner

import (
	"hash/fnv"
	"math/rand/v2"
)

// schedule returns, for count rounds over the variants, the order in which
// the variants run in each round. The rounds come in blocks of
// len(variants): within a block the orders are the rotations of a random
// permutation (a Latin square), shuffled, so every variant runs first, and
// in every other position, exactly once per block. Slow drift of the
// machine (heat, background load, caches) thus weighs on every variant
// alike, and no fixed pattern can line up with a periodic disturbance. A
// count that is not a multiple of the block size ends with part of a
// block. The same rng state gives the same schedule.
func schedule(variants []string, count int, rng *rand.Rand) [][]string {
	out := make([][]string, 0, count)
	for len(out) < count {
		block := balancedBlock(variants, rng)
		out = append(out, block[:min(len(block), count-len(out))]...)
	}
	return out
}

// balancedBlock returns len(variants) rounds (one empty round when there
// are no variants) in which each variant takes each position once.
func balancedBlock(variants []string, rng *rand.Rand) [][]string {
	n := len(variants)
	if n == 0 {
		return [][]string{{}}
	}
	perm := rng.Perm(n)
	block := make([][]string, n)
	for r := range block {
		order := make([]string, n)
		for i := range order {
			order[i] = variants[perm[(i+r)%n]]
		}
		block[r] = order
	}
	rng.Shuffle(n, func(i, j int) { block[i], block[j] = block[j], block[i] })
	return block
}

// suiteRNG returns the random source of one suite's schedule: the run's
// seed and the suite's name, so that one seed reproduces every suite's
// order and suites do not share a sequence.
func suiteRNG(seed uint64, suite string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(suite))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
