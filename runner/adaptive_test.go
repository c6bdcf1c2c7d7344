package runner

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/sandbox"
)

// roundSuite prints one Go benchmark line whose value depends only on the
// variant's LEVEL and the round number: LEVEL + (round*37 mod 7)*3, so the
// values of a side spread over 18 units, identically from run to run. The
// first round prints 999999, which only a warm-up may see.
func roundSuite(baseLevel, candLevel string) config.Suite {
	return config.Suite{
		Name:    "rounds",
		Command: `v=$((LEVEL + ({round} * 37 % 7) * 3)); [ {round} = 1 ] && v=999999; echo "BenchmarkRound 1 $v ns/op"`,
		Parser:  "gobench",
		Count:   3,
		Variants: config.Variants{
			{Name: "base", Env: map[string]string{"LEVEL": baseLevel}},
			{Name: "cand", Env: map[string]string{"LEVEL": candLevel}},
		},
	}
}

func runRounds(t *testing.T, suite config.Suite) *Outcome {
	t.Helper()
	r := gitrepo.New(t)
	r.Commit("empty", map[string]string{"README": "nothing to build\n"})
	out, err := Run(context.Background(), Options{
		Repo: r.Dir, Base: "HEAD", Suites: []config.Suite{suite}, Seed: 99,
		CacheDir: t.TempDir(), Sandbox: sandbox.Local{}, SandboxName: "none", Env: os.Environ(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	return out
}

// samples counts each variant's samples and fails on a warm-up value.
func samples(t *testing.T, out *Outcome) map[string]int {
	n := map[string]int{}
	for _, r := range out.Results {
		for _, x := range r.Samples {
			if x == 999999 {
				t.Errorf("%s: a warm-up round's result was kept", r.Variant)
			}
		}
		n[r.Variant] += len(r.Samples)
	}
	return n
}

func TestWarmupDiscarded(t *testing.T) {
	out := runRounds(t, roundSuite("100", "100"))
	if n := samples(t, out); n["base"] != 3 || n["cand"] != 3 {
		t.Errorf("samples %v, want 3 a side", n)
	}
	order := strings.Join(out.Provenance.RunOrder, " ")
	if strings.Count(order, "(warm-up)") != 2 || !strings.HasSuffix(out.Provenance.RunOrder[1], "(warm-up)") {
		t.Errorf("run order %q: want one warm-up round of each variant first", order)
	}
	s := out.Provenance.Suites[0]
	if s.Rounds != 3 || s.Warmup != 1 || s.Stopped != "" {
		t.Errorf("suite provenance %+v, want 3 rounds after 1 warm-up, not adaptive", s)
	}
	if out.Provenance.Seed != 99 {
		t.Errorf("seed %d, want 99", out.Provenance.Seed)
	}

	none := 0
	suite := roundSuite("100", "100")
	suite.Warmup = &none
	out = runRounds(t, suite)
	if strings.Contains(strings.Join(out.Provenance.RunOrder, " "), "warm-up") {
		t.Errorf("warmup: 0 still ran a warm-up: %v", out.Provenance.RunOrder)
	}
}

func TestAdaptiveSampling(t *testing.T) {
	for _, c := range []struct {
		name              string
		cand              string
		maxCount          int
		budget            time.Duration
		wantStop          string
		minRounds, rounds int // rounds in [minRounds, rounds]
		wantVerdict       compare.Verdict
	}{
		// 10% faster, hidden in an 18% spread: 3 rounds cannot tell, more do.
		{"decides", "90", 30, 0, StopDecided, 4, 29, compare.Better},
		// No change and a wide spread: never decided; max_count ends it.
		{"max_count", "100", 8, 0, StopMaxCount, 8, 8, ""},
		// A budget smaller than one round: the minimum only.
		{"budget", "100", 0, time.Nanosecond, StopBudget, 3, 3, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			suite := roundSuite("100", c.cand)
			suite.MaxCount, suite.Budget = c.maxCount, config.Duration(c.budget)
			out := runRounds(t, suite)
			s := out.Provenance.Suites[0]
			if s.Stopped != c.wantStop || s.Rounds < c.minRounds || s.Rounds > c.rounds {
				t.Errorf("stopped %q after %d rounds, want %q after %d..%d", s.Stopped, s.Rounds, c.wantStop, c.minRounds, c.rounds)
			}
			if n := samples(t, out); n["base"] != s.Rounds || n["cand"] != s.Rounds {
				t.Errorf("samples %v, want %d a side", n, s.Rounds)
			}
			if s.Rounds%2 == 0 {
				// Whole blocks: each variant ran first as often.
				first := map[string]int{}
				order := out.Provenance.RunOrder[2:] // after the warm-ups
				for i := 0; i < len(order); i += 2 {
					first[order[i]]++
				}
				if first["base"] != first["cand"] {
					t.Errorf("rounds led by base %d, by cand %d: want as many", first["base"], first["cand"])
				}
			}
			if c.wantVerdict != "" {
				cmp, err := compare.Compare(out.Results, compare.Options{Base: "base", Candidates: []string{"cand"}})
				if err != nil {
					t.Fatal(err)
				}
				if v := cmp.Rows[0].Candidates[0].Verdict; v != c.wantVerdict {
					t.Errorf("verdict %s, want %s", v, c.wantVerdict)
				}
			}
		})
	}
}
