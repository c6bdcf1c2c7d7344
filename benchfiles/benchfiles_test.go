package benchfiles

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/parse"
)

// TestCompareFiles compares two Go benchmark files of one base name in
// two folders: the sides are named by path, each side's file is recorded,
// and a line the parser skips is both passed to Warn and listed once in
// the comparison, with the warnings past MaxWarnings counted.
func TestCompareFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(sub string, ns float64, bad int) string {
		var b strings.Builder
		b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/wal\n")
		for i := range 8 {
			fmt.Fprintf(&b, "BenchmarkAppend-2 \t 1000 \t %.1f ns/op\n", ns+float64(i))
		}
		for range bad {
			b.WriteString("BenchmarkAppend-2 \t 0 \t 5 ns/op\n")
		}
		p := filepath.Join(dir, sub, "new.txt")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	files := []string{write("a", 100, 0), write("b", 200, MaxWarnings+2)}
	var warned []string
	cmp, err := Compare(context.Background(), files, Options{
		Compare: compare.Options{Alpha: 0.05, NoiseFloorPct: 5},
		Format:  "auto",
		Warn:    func(w *parse.SyntaxError) { warned = append(warned, w.Error()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Base != files[0] || !slices.Equal(cmp.Candidates, files[1:]) {
		t.Errorf("sides %q %q, want the paths %q", cmp.Base, cmp.Candidates, files)
	}
	if len(cmp.Provenance.Sides) != 2 || cmp.Provenance.Sides[1].Files[0] != files[1] {
		t.Errorf("provenance sides %+v, want one per file", cmp.Provenance.Sides)
	}
	if len(cmp.Rows) != 1 || !strings.HasPrefix(cmp.Rows[0].Benchmark, "Append") {
		t.Errorf("rows %+v, want the one benchmark", cmp.Rows)
	}
	if len(warned) != MaxWarnings+2 {
		t.Errorf("%d warnings passed on, want %d", len(warned), MaxWarnings+2)
	}
	want := fmt.Sprintf("%d more warnings about the input (see stderr)", 2)
	if len(cmp.Warnings) != MaxWarnings+1 || cmp.Warnings[MaxWarnings] != want || !strings.Contains(cmp.Warnings[0], "not positive") {
		t.Errorf("listed warnings %q, want %d and %q", cmp.Warnings, MaxWarnings, want)
	}
}

// TestCompareFilesErrors names the file that cannot be read.
func TestCompareFilesErrors(t *testing.T) {
	_, err := Compare(context.Background(), []string{"testdata-missing/a.txt", "b.txt"}, Options{Compare: compare.Options{Alpha: 0.05, NoiseFloorPct: 5}, Format: "auto"})
	if err == nil || !strings.Contains(err.Error(), "testdata-missing/a.txt") {
		t.Errorf("error %v, want one naming the missing file", err)
	}
}

func TestVariantNames(t *testing.T) {
	got := VariantNames([]string{"x/old.txt", "y/new.txt", "z/new.txt"})
	if want := []string{"old.txt", "y/new.txt", "z/new.txt"}; !slices.Equal(got, want) {
		t.Errorf("VariantNames = %q, want %q", got, want)
	}
}
