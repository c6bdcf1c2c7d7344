package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// numbers picks the figures of a benchstat-style row: centres with their
// scale suffix, interval percentages, deltas, p-values and counts.
var numbers = regexp.MustCompile(`[-+]?[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|[kMGTnµm])?%?|p=[0-9.]+|n=[0-9+]+|~`)

// rows maps each benchmark row (by table order and name) to its figures.
func rows(out string, names []string) []string {
	var got []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		for _, n := range names {
			if f[0] == n {
				rest := strings.TrimPrefix(strings.TrimSpace(line), n)
				got = append(got, n+": "+strings.Join(numbers.FindAllString(rest, -1), " "))
			}
		}
	}
	return got
}

// TestReportMatchesBenchstat runs benchstat and perfbot report on the same
// real Go benchmark files: every centre, interval, delta, p-value and count
// must print the same.
func TestReportMatchesBenchstat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds benchstat")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	benchstat := filepath.Join(t.TempDir(), "benchstat")
	if out, err := exec.Command("go", "build", "-o", benchstat, "golang.org/x/perf/cmd/benchstat").CombinedOutput(); err != nil {
		t.Fatalf("build benchstat: %v\n%s", err, out)
	}
	files := []string{"testdata/wal-base.txt", "testdata/wal-patch.txt"}
	want, err := exec.Command(benchstat, files...).Output()
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := run(context.Background(), append([]string{"report", "--method", "benchstat"}, files...), &got, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	names := []string{"Append-2", "Checksum-2"}
	w, g := rows(string(want), names), rows(got.String(), names)
	if len(w) != 8 || len(g) != len(w) {
		t.Fatalf("rows: benchstat %d, perfbot %d\nbenchstat:\n%s\nperfbot:\n%s", len(w), len(g), want, got.String())
	}
	for i := range w {
		if w[i] != g[i] {
			t.Errorf("row %d:\n benchstat %s\n perfbot   %s", i, w[i], g[i])
		}
	}
	// The geomeans of the time and throughput tables agree too.
	wg, gg := rows(string(want), []string{"geomean"}), rows(got.String(), []string{"geomean"})
	if len(gg) < 2 || len(wg) < 2 || wg[0] != gg[0] || wg[1] != gg[1] {
		t.Errorf("geomean rows differ:\n benchstat %q\n perfbot   %q", wg, gg)
	}
}

func TestReportUsage(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"report", "testdata/wal-base.txt"}, &bytes.Buffer{}, &stderr)
	if code := exitCode(err, &stderr); code != 2 {
		t.Errorf("exit %d for one file, want 2 (usage)", code)
	}
	err = run(context.Background(), []string{"report", "testdata/missing.txt", "testdata/wal-base.txt"}, &bytes.Buffer{}, &stderr)
	if err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("err = %v, want the missing file named", err)
	}
}
