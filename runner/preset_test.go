package runner

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/sandbox"
)

// TestRunHyperfinePreset runs the hyperfine preset end to end: its command,
// its file output and its parser come from the preset, the timed command
// from the variants' vars.
func TestRunHyperfinePreset(t *testing.T) {
	if _, err := exec.LookPath("hyperfine"); err != nil {
		t.Skip("hyperfine not found (Debian: apt-get install -y hyperfine)")
	}
	c, err := config.Parse([]byte(`suites:
  sleep:
    preset: hyperfine
    count: 3
    vars: {runs: "5", warmup: "0", target: "'sleep {t}'"}
    variants:
      slow: {vars: {t: "0.3"}}
      fast: {vars: {t: "0.01"}}
`), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := gitrepo.New(t)
	r.Commit("empty", map[string]string{"README": "x\n"})
	out, err := Run(context.Background(), Options{Decide: decideBy(compare.Options{}),
		Repo: r.Dir, Base: "HEAD", Suites: c.Suites,
		CacheDir: t.TempDir(), Sandbox: sandbox.Local{}, SandboxName: "none", Env: os.Environ(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	mean := map[string][]float64{}
	for _, res := range out.Results {
		if res.Metric == "" && res.Unit == "s" {
			mean[res.Variant] = append(mean[res.Variant], res.Samples...)
		}
	}
	if len(mean["slow"]) == 0 || len(mean["fast"]) == 0 {
		var units []string
		for _, res := range out.Results {
			units = append(units, res.Variant+" "+res.Benchmark+" "+res.Metric+" "+res.Unit)
		}
		t.Fatalf("no times in seconds for both variants; results: %v", units)
	}
	// Medians, not extremes: on a loaded host one run of either side can be
	// delayed by tens of milliseconds, and hyperfine subtracts its estimate
	// of the shell's start-up, which moves single runs either way. The two
	// sleeps differ by 290 ms, far more than such delays, so the order holds
	// on a host with dozens of runnable processes.
	if median(mean["slow"]) <= median(mean["fast"]) {
		t.Errorf("sleep 0.3 (median %v of %v) is not slower than sleep 0.01 (median %v of %v)",
			median(mean["slow"]), mean["slow"], median(mean["fast"]), mean["fast"])
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
