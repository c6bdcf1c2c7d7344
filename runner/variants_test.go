package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/sandbox"
)

// settingsSuite reports, in Go benchmark format, a value that depends only
// on the variant's settings: the env var SPEED, the var {size} and the
// appended args. Setup writes a marker into {datadir} that the rounds read,
// and teardown records that it ran in a log outside the data directory.
func settingsSuite(log string) config.Suite {
	return config.Suite{
		Name:     "settings",
		Command:  `test -f {datadir}/up && echo "BenchmarkSettings/size={size} 1 $((SPEED * {size})) ns/op"; test {port} -gt 0`,
		Parser:   "gobench",
		Count:    4,
		Vars:     map[string]string{"size": "10"},
		Setup:    "cat {datadir}/conf.txt > {datadir}/up",
		Teardown: "echo teardown {variant} $(cat {datadir}/up) >> " + log,
		Variants: config.Variants{
			{Name: "slow", Env: map[string]string{"SPEED": "3"}, Files: map[string]string{"conf.txt": "slow-{port}"}},
			{Name: "fast", Env: map[string]string{"SPEED": "1"}, Files: map[string]string{"conf.txt": "fast-{port}"}, Args: "# args"},
		},
	}
}

func TestRunSettingsVariants(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("empty", map[string]string{"README": "nothing to build\n"})
	log := filepath.Join(t.TempDir(), "teardown.log")
	opts := Options{
		Repo: r.Dir, Base: "HEAD", Suites: []config.Suite{settingsSuite(log)},
		CacheDir: t.TempDir(), Sandbox: sandbox.Local{}, SandboxName: "none", Env: os.Environ(),
	}
	out, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	if strings.Join(out.Variants, ",") != "slow,fast" {
		t.Fatalf("variants %v, want slow,fast (the first is the baseline)", out.Variants)
	}
	got := map[string][]float64{}
	for _, res := range out.Results {
		if v, ok := res.Params.Get("size"); !ok || v != "10" {
			t.Errorf("result %s has params %v, want size=10", res.Benchmark, res.Params)
		}
		got[res.Variant] = append(got[res.Variant], res.Samples...)
	}
	want := map[string]float64{"slow": 30, "fast": 10}
	for v, w := range want {
		if len(got[v]) != 4 {
			t.Errorf("%s: %d samples, want 4", v, len(got[v]))
		}
		for _, x := range got[v] {
			if x != w {
				t.Errorf("%s: sample %v, want %v", v, x, w)
			}
		}
	}
	p := out.Provenance
	if len(p.Sides) != 2 || p.Sides[0].Commit != p.Sides[1].Commit {
		t.Errorf("sides %+v: want two variants of the same commit", p.Sides)
	}
	if s := strings.Join(p.Sides[1].Settings, "; "); !strings.Contains(s, "env SPEED=1") || !strings.Contains(s, "args # args") || !strings.Contains(s, "file conf.txt") {
		t.Errorf("fast's settings %q do not list env, args and file", s)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("teardown never ran: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "teardown fast fast-") || !strings.HasPrefix(lines[1], "teardown slow slow-") {
		t.Errorf("teardown log %q: want fast then slow, each with its own configuration", data)
	}
}

// TestRunTeardownAfterFailedSetup checks that a side whose setup fails is
// left out, still torn down, and reported.
func TestRunTeardownAfterFailedSetup(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("empty", map[string]string{"README": "x\n"})
	log := filepath.Join(t.TempDir(), "teardown.log")
	s := settingsSuite(log)
	s.Setup = `test "{variant}" = slow && cat {datadir}/conf.txt > {datadir}/up || { echo "cannot start" >&2; exit 3; }`
	out, err := Run(context.Background(), Options{
		Repo: r.Dir, Base: "HEAD", Suites: []config.Suite{s},
		CacheDir: t.TempDir(), Sandbox: sandbox.Local{}, SandboxName: "none", Env: os.Environ(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) != 1 || out.Failures[0].Variant != "fast" || out.Failures[0].Stage != "setup" || !strings.Contains(out.Failures[0].LogTail, "cannot start") {
		t.Fatalf("failures %+v: want fast's setup", out.Failures)
	}
	data, _ := os.ReadFile(log)
	if !strings.Contains(string(data), "teardown fast") || !strings.Contains(string(data), "teardown slow") {
		t.Errorf("teardown log %q: want both sides torn down", data)
	}
	for _, res := range out.Results {
		if res.Variant == "fast" {
			t.Fatalf("fast has results although its setup failed")
		}
	}
}

// TestRunTeardownOnCancel checks that teardown runs when the run is
// interrupted in the middle of a round.
func TestRunTeardownOnCancel(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("empty", map[string]string{"README": "x\n"})
	dir := t.TempDir()
	log := filepath.Join(dir, "teardown.log")
	s := settingsSuite(log)
	started := filepath.Join(dir, "started")
	s.Command = "touch " + started + "; sleep 30"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, err := os.Stat(started); err == nil {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			default:
			}
		}
	}()
	_, err := Run(ctx, Options{
		Repo: r.Dir, Base: "HEAD", Suites: []config.Suite{s},
		CacheDir: t.TempDir(), Sandbox: sandbox.Local{}, SandboxName: "none", Env: os.Environ(),
	})
	if err == nil {
		t.Fatal("Run returned no error after cancel")
	}
	data, _ := os.ReadFile(log)
	if strings.Count(string(data), "teardown") != 2 {
		t.Errorf("teardown log %q: want both sides torn down after cancel", data)
	}
}

func TestVariantCandidates(t *testing.T) {
	two := config.Variants{{Name: "a"}, {Name: "b", Ref: "v2"}, {Name: "c", Patch: "x.patch"}}
	base, cands, err := VariantCandidates([]config.Suite{{Name: "none"}, {Name: "s", Variants: two}, {Name: "t", Variants: two}})
	if err != nil {
		t.Fatal(err)
	}
	if base.Name != "a" || len(cands) != 2 || cands[0].Ref != "v2" || cands[1].Patch != "x.patch" || cands[1].Settings == nil {
		t.Errorf("base %v candidates %+v", base.Name, cands)
	}
	if _, _, err := VariantCandidates([]config.Suite{{Name: "s"}}); err == nil {
		t.Error("no variants: want an error")
	}
	other := config.Variants{{Name: "a"}, {Name: "z"}}
	if _, _, err := VariantCandidates([]config.Suite{{Name: "s", Variants: two}, {Name: "t", Variants: other}}); err == nil || !strings.Contains(err.Error(), "same variants") {
		t.Errorf("different variants per suite: err = %v", err)
	}
}
