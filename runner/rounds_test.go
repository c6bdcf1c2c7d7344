package runner

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestScheduleBalanced(t *testing.T) {
	for _, c := range []struct {
		variants []string
		count    int
	}{
		{[]string{"A", "B"}, 10},
		{[]string{"A", "B", "C"}, 9},
		{[]string{"base", "p1", "p2", "p3"}, 8},
	} {
		got := schedule(c.variants, c.count, suiteRNG(42, "s"))
		if len(got) != c.count {
			t.Fatalf("%v: %d rounds, want %d", c.variants, len(got), c.count)
		}
		n := len(c.variants)
		// Every variant runs once per round and, in every block, takes
		// every position once.
		for b := 0; b < c.count/n; b++ {
			pos := map[string]map[int]bool{}
			for _, order := range got[b*n : (b+1)*n] {
				if len(order) != n {
					t.Fatalf("%v: round %v lacks a variant", c.variants, order)
				}
				for i, v := range order {
					if pos[v] == nil {
						pos[v] = map[int]bool{}
					}
					pos[v][i] = true
				}
			}
			for _, v := range c.variants {
				if len(pos[v]) != n {
					t.Errorf("%v block %d: %s took positions %v, want each of %d once", c.variants, b, v, pos[v], n)
				}
			}
		}
	}
}

func TestScheduleSeeded(t *testing.T) {
	vs := []string{"A", "B"}
	a := fmt.Sprint(schedule(vs, 20, suiteRNG(7, "wal")))
	if b := fmt.Sprint(schedule(vs, 20, suiteRNG(7, "wal"))); a != b {
		t.Errorf("same seed, other schedule:\n%s\n%s", a, b)
	}
	differ := 0
	for seed := uint64(8); seed < 18; seed++ {
		if fmt.Sprint(schedule(vs, 20, suiteRNG(seed, "wal"))) != a {
			differ++
		}
	}
	if differ < 9 {
		t.Errorf("only %d of 10 other seeds gave another schedule", differ)
	}
	// Not a fixed pattern: with 2 variants both block orders occur.
	first := map[string]int{}
	for _, r := range schedule(vs, 20, rand.New(rand.NewPCG(1, 2))) {
		first[r[0]]++
	}
	if first["A"] != 10 || first["B"] != 10 {
		t.Errorf("first of a round: %v, want A and B 10 times each", first)
	}
}

func TestSchedulePartialBlock(t *testing.T) {
	got := schedule([]string{"A", "B", "C"}, 4, suiteRNG(1, "x"))
	if len(got) != 4 {
		t.Fatalf("%d rounds, want 4", len(got))
	}
	if got := schedule([]string{"A"}, 3, suiteRNG(1, "x")); fmt.Sprint(got) != "[[A] [A] [A]]" {
		t.Errorf("one variant: %v", got)
	}
	if got := schedule(nil, 2, suiteRNG(1, "x")); len(got) != 2 {
		t.Errorf("no variant: %v", got)
	}
}
