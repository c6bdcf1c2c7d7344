package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
)

// TestTimingInProvenance checks that a job's timing breakdown reaches the
// provenance of every rendering: one line in text and Markdown with the
// overhead's share and stages, and the stages in JSON.
func TestTimingInProvenance(t *testing.T) {
	var rs []*bench.Result
	for _, v := range []string{"base", "patch"} {
		for k := range 6 {
			rs = append(rs, &bench.Result{Benchmark: "Append", Unit: "ns/op", Better: bench.LowerIsBetter, Samples: []float64{100 + float64(k)}, Variant: v})
		}
	}
	cmp, err := compare.Compare(rs, compare.Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	tm := &provenance.Timing{Wall: 10}
	tm.Add("workspace, worktrees and patches", provenance.StageOverhead, 300*time.Millisecond)
	tm.Add("builds", provenance.StageBuild, 2*time.Second)
	for range 12 {
		tm.Add("benchmark commands", provenance.StageBenchmark, 600*time.Millisecond)
	}
	tm.Add("statistics", provenance.StageOverhead, 100*time.Millisecond)
	cmp.Provenance.Timing = tm
	want := "10.0 s wall: benchmark commands 7.20 s, builds and setup 2.00 s, overhead 0.800 s (8.0%): workspace, worktrees and patches 0.300 s, statistics 0.100 s, other 0.400 s"
	// Markdown escapes the parentheses and colons of the same line.
	for format, want := range map[string]string{"text": want, "markdown": "- time: 10.0 s wall:"} {
		var b bytes.Buffer
		if err := Render(&b, format, cmp); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s: no timing line %q in\n%s", format, want, b.String())
		}
	}
	var b bytes.Buffer
	if err := Render(&b, "json", cmp); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Provenance struct {
			Timing provenance.Timing `json:"timing"`
		} `json:"provenance"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Provenance.Timing
	if got.Wall != 10 || len(got.Stages) != 4 || got.Stages[2].Name != "benchmark commands" || got.Stages[2].Count != 12 || got.Stages[2].Kind != provenance.StageBenchmark {
		t.Errorf("JSON timing %+v", got)
	}
}
