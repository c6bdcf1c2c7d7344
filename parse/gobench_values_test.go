package parse

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

// TestGoBenchBadValues checks that values that were not measured are
// dropped with a warning naming the file and line, and that the rest of
// the line and of the file is kept.
func TestGoBenchBadValues(t *testing.T) {
	in := strings.Join([]string{
		"pkg: example.org/bad",
		"BenchmarkA-8 1000 NaN ns/op 64 B/op",
		"BenchmarkA-8 1000 +Inf ns/op 64 B/op",
		"BenchmarkA-8 1000 1e400 ns/op 64 B/op",
		"BenchmarkA-8 1000 -5 ns/op -64 B/op",
		"BenchmarkA-8 -1000 5 ns/op 64 B/op",
		"BenchmarkA-8 1000 1e308 ns/op 64 B/op",
		"BenchmarkA-8 1000 -3 score",
		"BenchmarkA-8 1000 inf allocs/op",
	}, "\n")
	var warnings []string
	ctx := WithWarnings(context.Background(), func(w *SyntaxError) { warnings = append(warnings, w.Error()) })
	var got []string
	err := GoBench{}.Parse(ctx, strings.NewReader(in), "bad.txt", func(r *bench.Result) error {
		got = append(got, r.Unit+"="+strings.Trim(strings.ReplaceAll(strings.TrimSpace(r.Source), "bad.txt", ""), ":")+":"+formatSamples(r.Samples))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"B/op=2:64", "B/op=3:64", "B/op=4:64", "ns/op=7:1e+308", "B/op=7:64", "score=8:-3"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("results\n got %v\nwant %v", got, want)
	}
	wantWarn := []string{
		"bad.txt:2: A-8 ns/op: value NaN is not a number; value dropped",
		"bad.txt:3: A-8 ns/op: value +Inf is infinite; value dropped",
		"bad.txt:4: A-8 ns/op: value 1e400 is out of range; value dropped",
		"bad.txt:5: A-8 ns/op: negative value -5 cannot be measured; value dropped",
		"bad.txt:5: A-8 B/op: negative value -64 cannot be measured; value dropped",
		"bad.txt:6: iteration count -1000 is not positive; line skipped",
		"bad.txt:8: A-8 score: negative value -3 kept",
		"bad.txt:9: A-8 allocs/op: value inf is infinite; value dropped",
	}
	if strings.Join(warnings, "\n") != strings.Join(wantWarn, "\n") {
		t.Errorf("warnings\n got %q\nwant %q", warnings, wantWarn)
	}
}

// TestStreamMatchesReader checks that the transient results of Stream
// carry what Reader's do.
func TestStreamMatchesReader(t *testing.T) {
	in := "pkg: p\nUnit score better=higher\nBenchmarkX/n=1-8 10 5 ns/op 3 score\nBenchmarkX/n=2-8 10 6 ns/op 4 score\n"
	var a, b []string
	collect := func(out *[]string) func(*bench.Result) error {
		return func(r *bench.Result) error {
			line, err := JSONLine(r)
			*out = append(*out, string(line))
			return err
		}
	}
	if err := Reader(context.Background(), strings.NewReader(in), "x", "auto", collect(&a)); err != nil {
		t.Fatal(err)
	}
	if err := Stream(context.Background(), strings.NewReader(in), "x", "auto", collect(&b)); err != nil {
		t.Fatal(err)
	}
	if strings.Join(a, "\n") != strings.Join(b, "\n") || len(a) != 4 {
		t.Errorf("Reader:\n%s\nStream:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	if !strings.Contains(a[1], `"better":"higher"`) {
		t.Errorf("unit metadata not applied: %s", a[1])
	}
}

func formatSamples(x []float64) string {
	var parts []string
	for _, v := range x {
		parts = append(parts, strings.TrimSpace(strings.ReplaceAll(fmtG(v), " ", "")))
	}
	return strings.Join(parts, ",")
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
