package bisect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

// series is a model series for the search: each commit's level per
// benchmark (position 0 is the base), measured as eight samples spread by
// a few percent, and compared with the real statistics.
type series struct {
	levels map[string][]float64
	// spread is a benchmark's spread from sample to sample, as a
	// fraction (default 0.03).
	spread map[string]float64
	spans  []string
}

func (s *series) measure(_ context.Context, from, to string, names []string) (*compare.Comparison, error) {
	s.spans = append(s.spans, from+".."+to)
	var results []*bench.Result
	for name, lv := range s.levels {
		if len(names) > 0 && !contains(names, name) {
			continue
		}
		for _, side := range []struct{ variant, at string }{{"base", from}, {"after", to}} {
			var pos int
			fmt.Sscanf(side.at, "c%d", &pos)
			r := &bench.Result{Benchmark: name, Unit: "ns/op", Better: bench.LowerIsBetter, Variant: side.variant}
			spread := s.spread[name]
			if spread == 0 {
				spread = 0.03
			}
			for i := range 8 {
				r.Samples = append(r.Samples, lv[pos]*(1+spread*float64((i*37)%13)/12))
			}
			results = append(results, r)
		}
	}
	return compare.Compare(results, compare.Options{Base: "base", Candidates: []string{"after"}})
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (s *series) search(t *testing.T, n int, o Options) *Result {
	t.Helper()
	commits := make([]Commit, n)
	for i := range commits {
		commits[i] = Commit{Hash: fmt.Sprintf("c%d", i+1), Subject: fmt.Sprintf("commit %d", i+1)}
	}
	overall, err := s.measure(context.Background(), "c0", commits[n-1].Hash, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.spans = nil
	res, err := Search(context.Background(), "c0", commits, overall, s.measure, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func find(res *Result, name string) *Benchmark {
	for i := range res.Benchmarks {
		if res.Benchmarks[i].Benchmark == name {
			return &res.Benchmarks[i]
		}
	}
	return nil
}

func TestSearch(t *testing.T) {
	for _, tc := range []struct {
		name        string
		levels      []float64
		responsible int // 0: none
		changed     string
		unchanged   string
		spans       int
	}{
		{"one step of eight", []float64{100, 100, 100, 100, 100, 100, 300, 300, 300}, 6, "[6]", "[1 2 3 4 5 7 8]", 6},
		{"first commit", []float64{100, 50, 50, 50, 50, 50, 50}, 1, "[1]", "[2 3 4 5 6]", 4},
		{"last commit", []float64{100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 1000}, 11, "[11]", "[1 2 3 4 5 6 7 8 9 10]", 8},
		{"two halves", []float64{100, 100, 300, 300, 900, 900}, 0, "[2 4]", "[1 3 5]", 8},
		{"step by step", []float64{100, 100, 200, 200}, 2, "[2]", "[1 3]", 3},
		{"a big and a small step", []float64{100, 1000, 1000, 1000, 1300, 1300}, 1, "[1 4]", "[2 3 5]", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &series{levels: map[string][]float64{"Moved": tc.levels, "Still": make([]float64, len(tc.levels))}}
			for i := range s.levels["Still"] {
				s.levels["Still"][i] = 50
			}
			res := s.search(t, len(tc.levels)-1, Options{})
			if len(res.Benchmarks) != 1 {
				t.Fatalf("%d benchmarks moved, want 1 (Moved)", len(res.Benchmarks))
			}
			b := find(res, "Moved")
			var changed []int
			for _, st := range b.Changed {
				changed = append(changed, st.Position)
			}
			got := 0
			if b.Responsible != nil {
				got = b.Responsible.Position
			}
			if got != tc.responsible || fmt.Sprint(changed) != tc.changed || fmt.Sprint(b.Unchanged) != tc.unchanged {
				t.Errorf("responsible %d, changed %v, unchanged %v; want %d, %s, %s (reason %q)", got, changed, b.Unchanged, tc.responsible, tc.changed, tc.unchanged, b.Reason)
			}
			if len(s.spans) != tc.spans || res.Measured != tc.spans {
				t.Errorf("measured %d spans %v, want %d", res.Measured, s.spans, tc.spans)
			}
		})
	}
}

// Each benchmark is searched only where it moved, and only moved
// benchmarks are measured.
func TestSearchSeveral(t *testing.T) {
	s := &series{levels: map[string][]float64{
		"A":     {100, 100, 100, 200, 200, 200, 200, 200, 200},
		"B":     {100, 100, 100, 100, 100, 100, 100, 100, 50},
		"Still": {70, 70, 70, 70, 70, 70, 70, 70, 70},
	}}
	res := s.search(t, 8, Options{})
	a, b := find(res, "A"), find(res, "B")
	if a == nil || b == nil || find(res, "Still") != nil {
		t.Fatalf("moved %+v, want A and B", res.Benchmarks)
	}
	if a.Responsible == nil || a.Responsible.Position != 3 || b.Responsible == nil || b.Responsible.Position != 8 {
		t.Errorf("A at %+v, B at %+v: want 3 and 8", a.Responsible, b.Responsible)
	}
	if a.Responsible.Subject != "commit 3" || a.Responsible.Commit != "c3" || a.Responsible.DeltaPct < 90 {
		t.Errorf("A's step %+v", a.Responsible)
	}
	if got := BenchNames([]Key{{Benchmark: "Scan/small-8"}, {Benchmark: "Scan/big-8"}, {Benchmark: "Put-2"}}); fmt.Sprint(got) != "[Put Scan]" {
		t.Errorf("BenchNames = %v", got)
	}
	if f := BenchFilter([]string{"A.b", "C"}); f != `^Benchmark(A\.b|C)$` {
		t.Errorf("BenchFilter = %s", f)
	}
	if f := BenchFilter([]string{"Scan/small", "Work", "Scan/big"}); f != `^Benchmark(Scan|Work)$` {
		t.Errorf("BenchFilter of sub-benchmarks = %s", f)
	}
	for in, want := range map[string]string{"BenchmarkScan/small-8": "Scan/small", "Work-2": "Work", "Level": "Level"} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

// A change made of small steps, none significant on its own, has no
// commit responsible.
func TestSearchGradual(t *testing.T) {
	levels := []float64{100}
	for range 5 {
		levels = append(levels, levels[len(levels)-1]*1.08)
	}
	s := &series{levels: map[string][]float64{"Slow": levels}, spread: map[string]float64{"Slow": 0.3}}
	res := s.search(t, 5, Options{})
	if len(res.Benchmarks) != 1 {
		t.Fatalf("moved %+v, want Slow (+47%%)", res.Benchmarks)
	}
	b := res.Benchmarks[0]
	if b.Responsible != nil || len(b.Changed) != 0 || b.Reason != "no single step changed it significantly" {
		t.Errorf("responsible %+v, changed %+v, reason %q: want none, no step", b.Responsible, b.Changed, b.Reason)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "no single commit is responsible: no single step changed it significantly") {
		t.Errorf("text:\n%s", buf.String())
	}
}

func TestMinChange(t *testing.T) {
	s := &series{levels: map[string][]float64{"Moved": {100, 100, 110, 110, 110, 110}}}
	if res := s.search(t, 5, Options{MinChangePct: 15}); len(res.Benchmarks) != 0 || res.Measured != 0 {
		t.Errorf("a 10%% change bisected at min change 15%%: %+v", res)
	}
	if res := s.search(t, 5, Options{MinChangePct: 5}); len(res.Benchmarks) != 1 || res.Benchmarks[0].Responsible == nil {
		t.Errorf("a 10%% change not bisected at min change 5%%: %+v", res)
	}
}

func TestRender(t *testing.T) {
	s := &series{levels: map[string][]float64{"Write": {4.1e6, 4.1e6, 4.1e6, 3.6e6, 3.6e6, 3.6e6}}}
	res := s.search(t, 5, Options{})
	res.Commits[2].Subject = "wal: batch fsync\x1b[2J @team <b>"
	res.Benchmarks[0].Responsible.Subject = res.Commits[2].Subject
	var b bytes.Buffer
	if err := WriteText(&b, res); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.Contains(text, "Write ns/op: the -12.2% comes from 3/5 `wal: batch fsync [2J @team <b>` c3 (4.16 ms/op -> 3.65 ms/op, p=") ||
		!strings.Contains(text, "1/5, 2/5, 4/5, 5/5 unchanged") || strings.Contains(text, "\x1b") {
		t.Errorf("text:\n%q", text)
	}
	md := Markdown(res)
	if !strings.Contains(md, "- Write ns/op: the -12.2% comes from 3/5 `") || strings.Contains(md, "\x1b") {
		t.Errorf("markdown:\n%s", md)
	}
	b.Reset()
	if err := WriteJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Benchmarks []map[string]any `json:"benchmarks"`
	}
	if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	got := raw.Benchmarks[0]
	if got["commit"] != "c3" || got["position"] != 3.0 || got["delta_pct"].(float64) > -10 || got["overall"] == nil {
		t.Errorf("JSON:\n%s", b.String())
	}
}
