package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/gitrepo"
)

// jsonReport is the part of --format json a script would read.
type jsonReport struct {
	Comparisons []struct {
		Benchmark string
		Unit      string
		Better    string
		Base      struct {
			Center, Lo, Hi float64
			N              int
		}
		Candidates []struct {
			Variant  string
			Center   float64
			N        int
			DeltaPct float64 `json:"delta_pct"`
			Ratio    float64
			P        float64
			Verdict  string
			Test     string
			MDEPct   float64 `json:"mde_pct"`
		}
	}
	Geomean    json.RawMessage
	Provenance struct {
		RunOrder []string `json:"run_order"`
	}
}

// compareHalvedWork runs perfbot compare, with flags (which set --count
// and --benchtime), on a repository whose patch halves Work's loop and
// leaves Other alone; it returns standard output and the --out directory.
func compareHalvedWork(t *testing.T, flags ...string) (*bytes.Buffer, string) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	r := gitrepo.New(t)
	r.Commit("work", gitrepo.WorkModule(200000, true))
	patch := r.Patch("work: halve the loop", map[string]string{"work/work.go": gitrepo.WorkSource(100000)}, true)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := append([]string{"compare", "--repo", r.Dir, "--base", "main", "--patch", patch,
		"--instrument", "walltime", "--out", out, "--cache-dir", sharedCacheDir(t), "-q"}, flags...)
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("compare: %v\n%s", err, stderr.String())
	}
	return &stdout, out
}

// TestComparePatchTwiceAsFast measures wall time, which a busy neighbour
// on CI's two cores stretches: a round shares its core with it for a
// while or not at all, and one of its time slices (a few milliseconds) or
// a burst of another package's tests is a large part of a short round.
// With 200 iterations (about 50ms of Work) and 8 rounds a side, two busy
// loops beside the test made Work noisy (p 0.13 to 0.19). A Work round of
// 1000 iterations (a quarter of a second on an idle host) spans many time
// slices, so a neighbour weighs on every round more alike, and 16 rounds a
// side let the rank test see the halved loop even when a few rounds are
// stretched by more than it.
func TestComparePatchTwiceAsFast(t *testing.T) {
	const rounds = 16
	stdout, out := compareHalvedWork(t, "--count", strconv.Itoa(rounds), "--benchtime", "1000x", "--format", "json")
	var rep jsonReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, stdout.String())
	}
	found := 0
	for _, c := range rep.Comparisons {
		if c.Unit != "ns/op" {
			continue
		}
		cand := c.Candidates[0]
		t.Logf("%s: %s %+.1f%% p=%.4f n=%d+%d", c.Benchmark, cand.Verdict, cand.DeltaPct, cand.P, c.Base.N, cand.N)
		switch {
		case strings.HasPrefix(c.Benchmark, "Work"):
			found++
			// Half the work is -50%; a loaded machine (CI shares its two
			// cores) stretches single rounds, so allow a band around it.
			if cand.Verdict != "better" || cand.DeltaPct > -30 || cand.DeltaPct < -70 {
				t.Errorf("Work: verdict %s, delta %.1f%% (p=%.4f); want better near -50%%\n%s", cand.Verdict, cand.DeltaPct, cand.P, stdout.String())
			}
		case strings.HasPrefix(c.Benchmark, "Other"):
			found++
			// Other's code is the same on both sides, but the patch
			// moves it in the binary, and code alignment alone can
			// shift a loop by a few percent for real: a small flagged
			// change is possible, a large one is a mix-up. A large delta
			// the test could not tell from noise (a loaded host stretches
			// single rounds of either side) is no mix-up.
			if cand.Verdict != "noisy" && math.Abs(cand.DeltaPct) > 15 {
				t.Errorf("Other: verdict %s, delta %.1f%% (p=%.3f); want within 15%%", cand.Verdict, cand.DeltaPct, cand.P)
			}
		}
		if c.Base.N != rounds || cand.N != rounds {
			t.Errorf("%s: n = %d+%d, want %d+%d", c.Benchmark, c.Base.N, cand.N, rounds, rounds)
		}
		if c.Better != "lower" || cand.Test == "" {
			t.Errorf("%s: better=%q test=%q", c.Benchmark, c.Better, cand.Test)
		}
	}
	if found != 2 {
		t.Errorf("found %d of the 2 benchmarks in %s", found, stdout.String())
	}
	if len(rep.Provenance.RunOrder) != 2*rounds {
		t.Errorf("run order %v: want %d runs", rep.Provenance.RunOrder, 2*rounds)
	}
	for _, f := range []string{"report.txt", "report.md", "report.jira", "report.json", "results-base.txt", "results-patch.txt", "perfbot-chart-1.png", "perfbot-chart-1.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("--out lacks %s: %v", f, err)
		}
	}
}

func TestCompareBrokenPatchExits2(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	r := gitrepo.New(t)
	r.Commit("work", map[string]string{"go.mod": "module example.org/work\n", "work/work.go": gitrepo.WorkSource(10)})
	patch := r.Patch("x", map[string]string{"work/work.go": gitrepo.WorkSource(20)}, false)
	r.Commit("diverge", map[string]string{"work/work.go": strings.Replace(gitrepo.WorkSource(30), "x := sink", "y := sink\n\tx := y", 1)})
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"compare", "--repo", r.Dir, "--patch", patch, "--cache-dir", t.TempDir(), "-q"}, &bytes.Buffer{}, &stderr)
	if code := exitCode(err, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2; stderr: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "work/work.go") || !strings.Contains(stderr.String(), "hunk") {
		t.Errorf("stderr %q does not name the file and hunk", stderr.String())
	}
}

func TestCompareNothingComparedExits1(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	r := gitrepo.New(t)
	r.Commit("work", map[string]string{"go.mod": "module example.org/work\n", "work/work.go": gitrepo.WorkSource(10) + "\nfunc broken() { undefined() }\n", "work/work_test.go": gitrepo.WorkBench})
	patch := r.Patch("still broken", map[string]string{"work/work.go": gitrepo.WorkSource(20) + "\nfunc broken() { undefined() }\n"}, true)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"compare", "--repo", r.Dir, "--patch", patch, "--instrument", "walltime", "--cache-dir", sharedCacheDir(t), "-q"}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(stdout.String(), "FAILED: base: build") || !strings.Contains(stdout.String(), "undefined") {
		t.Errorf("report should name the failing sides with the compiler's message:\n%s", stdout.String())
	}
}
