package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/internal/pgtest"
)

// levelRepo is a repository whose one benchmark prints the number in the
// file "level" plus a small per-round spread (0..6), and 20 more on the
// variant "base-again": calibrating it records deltas of about +2%.
func levelRepo(t *testing.T) (config, patch string) {
	r := gitrepo.New(t)
	r.Commit("level", map[string]string{"level": "1000\n"})
	patch = r.Patch("level: 1% more", map[string]string{"level": "1010\n"}, true)
	config = filepath.Join(t.TempDir(), "perfbot.yaml")
	yaml := `project:
  repo: ` + r.Dir + `
  branch: main
suites:
  level:
    command: 'o=0; [ {variant} = base-again ] && o=20; echo "BenchmarkLevel 1 $(( $(cat level) + o + ({round} * 37 % 7) )) ns/op"'
    parser: gobench
    count: 8
`
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return config, patch
}

func TestCalibrateThenCompare(t *testing.T) {
	for _, db := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "perfbot.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.Start(t).NewDB(t) }},
	} {
		t.Run(db.name, func(t *testing.T) {
			config, patch := levelRepo(t)
			dsn := db.dsn(t)
			cache := t.TempDir()
			ctx := context.Background()
			compareJSON := func(extra ...string) jsonNoise {
				t.Helper()
				var stdout, stderr bytes.Buffer
				args := append([]string{"compare", "--config", config, "--patch", patch, "--no-sandbox", "--format", "json", "--cache-dir", cache, "-q"}, extra...)
				if err := run(ctx, args, &stdout, &stderr); err != nil {
					t.Fatalf("compare: %v\n%s", err, stderr.String())
				}
				var rep jsonNoise
				if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
					t.Fatalf("json: %v\n%s", err, stdout.String())
				}
				return rep
			}
			// Without history a 1% change over a 0.6% spread is worse.
			if c := compareJSON("--db", dsn).Comparisons[0].Candidates[0]; c.Verdict != "worse" || c.NoiseThresholdPct != nil {
				t.Fatalf("before calibrating: %+v, want worse and no threshold", c)
			}
			for i := range 4 {
				var stdout, stderr bytes.Buffer
				err := run(ctx, []string{"calibrate", "--config", config, "--no-sandbox", "--count", "3", "--db", dsn, "--cache-dir", cache, "-q"}, &stdout, &stderr)
				if err != nil {
					t.Fatalf("calibrate %d: %v\n%s", i+1, err, stderr.String())
				}
				if out := stdout.String(); !strings.Contains(out, "Level") || !strings.Contains(out, "+1.99%") || !strings.Contains(out, "recorded 1 no-change deltas") {
					t.Fatalf("calibrate %d printed:\n%s", i+1, out)
				}
				if i == 3 && !strings.Contains(stdout.String(), "4      1.99%") {
					t.Errorf("after 4 runs the threshold should be 1.99%%:\n%s", stdout.String())
				}
			}
			// Now the same change is within the benchmark's learned noise.
			rep := compareJSON("--db", dsn)
			c := rep.Comparisons[0].Candidates[0]
			if c.Verdict != "same" || c.NoiseThresholdPct == nil || *c.NoiseThresholdPct < 1.9 || *c.NoiseThresholdPct > 2 || c.NoiseHistory != 4 {
				t.Errorf("after calibrating: %+v, want same under a 2%% threshold from 4 runs", c)
			}
			if !strings.Contains(strings.Join(c.Warnings, "\n"), "noise threshold 2.0% from 4 past runs") ||
				!strings.Contains(strings.Join(rep.Warnings, "\n"), "applied to 1 of 1 comparisons") {
				t.Errorf("history not visible: %q / %q", c.Warnings, rep.Warnings)
			}
			// The benchstat method ignores history.
			if c := compareJSON("--db", dsn, "--method", "benchstat").Comparisons[0].Candidates[0]; c.Verdict != "worse" || c.NoiseThresholdPct != nil {
				t.Errorf("benchstat method: %+v, want worse without a threshold", c)
			}
		})
	}
}

// jsonNoise is the part of --format json that shows learned noise.
type jsonNoise struct {
	Comparisons []struct {
		Candidates []struct {
			Verdict           string
			DeltaPct          float64  `json:"delta_pct"`
			NoiseThresholdPct *float64 `json:"noise_threshold_pct"`
			NoiseHistory      int      `json:"noise_history"`
			Warnings          []string
		}
	}
	Warnings []string
}

func TestCompareAdaptiveFlags(t *testing.T) {
	config, patch := levelRepo(t)
	var stdout, stderr bytes.Buffer
	// The patch's level is 1% off the baseline's, with a 0.6% spread:
	// decided in the 8 minimum rounds, so --max-count adds none.
	err := run(context.Background(), []string{"compare", "--config", config, "--patch", patch, "--no-sandbox", "--format", "json",
		"--cache-dir", t.TempDir(), "--max-count", "20", "--budget", "1m", "--seed", "12345", "-q"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("compare: %v\n%s", err, stderr.String())
	}
	var rep struct {
		Provenance struct {
			Seed   uint64
			Suites []struct {
				Rounds  int
				Warmup  int
				Stopped string
			}
			RunOrder []string `json:"run_order"`
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Provenance
	if p.Seed != 12345 || len(p.Suites) != 1 || p.Suites[0].Rounds != 8 || p.Suites[0].Warmup != 1 || p.Suites[0].Stopped != "decided" {
		t.Errorf("provenance %+v: want seed 12345, 8 rounds after 1 warm-up, stopped decided", p)
	}
	if len(p.RunOrder) != 18 || !strings.HasSuffix(p.RunOrder[0], "(warm-up)") {
		t.Errorf("run order %v: want 2 warm-ups and 16 rounds", p.RunOrder)
	}
}
