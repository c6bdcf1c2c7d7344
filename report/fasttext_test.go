package report

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/benchgen"
	"github.com/perfbot/perfbot/parse"
)

// renderText renders cmp as plain text with the fast tables or with the
// text.tmpl blocks alone.
func renderText(t testing.TB, cmp *compare.Comparison, fast bool) string {
	t.Helper()
	set, err := parseTemplates(venueText, "", fast)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := set.renderTo(&b, build(cmp, Options{})); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// genComparison compares n generated benchmarks of a baseline with the
// given candidates; rename, if set, renames the benchmarks of a side.
func genComparison(t testing.TB, n int, candidates []string, rename func(side string, r *bench.Result)) *compare.Comparison {
	t.Helper()
	var rs []*bench.Result
	for i, side := range append([]string{"base"}, candidates...) {
		var b bytes.Buffer
		if err := benchgen.Write(&b, benchgen.Options{Benchmarks: n, Count: 5, Candidate: i > 0, Seed: uint64(i + 1), Packages: 2}); err != nil {
			t.Fatal(err)
		}
		err := parse.GoBench{}.Parse(context.Background(), &b, side+".txt", func(r *bench.Result) error {
			r.Variant = side
			if rename != nil {
				rename(side, r)
			}
			rs = append(rs, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	cmp, err := compare.Compare(rs, compare.Options{Base: "base", Candidates: candidates})
	if err != nil {
		t.Fatal(err)
	}
	return cmp
}

// TestFastTextMatchesTemplate: the Go-written text tables are byte for
// byte what text.tmpl's "units" and "table" blocks write, on the seeds,
// the quickstart, several candidates, added and removed rows and names
// full of control bytes.
func TestFastTextMatchesTemplate(t *testing.T) {
	cases := map[string]*compare.Comparison{"quickstart": quickstartComparison(t)}
	for _, name := range seedNames {
		cases[name], _ = loadSeed(t, name)
	}
	cases["two candidates"] = genComparison(t, 30, []string{"p1", "p2"}, nil)
	cases["hostile names"] = genComparison(t, 20, []string{"patch"}, func(side string, r *bench.Result) {
		r.Benchmark += "\tx\x01\u2028é\x7f"
	})
	cases["added and removed"] = genComparison(t, 20, []string{"patch"}, func(side string, r *bench.Result) {
		if side == "patch" && strings.Contains(fmt.Sprint(r.Params), "huge") {
			r.Benchmark += "New"
		}
	})
	shapes := map[string]bool{}
	for name, cmp := range cases {
		t.Run(name, func(t *testing.T) {
			for _, s := range build(cmp, Options{}).Sections {
				shapes[s.Shape] = true
			}
			slow, fast := renderText(t, cmp, false), renderText(t, cmp, true)
			if slow != fast {
				t.Errorf("the fast text tables differ from text.tmpl:\n%s", lineDiff(slow, fast))
			}
		})
	}
	for _, s := range []string{ShapeUnits, ShapeTable} {
		if !shapes[s] {
			t.Errorf("no case has a %s section", s)
		}
	}
}

// BenchmarkRenderText renders 10,000 generated benchmarks as plain text.
func BenchmarkRenderText(b *testing.B) {
	cmp := genComparison(b, 10000, []string{"patch"}, nil)
	for _, fast := range []bool{false, true} {
		name := "template"
		if fast {
			name = "fast"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				renderText(b, cmp, fast)
			}
		})
	}
}

// TestTextWithoutDetails: plain text builds no details tables, and its
// sections and legend are those of a document that has them.
func TestTextWithoutDetails(t *testing.T) {
	cases := map[string]*compare.Comparison{"quickstart": quickstartComparison(t)}
	for _, name := range seedNames {
		cases[name], _ = loadSeed(t, name)
	}
	cases["generated"] = genComparison(t, 30, []string{"patch"}, nil)
	summed := 0
	for name, cmp := range cases {
		full, lean := build(cmp, Options{}), build(cmp, Options{noDetails: true})
		if len(lean.Details) != 0 {
			t.Errorf("%s: %d details tables without details", name, len(lean.Details))
		}
		if len(full.Details) > 0 {
			summed++
		}
		full.Details = nil
		if !reflect.DeepEqual(full, lean) {
			t.Errorf("%s: the document without details differs beyond them:\nlegend %v\nwant   %v", name, lean.Legend, full.Legend)
		}
	}
	if summed == 0 {
		t.Fatal("no case had details tables to leave out")
	}
}
