package main

import (
	"bytes"
	"context"
	"encoding/json"
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

// TestReportNoiseFloor: Checksum's change interval (-4.6% to +32.6%) reaches
// the default floor of 5%, so it is noisy; under a floor of 40% it is same.
// Append, 0 -> 8 B/op, has no percentage interval at all.
func TestReportNoiseFloor(t *testing.T) {
	verdicts := func(args ...string) map[string]jsonCandidateView {
		var stdout, stderr bytes.Buffer
		args = append([]string{"report", "--format", "json"}, append(args, "testdata/wal-base.txt", "testdata/wal-patch.txt")...)
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		var rep struct {
			Comparisons []struct {
				Benchmark, Unit string
				Candidates      []jsonCandidateView
			}
		}
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		out := map[string]jsonCandidateView{}
		for _, c := range rep.Comparisons {
			out[c.Benchmark+" "+c.Unit] = c.Candidates[0]
		}
		return out
	}
	def := verdicts()
	if c := def["Checksum-2 ns/op"]; c.Verdict != "noisy" || c.Lo == nil || c.Hi == nil || *c.Lo > -4 || *c.Hi < 30 {
		t.Errorf("default floor: Checksum %+v, want noisy with an interval of about [-4.6, 32.6]", c)
	}
	if c := def["Append-2 B/op"]; c.Verdict != "worse" || c.Lo != nil {
		t.Errorf("Append B/op 0 -> 8: %+v, want worse without a percentage interval", c)
	}
	if c := verdicts("--noise-floor", "40")["Checksum-2 ns/op"]; c.Verdict != "same" {
		t.Errorf("--noise-floor 40: Checksum %s, want same", c.Verdict)
	}
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"report", "--noise-floor", "0", "testdata/wal-base.txt", "testdata/wal-patch.txt"}, &bytes.Buffer{}, &stderr); err == nil {
		t.Error("--noise-floor 0: no error")
	}
}

// jsonCandidateView is the part of a JSON candidate the floor test reads.
type jsonCandidateView struct {
	Verdict string
	Lo      *float64 `json:"change_lo_pct"`
	Hi      *float64 `json:"change_hi_pct"`
}
