package job

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/job/jobspec"
)

// TestRunConfirmsRegressions: a benchmark the first run calls worse is run
// again in fresh rounds; it stays worse only when the second run agrees.
// The suite's command counts its calls in a file outside the worktrees,
// and the candidate (whose tree has the file "slow") is 50% slower only in
// its first calls, like a burst of load that hit one side's rounds.
func TestRunConfirmsRegressions(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("work", map[string]string{"work": "1\n"})
	r.Git("checkout", "-q", "-b", "slower")
	r.Commit("same work, a marker", map[string]string{"slow": "1\n"})
	r.Git("checkout", "-q", "main")

	calls := filepath.Join(t.TempDir(), "calls")
	// run runs the job with the candidate slow for its first `slow` calls
	// and returns its outcome and how many times the command ran.
	run := func(t *testing.T, slow int, noConfirm bool) (*Outcome, int) {
		t.Helper()
		if err := os.WriteFile(calls, []byte("0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		script := "n=$(cat " + calls + "); echo $((n+1)) > " + calls + "; extra=0; " +
			"if [ -f {worktree}/slow ] && [ $n -lt " + strconv.Itoa(slow) + " ]; then extra=50; fi; " +
			"printf 'BenchmarkWork 1 %s ns/op\\n' $((100+extra+n%3))"
		yaml := "suites:\n  work:\n    command: " + strconv.Quote(script) + "\n    parser: gobench\n    count: 6\n"
		file := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Config: cfg, Repo: "file://" + r.Dir, CacheDir: t.TempDir(), NoSandbox: true, Seed: 7, NoConfirm: noConfirm}
		out, err := Run(context.Background(), jobspec.Spec{CandidateRef: "slower", Source: "cli"}, opts)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(calls)
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		return out, n
	}
	verdict := func(out *Outcome) compare.Candidate {
		t.Helper()
		for _, row := range out.Comparison.Rows {
			if row.Benchmark == "Work" && len(row.Candidates) == 1 {
				return row.Candidates[0]
			}
		}
		t.Fatalf("no row of Work in %+v", out.Comparison.Rows)
		return compare.Candidate{}
	}
	warned := func(out *Outcome, s string) bool {
		for _, w := range out.Comparison.Warnings {
			if strings.Contains(w, s) {
				return true
			}
		}
		return false
	}

	// Without confirmation, the first run's regression is posted.
	out, first := run(t, 1<<30, true)
	if c := verdict(out); c.Verdict != compare.Worse || strings.Contains(c.Note, "confirmed") {
		t.Fatalf("without confirmation: verdict %q note %q, want worse as measured", c.Verdict, c.Note)
	}
	if first < 12 {
		t.Fatalf("the command ran %d times, want at least 6 rounds a side", first)
	}

	t.Run("confirmed", func(t *testing.T) {
		out, n := run(t, 1<<30, false)
		c := verdict(out)
		if c.Verdict != compare.Worse || !strings.Contains(c.Note, compare.ConfirmedNote) {
			t.Errorf("verdict %q note %q, want worse %s", c.Verdict, c.Note, compare.ConfirmedNote)
		}
		if n < first+12 {
			t.Errorf("the command ran %d times, want a second run after the first %d", n, first)
		}
		if !warned(out, "1 confirmed by a second run, 0 not confirmed") {
			t.Errorf("warnings %q do not say the regression was confirmed", out.Comparison.Warnings)
		}
	})
	t.Run("seen once", func(t *testing.T) {
		out, n := run(t, first, false)
		c := verdict(out)
		if c.Verdict != compare.Noisy || !strings.Contains(c.Note, compare.UnconfirmedNote) {
			t.Errorf("verdict %q note %q, want noisy, %s", c.Verdict, c.Note, compare.UnconfirmedNote)
		}
		if n < first+12 {
			t.Errorf("the command ran %d times, want a second run after the first %d", n, first)
		}
		if !warned(out, "0 confirmed by a second run, 1 not confirmed and called noisy") {
			t.Errorf("warnings %q do not say the regression was not confirmed", out.Comparison.Warnings)
		}
		if s := out.Comparison.Summary[0]; s.Worse != 0 || s.Noisy != 1 {
			t.Errorf("summary %+v, want the regression counted noisy", s)
		}
	})
}

func TestRegressedGoBenchmarks(t *testing.T) {
	cmp := &compare.Comparison{Rows: []compare.Row{
		{Benchmark: "Append/size=64", Candidates: []compare.Candidate{{Verdict: compare.Worse}}},
		{Benchmark: "Append/size=128", Candidates: []compare.Candidate{{Verdict: compare.Worse}}},
		{Benchmark: "Checksum", Candidates: []compare.Candidate{{Verdict: compare.Same}}},
		{Benchmark: "Re.Play", Candidates: []compare.Candidate{{Verdict: compare.Worse}}},
		{Benchmark: "Gone", Candidates: []compare.Candidate{{Presence: compare.Removed}}},
		// Names keep go test's -GOMAXPROCS suffix, which -bench does not match.
		{Benchmark: "Work-2", Candidates: []compare.Candidate{{Verdict: compare.Worse}}},
		{Benchmark: "Read/n=8-16", Candidates: []compare.Candidate{{Verdict: compare.Worse}}},
	}}
	if got, want := regressedGoBenchmarks(cmp), `^Benchmark(Append|Re\.Play|Work-2|Work|Read)$`; got != want {
		t.Errorf("pattern %q, want %q", got, want)
	}
	if got := regressedGoBenchmarks(&compare.Comparison{}); got != "" {
		t.Errorf("no regression: pattern %q, want none", got)
	}
}
