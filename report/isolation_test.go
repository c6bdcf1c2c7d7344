package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
)

// TestIsolationInProvenance: how a suite's other sides were kept off the
// CPU, and the foreign CPU time with the rounds rerun, reach the text,
// Markdown and JSON renderings.
func TestIsolationInProvenance(t *testing.T) {
	var rs []*bench.Result
	for _, v := range []string{"base", "patch"} {
		for k := range 6 {
			rs = append(rs, &bench.Result{Benchmark: "Query", Unit: "ns/op", Better: bench.LowerIsBetter, Samples: []float64{100 + float64(k)}, Variant: v})
		}
	}
	cmp, err := compare.Compare(rs, compare.Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	ms := 12.5
	cmp.Provenance.Suites = []provenance.Suite{{Name: "pg", Commands: []string{"sh bench.sh"}, Rounds: 6,
		Isolation: "frozen (cgroup v2 freezer), CPU time from cgroup v2 cpu.stat", ForeignCPUMs: &ms, Rerun: 2, Unfair: 1}}
	for format, want := range map[string]string{
		"text":     "other sides during each side's rounds: frozen (cgroup v2 freezer), CPU time from cgroup v2 cpu.stat; foreign CPU during rounds: 12.5 ms, 2 round(s) rerun, 1 round(s) over the 2% bound kept: not measured fairly",
		"markdown": "12.5 ms, 2 round\\(s\\) rerun",
		"json":     `"foreign_cpu_ms": 12.5`,
	} {
		var b bytes.Buffer
		if err := Render(&b, format, cmp); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s: no %q in\n%s", format, want, b.String())
		}
	}
}
