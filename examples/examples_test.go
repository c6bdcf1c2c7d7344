// Package examples runs the example configs end to end: each test builds
// perfbot, runs `perfbot compare --config examples/NAME.yaml --out DIR` on
// the real software the config drives, and checks the verdicts the physics
// demands in the JSON report. A test whose software is missing skips and
// names the Debian packages that provide it. The tests take minutes: they
// are skipped with -short, and need -timeout 30m (the first ycsb-release
// run downloads and compiles go-ycsb's dependencies).
package examples

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// report is the part of report.json the tests read.
type report struct {
	Base       string   `json:"base_variant"`
	Candidates []string `json:"candidate_variants"`
	Rows       []row    `json:"comparisons"`
	Failures   []struct {
		Variant, Stage, Message string
		LogTail                 string `json:"log_tail"`
	} `json:"failures"`
	Warnings []string `json:"warnings"`
}

type row struct {
	Benchmark  string            `json:"benchmark"`
	Group      string            `json:"group"`
	Params     map[string]string `json:"params"`
	Unit       string            `json:"unit"`
	Metric     string            `json:"metric"`
	Base       *cell             `json:"base"`
	Candidates []candidate       `json:"candidates"`
}

type cell struct {
	Center float64 `json:"center"`
	N      int     `json:"n"`
}

type candidate struct {
	Variant string  `json:"variant"`
	Center  float64 `json:"center"`
	Ratio   float64 `json:"ratio"`
	P       float64 `json:"p"`
	Verdict string  `json:"verdict"`
	// LoPct is the lower bound of the change's 95% interval.
	LoPct *float64 `json:"change_lo_pct"`
}

var (
	buildOnce sync.Once
	perfbot   string
	buildErr  error
)

// repoRoot is the repository root, where the example configs are run from.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// build compiles perfbot once for all tests.
func build(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "perfbot-examples-bin-")
		if err != nil {
			buildErr = err
			return
		}
		perfbot = filepath.Join(dir, "perfbot")
		cmd := exec.Command("go", "build", "-o", perfbot, "./cmd/perfbot")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/perfbot: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return perfbot
}

// runExample runs one example config, with flags added to the command
// line, and returns its JSON report.
func runExample(t *testing.T, name string, flags ...string) (*report, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("example runs take minutes; skipped with -short")
	}
	bin := build(t)
	out := t.TempDir()
	// The default cache directory keeps the clone, the worktrees, the Go
	// module cache and the trusted layer of the build cache between runs:
	// ycsb-release downloads go-ycsb's dependencies only the first time
	// (each side still compiles them, with a build cache of its own).
	args := append([]string{"compare", "--config", filepath.Join("examples", name+".yaml"), "--out", out, "--format", "json", "-q"}, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = repoRoot(t)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	stdout, err := cmd.Output()
	t.Logf("perfbot %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Second))
	if err != nil {
		t.Fatalf("perfbot compare %s: %v\nstderr:\n%s\nstdout:\n%s", name, err, stderr.String(), tail(string(stdout), 3000))
	}
	var r report
	if err := json.Unmarshal(stdout, &r); err != nil {
		t.Fatalf("report.json of %s: %v", name, err)
	}
	for _, f := range r.Failures {
		t.Errorf("%s failed at %s: %s\n%s", f.Variant, f.Stage, f.Message, f.LogTail)
	}
	for _, file := range []string{"report.txt", "report.md", "report.jira", "report.json"} {
		if st, err := os.Stat(filepath.Join(out, file)); err != nil || st.Size() == 0 {
			t.Errorf("--out %s: %s missing or empty (%v)", out, file, err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return &r, out
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// need skips the test when a program is missing.
func need(t *testing.T, program, packages string) {
	t.Helper()
	if _, err := exec.LookPath(program); err != nil {
		if _, err := os.Stat(program); err != nil {
			t.Skipf("%s not found: install it (Debian: apt-get install -y %s)", program, packages)
		}
	}
}

// rows returns the rows of a benchmark and unit (and metric, if not "*").
func rows(r *report, benchPrefix, unit, metric string) []row {
	var out []row
	for _, x := range r.Rows {
		if strings.HasPrefix(x.Benchmark, benchPrefix) && x.Unit == unit && (metric == "*" || x.Metric == metric) {
			out = append(out, x)
		}
	}
	return out
}

func logRows(t *testing.T, rs []row, param string) {
	t.Helper()
	for _, x := range rs {
		if x.Base == nil || len(x.Candidates) == 0 {
			continue
		}
		c := x.Candidates[0]
		t.Logf("%s %s=%s %s%s: %s %.4g  %s %.4g  ratio %.3f  p=%.3g  %s",
			x.Benchmark, param, x.Params[param], x.Unit, metricSuffix(x.Metric), "base", x.Base.Center, c.Variant, c.Center, c.Ratio, c.P, c.Verdict)
	}
}

func metricSuffix(m string) string {
	if m == "" {
		return ""
	}
	return " " + m
}

func isRoot() bool { return runtime.GOOS == "linux" && os.Geteuid() == 0 }
