package mail

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

var number = regexp.MustCompile(`[-+]?[0-9][0-9,.]*%?x?`)

// TestFitTextReports lays out perfbot's own text reports (the report
// package's golden files) for mail: tables fit in 72 columns, other lines
// in 78 (but a single word longer than that), and no figure is lost.
func TestFitTextReports(t *testing.T) {
	files, err := filepath.Glob("../../report/testdata/golden/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no text reports: %v", err)
	}
	// perfbot report --format text of cmd/perfbot/testdata/wal-*.txt: long
	// titles above tables of 99 columns.
	files = append(files, "testdata/wal-report.txt")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in := string(data)
		out := FitText(in)
		for i, l := range strings.Split(out, "\n") {
			n := utf8.RuneCountInString(l)
			limit := TextWidth
			if strings.Contains(strings.TrimSpace(l), "  ") {
				limit = TableWidth // a table row
			}
			if n > limit && len(strings.Fields(l)) > 1 {
				t.Errorf("%s:%d: %d columns (limit %d): %q", f, i+1, n, limit, l)
			}
		}
		if strings.Contains(out, "\n    (p=") {
			t.Errorf("%s: a table was laid out as prose:\n%s", f, out)
		}
		if got, want := figures(out), figures(in); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: figures differ after layout:\n got %v\nwant %v", f, got, want)
		}
	}
}

// figures returns the distinct numbers of a text (a split table repeats
// its row names), sorted.
func figures(s string) []string {
	f := number.FindAllString(s, -1)
	sort.Strings(f)
	return slices.Compact(f)
}

func TestFitText(t *testing.T) {
	narrow := "name  a  b\nx     1  2\n"
	if got := FitText(narrow); got != narrow {
		t.Errorf("a narrow table changed:\n%s", got)
	}
	long := strings.Repeat("word ", 30)
	for _, l := range strings.Split(FitText("  "+long+"\n"), "\n") {
		if utf8.RuneCountInString(l) > TextWidth || (l != "" && !strings.HasPrefix(l, "  word")) {
			t.Errorf("prose line %q: want at most 78 columns, indent kept", l)
		}
	}
	// A title above a wide table stays a title; the table is split.
	titled := "github.com/acme/store/wal · sec/op\n" +
		"                 base.txt          patch.txt  vs base.txt  verdict\n" +
		"Append-2  872.15n ± 47%  69.55n ± 3%  -92.02%  better  (p=0.000 n=10)\n" +
		"geomean          402.8n       113.8n  -71.73%\n"
	out := FitText(titled)
	if !strings.HasPrefix(out, "github.com/acme/store/wal · sec/op\n") || !strings.Contains(out, "Append-2  ") || strings.Contains(out, "\n    (p=") {
		t.Errorf("titled table laid out as prose:\n%s", out)
	}
	wide := "bench     " + strings.Repeat("  column-name", 8) + "\n" + "BenchmarkA" + strings.Repeat("      1,234.5", 8) + "\n"
	out = FitText(wide)
	if !strings.Contains(out, "\n\nbench") || strings.Count(out, "BenchmarkA") < 2 {
		t.Errorf("a wide table is not split into narrower ones repeating the name:\n%s", out)
	}
}
