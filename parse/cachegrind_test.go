package parse

import (
	"context"
	"strings"
	"testing"
)

func TestCachegrindErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"events: Ir\nfn=f\n1 x\n", "cg.out:3: count line: count \"x\" is not a non-negative integer"},
		{"fn=f\n1 2\n", "cg.out:1: fn= before the events: line"},
		{"events: Ir\nfn=f\n1 2 3\n", "cg.out:3: count line: more counts (2) than events (1)"},
		{"events: Ir\nsummary: -4\n", "cg.out:2: summary: count \"-4\" is not a non-negative integer"},
		{"desc: x\nbogus\n", "cg.out:2: want desc:, cmd:, events:, fl=, fn=, a count line or summary:, got \"bogus\""},
		{"desc: x\n", "cg.out: no events: line: not a cachegrind output file"},
	} {
		err := Cachegrind{}.Parse(context.Background(), strings.NewReader(tc.in), "cg.out", nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: got %v, want %s", tc.in, err, tc.want)
		}
	}
}

func TestEstCycles(t *testing.T) {
	ev := map[string]float64{"Ir": 1000, "I1mr": 1, "D1mr": 2, "D1mw": 3, "ILmr": 1, "DLmr": 1, "DLmw": 0}
	if c, ok := EstCycles(ev); !ok || c != 1000+60+200 {
		t.Errorf("EstCycles = %v, %v; want 1260", c, ok)
	}
	if _, ok := EstCycles(map[string]float64{"Ir": 5}); ok {
		t.Error("EstCycles without cache events: ok")
	}
}
