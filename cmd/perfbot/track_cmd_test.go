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
	"github.com/perfbot/perfbot/store"
)

// TestTrackGoRepo tracks a real Go module over 10 commits of which one makes
// BenchmarkWork ten times slower, and finds that commit and nothing else.
// At five commits a side the rank test reaches p = 0.001, so the test asks
// for alpha 0.01, and for a minimum change of 30%. The step is ten times
// because a loaded host slows a whole run (both sides) by two or three
// times now and then, and one such run among five commits would otherwise
// overlap the step.
func TestTrackGoRepo(t *testing.T) {
	if testing.Short() {
		t.Skip("benchmarks 11 commits")
	}
	r := gitrepo.New(t)
	first := r.Commit("work", gitrepo.WorkModule(20000, true))
	var slow, beforeSlow string
	for i := 1; i <= 9; i++ {
		if i == 5 {
			beforeSlow = r.Git("rev-parse", "HEAD")
			slow = r.Commit("work: ten times the rounds", map[string]string{"work/work.go": gitrepo.WorkSource(200000)})
			continue
		}
		r.Commit(fmt.Sprintf("notes %d", i), map[string]string{"NOTES": strings.Repeat("note\n", i)})
	}
	db := filepath.Join(t.TempDir(), "perfbot.db")
	cache := t.TempDir()
	ctx := context.Background()
	trackArgs := func(extra ...string) []string {
		return append([]string{"track", "--repo", r.Dir, "--branch", "main", "--db", db, "--no-sandbox", "--cache-dir", cache,
			"--benchtime", "500x", "--count", "3", "--min-change", "30", "--alpha", "0.01", "--instrument", "walltime", "-q", "--format", "json"}, extra...)
	}
	var stdout, stderr bytes.Buffer
	if err := run(ctx, trackArgs("--from", first), &stdout, &stderr); err != nil {
		t.Fatalf("track: %v\n%s", err, stderr.String())
	}
	var cps []store.ChangePoint
	if err := json.Unmarshal(stdout.Bytes(), &cps); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	var work []store.ChangePoint
	for _, c := range cps {
		if c.Unit != "ns/op" {
			continue
		}
		if !strings.HasPrefix(c.Benchmark, "Work") {
			t.Errorf("change point in %s, which no commit changed: %+v", c.Benchmark, c)
			continue
		}
		work = append(work, c)
	}
	if len(work) != 1 {
		var hist bytes.Buffer
		st, _ := store.Open(ctx, store.SQLite, db)
		if pts, err := st.TrackedPoints(ctx, filepath.Clean(r.Dir)+"@main"); err == nil {
			for _, p := range pts {
				fmt.Fprintf(&hist, "%.12s %.12s base=%v %s %s %g\n", p.Parent, p.Commit, p.Base, p.Key.Benchmark, p.Key.Unit, p.Centre)
			}
		}
		st.Close()
		t.Fatalf("%d change points of Work, want 1:\n%s\n%s\n%s", len(work), stdout.String(), stderr.String(), hist.String())
	}
	c := work[0]
	if c.Commit != slow || c.CommitBefore != beforeSlow || c.NBefore != 5 || c.NAfter != 5 {
		t.Errorf("change point at %s (after %s, %d|%d commits), want %s after %s, 5|5", c.Commit, c.CommitBefore, c.NBefore, c.NAfter, slow, beforeSlow)
	}
	if c.DeltaPct < 100 || !(c.BeforeLo <= c.Before && c.Before <= c.BeforeHi) || !(c.AfterLo <= c.After && c.After <= c.AfterHi) {
		t.Errorf("change point %+v: want about +200%% with intervals around the centres", c)
	}

	// The next run measures only the new commit, from where the store
	// left off, and keeps the change point.
	last := r.Commit("notes 10", map[string]string{"NOTES": "done\n"})
	stdout.Reset()
	if err := run(ctx, trackArgs(), &stdout, &stderr); err != nil {
		t.Fatalf("track again: %v\n%s", err, stderr.String())
	}
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	commits, err := st.TrackedCommits(ctx, filepath.Clean(r.Dir)+"@main")
	if err != nil {
		t.Fatal(err)
	}
	if len(commits) != 10 || !commits[last] || !commits[slow] {
		t.Errorf("tracked %d commits, want the 10 after the first", len(commits))
	}
	stdout.Reset()
	if err := run(ctx, []string{"changes", "--db", db}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), slow[:12]) || !strings.Contains(stdout.String(), beforeSlow[:12]+".."+slow[:12]) {
		t.Errorf("perfbot changes:\n%s", stdout.String())
	}
}

// levelTrackRepo is a repository whose command suite prints the number in
// the file "level" with a spread of a few percent from round to round.
func levelTrackRepo(t *testing.T, levels []int) (dir, config string, commits []string) {
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
    count: 3
track:
  branches:
    - {branch: main, from: ` + commits[0] + `}
`
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return r.Dir, config, commits
}

func TestTrackNoChange(t *testing.T) {
	levels := []int{1000, 1000, 1010, 990, 1000, 1020, 1000, 985, 1000, 1005, 1000, 995, 1000}
	_, config, _ := levelTrackRepo(t, levels)
	db := filepath.Join(t.TempDir(), "perfbot.db")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"track", "--config", config, "--db", db, "--no-sandbox",
		"--cache-dir", t.TempDir(), "-q"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("track: %v\n%s", err, stderr.String())
	}
	if strings.TrimSpace(stdout.String()) != "no change points" {
		t.Errorf("a history without a change:\n%s", stdout.String())
	}
}

func TestTrackCommandSuiteStep(t *testing.T) {
	levels := []int{1000, 1000, 1010, 990, 1000, 1020, 1000, 1500, 1510, 1490, 1500, 1505, 1500, 1495}
	_, config, commits := levelTrackRepo(t, levels)
	db := filepath.Join(t.TempDir(), "perfbot.db")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"track", "--config", config, "--db", db, "--no-sandbox",
		"--cache-dir", t.TempDir(), "-q", "--format", "json"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("track: %v\n%s", err, stderr.String())
	}
	var cps []store.ChangePoint
	if err := json.Unmarshal(stdout.Bytes(), &cps); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(cps) != 1 || cps[0].Commit != commits[7] || cps[0].CommitBefore != commits[6] || cps[0].Benchmark != "Level" {
		t.Fatalf("change points %s, want one at %s", stdout.String(), commits[7])
	}
	if d := cps[0].DeltaPct; d < 45 || d > 55 {
		t.Errorf("delta %.1f%%, want about +50%%", d)
	}
	// The JSON contract of /api/changes and perfbot changes.
	var raw []map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"benchmark", "params", "unit", "commit", "before", "after", "delta_pct"} {
		if _, ok := raw[0][k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, stdout.String())
		}
	}
}

func TestTrackUsage(t *testing.T) {
	for _, args := range [][]string{
		{"track", "--format", "xml"},
		{"track", "--max-commits", "-1"},
		{"track", "extra"},
		{"changes", "--format", "yaml"},
		{"changes", "--limit", "-2"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		var ue *usageError
		if err == nil || !errors.As(err, &ue) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}
