package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/gitrepo"
)

// bisectJSON is the part of perfbot bisect's JSON the tests read.
type bisectJSON struct {
	Commits []struct {
		Commit, Subject string
	} `json:"commits"`
	Benchmarks []struct {
		Benchmark string   `json:"benchmark"`
		Unit      string   `json:"unit"`
		Commit    *string  `json:"commit"`
		Position  int      `json:"position"`
		DeltaPct  *float64 `json:"delta_pct"`
		Reason    string   `json:"reason"`
		Changed   []struct {
			Position int `json:"position"`
		} `json:"changed"`
		Unchanged []int `json:"unchanged"`
	} `json:"benchmarks"`
	Measured int `json:"measured"`
}

// TestBisectGoRepo bisects a real Go module's series of five commits of
// which the third makes BenchmarkWork ten times slower (a step no loaded
// host hides) and names that commit, with the others unchanged. Adaptive
// sampling (--max-count) adds rounds to a comparison a loaded round left
// undecided.
func TestBisectGoRepo(t *testing.T) {
	if testing.Short() {
		t.Skip("benchmarks a series of commits")
	}
	r := gitrepo.New(t)
	base := r.Commit("work", gitrepo.WorkModule(20000, true))
	var commits []string
	for i := 1; i <= 5; i++ {
		if i == 3 {
			commits = append(commits, r.Commit("work: ten times the rounds", map[string]string{"work/work.go": gitrepo.WorkSource(200000)}))
			continue
		}
		commits = append(commits, r.Commit(fmt.Sprintf("notes %d", i), map[string]string{"NOTES": strings.Repeat("note\n", i)}))
	}
	args := []string{"bisect", "--repo", r.Dir, "--base", base, "--head", "main", "--no-sandbox", "--cache-dir", t.TempDir(),
		"--benchtime", "500x", "--count", "5", "--max-count", "10", "--instrument", "walltime", "-q"}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), append(args, "--format", "json"), &stdout, &stderr); err != nil {
		t.Fatalf("bisect: %v\n%s", err, stderr.String())
	}
	var res bisectJSON
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(res.Commits) != 5 || res.Commits[2].Commit != commits[2] || res.Commits[2].Subject != "work: ten times the rounds" {
		t.Fatalf("series %+v, want the 5 commits after base", res.Commits)
	}
	found := false
	for _, b := range res.Benchmarks {
		if b.Unit != "ns/op" {
			continue
		}
		if !strings.HasPrefix(b.Benchmark, "Work") {
			// Other is untouched; a loaded host may still move it, but
			// then no single commit holds its change.
			if b.Commit != nil {
				t.Errorf("%s blamed on %s, which did not change it:\n%s", b.Benchmark, *b.Commit, stdout.String())
			}
			continue
		}
		found = true
		if b.Commit == nil || *b.Commit != commits[2] || b.Position != 3 {
			t.Fatalf("Work: responsible %v at %d, want %s at 3 (reason %q):\n%s\n%s", b.Commit, b.Position, commits[2], b.Reason, stdout.String(), stderr.String())
		}
		if b.DeltaPct == nil || *b.DeltaPct < 100 {
			t.Errorf("Work: delta at commit 3 %v, want several hundred percent", b.DeltaPct)
		}
		if fmt.Sprint(b.Unchanged) != "[1 2 4 5]" {
			t.Errorf("Work: unchanged %v, want [1 2 4 5]", b.Unchanged)
		}
	}
	if !found {
		t.Fatalf("Work did not move from base to head:\n%s\n%s", stdout.String(), stderr.String())
	}
	// Five commits are halved. A half that a loaded round leaves
	// undecided is measured again, so the count varies with the host;
	// it stays bounded by two comparisons a commit.
	if res.Measured > 10 {
		t.Errorf("%d comparisons after the whole series of 5, want at most 10", res.Measured)
	}
}

// levelSeries is a repository whose command suite prints the number in
// the file "level", with a spread of a few percent from round to round;
// levels[0] is the base, the others the series.
func levelSeries(t *testing.T, levels []int) (config string, commits []string) {
	r := gitrepo.New(t)
	for i, l := range levels {
		commits = append(commits, r.Commit(fmt.Sprintf("level %d", i), map[string]string{"level": fmt.Sprintf("%d\n", l), "commit": fmt.Sprintf("%d\n", i)}))
	}
	config = filepath.Join(t.TempDir(), "perfbot.yaml")
	yaml := `project: {repo: ` + r.Dir + `, branch: main}
suites:
  level:
    command: 'echo "BenchmarkLevel 1 $(( $(cat level) + ({round} * 37 % 13) * $(cat level) / 200 )) ns/op"'
    parser: gobench
    count: 6
service:
  bisect: {min_change: 10%}
`
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return config, commits
}

// bisectLevels bisects a level series and returns perfbot bisect's
// output in format.
func bisectLevels(t *testing.T, levels []int, format string) string {
	config, commits := levelSeries(t, levels)
	args := []string{"bisect", "--config", config, "--base", commits[0], "--head", "main", "--no-sandbox",
		"--cache-dir", t.TempDir(), "-q", "--format", format}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("bisect: %v\n%s", err, stderr.String())
	}
	return stdout.String()
}

// TestBisectSpread: two commits of five each make the benchmark three
// times slower, so no single commit is responsible, and both are named.
func TestBisectSpread(t *testing.T) {
	out := bisectLevels(t, []int{1000, 1000, 3000, 3000, 9000, 9000}, "json")
	var res bisectJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Benchmarks) != 1 {
		t.Fatalf("%d moved benchmarks, want 1:\n%s", len(res.Benchmarks), out)
	}
	b := res.Benchmarks[0]
	if b.Commit != nil || !strings.Contains(b.Reason, "spread over 2/5, 4/5") {
		t.Errorf("commit %v, reason %q: want none, spread over 2/5 and 4/5", b.Commit, b.Reason)
	}
	if len(b.Changed) != 2 || b.Changed[0].Position != 2 || b.Changed[1].Position != 4 || fmt.Sprint(b.Unchanged) != "[1 3 5]" {
		t.Errorf("changed %v, unchanged %v: want 2 and 4 changed, 1, 3 and 5 unchanged", b.Changed, b.Unchanged)
	}
	// The JSON says outright that no commit is responsible.
	var raw struct{ Benchmarks []map[string]any }
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if c, ok := raw.Benchmarks[0]["commit"]; !ok || c != nil {
		t.Errorf("JSON commit %v (present %v), want null:\n%s", c, ok, out)
	}
}

// TestBisectOneStep: a four-commit series is measured commit by commit,
// and the second holds the change.
func TestBisectOneStep(t *testing.T) {
	text := bisectLevels(t, []int{1000, 1000, 1500, 1500, 1500}, "text")
	if !strings.Contains(text, "4 commits, 4 comparisons after the whole series") {
		t.Errorf("want one comparison per commit:\n%s", text)
	}
	if !strings.Contains(text, "the +50% comes from 2/4 `level 2`") || !strings.Contains(text, "1/4, 3/4, 4/4 unchanged") {
		t.Errorf("text:\n%s", text)
	}
}

// TestBisectBelowMinChange: a change smaller than the config's
// service.bisect.min_change is not bisected.
func TestBisectBelowMinChange(t *testing.T) {
	text := bisectLevels(t, []int{1000, 1000, 1050, 1050}, "text")
	if !strings.Contains(text, "0 comparisons after") || !strings.Contains(text, "nothing to bisect") {
		t.Errorf("text:\n%s", text)
	}
}

func TestBisectUsage(t *testing.T) {
	for _, args := range [][]string{
		{"bisect", "--head", "main"},
		{"bisect", "--base", "main"},
		{"bisect", "--base", "a", "--head", "b", "--format", "xml"},
		{"bisect", "--base", "a", "--head", "b", "--min-change", "-1"},
		{"bisect", "--base", "a", "--head", "b", "extra"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		var ue *usageError
		if err == nil || !errors.As(err, &ue) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}
