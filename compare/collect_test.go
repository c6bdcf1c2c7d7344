package compare

import (
	"hash/maphash"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

// TestCollectorHashCollision checks that two rows whose keys share a hash
// in the row index stay two rows, each with its own samples, when added
// and when merged.
func TestCollectorHashCollision(t *testing.T) {
	opts := Options{Base: "a", Candidates: []string{"b"}}
	res := func(name, variant string, v float64) *bench.Result {
		return &bench.Result{Benchmark: name, Unit: "ns/op", Variant: variant, Samples: []float64{v}}
	}
	collide := func(c *Collector, name string) {
		// Make name's key hash to the row of "A".
		id := idOf(res(name, "a", 0))
		key := appendKey(nil, &id)
		c.index.byHash[maphash.Bytes(c.index.seed, key)] = 0
	}
	c, err := NewCollector(opts)
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewCollector(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{1, 2, 3, 4, 5} {
		for _, r := range []*bench.Result{res("A", "a", v), res("A", "b", v), res("C", "a", 100*v)} {
			if err := c.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		if v == 1 {
			collide(c, "B")
		}
		// Interleave so that the recent rows do not find B.
		for _, r := range []*bench.Result{res("B", "a", 10*v), res("C", "b", 100*v)} {
			if err := c.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := other.Add(res("B", "b", 10*v+1)); err != nil {
			t.Fatal(err)
		}
	}
	if c.index.others == nil {
		t.Fatal("the colliding key was not kept whole")
	}
	if err := other.Add(res("A", "b", 6)); err != nil {
		t.Fatal(err)
	}
	if err := c.Merge(other); err != nil {
		t.Fatal(err)
	}
	cmp, err := c.Compare()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{"A": {5, 6}, "B": {5, 5}, "C": {5, 5}}
	if len(cmp.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(cmp.Rows), len(want))
	}
	for _, row := range cmp.Rows {
		n, ok := want[row.Benchmark]
		if !ok || row.Base == nil || len(row.Candidates) != 1 || row.Base.N != n[0] || row.Candidates[0].N != n[1] {
			t.Errorf("row %s: base %+v candidates %+v, want %v samples", row.Benchmark, row.Base, row.Candidates, n)
		}
		if row.Benchmark == "B" && row.Base.Center != 30 {
			t.Errorf("row B: base centre %v, want 30 (its own samples)", row.Base.Center)
		}
	}
}
