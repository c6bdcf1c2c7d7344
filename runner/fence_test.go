package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/sandbox"
)

// fenceBench is the baseline's benchmark: a fixed amount of shell work,
// timed.
const fenceBench = `#!/bin/sh
P=$1 D=$2
start=$(date +%s%N)
i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done
end=$(date +%s%N)
echo "BenchmarkWork 1 $((end-start)) ns/op"
`

// fenceAttack is what the patch puts in front of the same benchmark, as a
// TestMain would: on its first round it starts two long queries on the
// setup's server and leaves without waiting. One is a busy count, the
// other a busy loop that writes a file for each of its turns into hb in
// the data directory. The round's clients are ended with it; the server's backends,
// children of the postmaster that was there before the round, stay.
const fenceAttack = `#!/bin/sh
P=$1 D=$2
if [ ! -e $D/started ]; then
  touch $D/started
  mkdir -p $D/hb
  psql -X -q -h 127.0.0.1 -p $P -U postgres -d postgres -c "SELECT count(*) FROM generate_series(1, 10000000000)" > /dev/null 2>&1 &
  psql -X -q -h 127.0.0.1 -p $P -U postgres -d postgres -c "DO \$\$ DECLARE i bigint := 0; BEGIN LOOP i := i + 1; PERFORM count(*) FROM generate_series(1, 20000); EXECUTE format('COPY (SELECT %s) TO %L', i, '$D/hb/' || i); END LOOP; END \$\$" > /dev/null 2>&1 &
  for i in $(seq 300); do
    n=$(psql -X -tA -h 127.0.0.1 -p $P -U postgres -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()")
    [ "$n" -ge 2 ] && break
    sleep 0.1
  done
fi
start=$(date +%s%N)
i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done
end=$(date +%s%N)
echo "BenchmarkWork 1 $((end-start)) ns/op"
`

// fenceSetup starts PostgreSQL in the side's data directory; the
// benchmark may connect as its superuser.
const fenceSetup = `cd {datadir}
{pgbin}/initdb -D pg -U postgres -A trust --no-sync > initdb.log
{pgbin}/pg_ctl -D pg -l server.log -w -t 60 -o "-p {port} -k {datadir} -c listen_addresses=127.0.0.1 -c max_parallel_workers_per_gather=0" start > /dev/null
`

// heartbeatWatch runs every command through the inner runner and, around
// each of the baseline's rounds, reads how far the patch's busy loop in
// its server had got: inside the span in which the runner holds the other
// sides.
type heartbeatWatch struct {
	sandbox.Runner
	mu sync.Mutex
	// patchData is the patch side's data directory, from its command.
	patchData string
	// spans are the baseline rounds that saw the loop: its counter
	// before and after.
	spans [][2]string
	// rounds counts the baseline's rounds.
	rounds int
}

func (w *heartbeatWatch) Unwrap() sandbox.Runner { return w.Runner }

func (w *heartbeatWatch) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
	cmd := strings.Join(spec.Argv, " ")
	if spec.Service || !strings.Contains(cmd, "sh bench.sh") {
		return w.Runner.Run(ctx, spec)
	}
	f := strings.Fields(cmd[strings.Index(cmd, "sh bench.sh"):])
	data := f[len(f)-1]
	isPatch := strings.Contains(spec.Dir, "/wt/patch")
	w.mu.Lock()
	if isPatch {
		w.patchData = data
	}
	hb := ""
	if w.patchData != "" && !isPatch {
		hb = filepath.Join(w.patchData, "hb")
	}
	w.mu.Unlock()
	if hb == "" {
		return w.Runner.Run(ctx, spec)
	}
	before := readCounter(hb)
	res, err := w.Runner.Run(ctx, spec)
	after := readCounter(hb)
	w.mu.Lock()
	w.rounds++
	w.spans = append(w.spans, [2]string{before, after})
	w.mu.Unlock()
	return res, err
}

// readCounter reads how many turns the busy loop has made: the number of
// files it wrote ("" before it wrote any).
func readCounter(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return ""
	}
	return strconv.Itoa(len(entries))
}

// TestOtherSideFrozenDuringRounds reproduces a patch that leaves busy
// queries running in its side's PostgreSQL (started by setup:) after its
// round: the server's backends, descendants of a process older than the
// round, outlive it and would burn the CPU through the baseline's rounds,
// making an unchanged benchmark look faster on the patch. The patch's
// session must be frozen through every baseline round: its busy loop,
// watched from the host, makes no progress in any of them, the suite's
// provenance says how it was frozen and that the foreign CPU stayed under
// the bound, and no round was unfair.
func TestOtherSideFrozenDuringRounds(t *testing.T) {
	b := bubblewrap(t)
	out, watch, count := runFenceScenario(t, b)
	for i, s := range watch.spans {
		if s[0] != s[1] {
			t.Errorf("baseline round %d: the patch's busy query counted from %q to %q: it had the CPU during the round", i+1, s[0], s[1])
		}
	}
	prov := out.Provenance.Suites[0]
	if prov.ForeignCPUMs != nil {
		t.Logf("foreign CPU during rounds: %.3f ms", *prov.ForeignCPUMs)
	}
	t.Logf("isolation %q, %d rerun, %d unfair", prov.Isolation, prov.Rerun, prov.Unfair)
	if !strings.HasPrefix(prov.Isolation, "frozen (cgroup v") {
		t.Errorf("provenance isolation %q, want frozen by a cgroup freezer", prov.Isolation)
	}
	if prov.ForeignCPUMs == nil {
		t.Error("the foreign CPU time was not measured")
	} else if rounds := float64(2 * count); *prov.ForeignCPUMs > rounds {
		t.Errorf("the other sides used %.1f ms of CPU during %v rounds while frozen", *prov.ForeignCPUMs, rounds)
	}
	if prov.Rerun != 0 || prov.Unfair != 0 {
		t.Errorf("%d round(s) rerun and %d unfair, although the other side was frozen", prov.Rerun, prov.Unfair)
	}
	cmp, err := compare.Compare(out.Results, compare.Options{Base: "base", Candidates: []string{"patch"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range cmp.Rows {
		for _, c := range row.Candidates {
			t.Logf("%s: %s %+.1f%%", row.Benchmark, c.Verdict, c.DeltaPct)
			if c.Verdict == compare.Better {
				t.Errorf("%s: the patch looks %+.1f%% better: the baseline was slowed by the patch's server", row.Benchmark, c.DeltaPct)
			}
		}
	}
}

// TestOtherSideCountedWithoutFreezer runs the same patch with cgroups
// off: the patch's server cannot be frozen, the provenance says so, and
// its CPU time during the baseline's rounds, counted from /proc, makes
// them run again.
func TestOtherSideCountedWithoutFreezer(t *testing.T) {
	b := bubblewrap(t)
	b.CgroupParent = sandbox.NoCgroups
	out, _, _ := runFenceScenario(t, b)
	prov := out.Provenance.Suites[0]
	t.Logf("isolation %q, %d rerun, %d unfair", prov.Isolation, prov.Rerun, prov.Unfair)
	if !strings.HasPrefix(prov.Isolation, "freezing unavailable") || !strings.Contains(prov.Isolation, "/proc") {
		t.Errorf("provenance isolation %q, want freezing unavailable and the CPU counted from /proc", prov.Isolation)
	}
	if prov.ForeignCPUMs == nil || *prov.ForeignCPUMs <= 0 {
		t.Errorf("foreign CPU %v, want the patch's busy server counted", prov.ForeignCPUMs)
	}
	if prov.Rerun == 0 {
		t.Error("no round was run again although the patch's server burned the CPU through them")
	}
}

// runFenceScenario runs the baseline against the patch that leaves busy
// queries in its server, and checks that the busy loop ran at all.
func runFenceScenario(t *testing.T, b *sandbox.Bubblewrap) (*Outcome, *heartbeatWatch, int) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts two PostgreSQL servers; skipped with -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("a suite with setup under bubblewrap needs root")
	}
	if _, err := os.Stat(pgBin + "/postgres"); err != nil {
		t.Skipf("PostgreSQL 15 is not installed (apt-get install postgresql-15): %v", err)
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skipf("psql is not installed (apt-get install postgresql-client): %v", err)
	}
	r := gitrepo.New(t)
	r.Commit("benchmark", map[string]string{"bench.sh": fenceBench})
	patch := r.Patch("bench: warm the server up first", map[string]string{"bench.sh": fenceAttack}, false)
	env, err := sandbox.Environ(os.Environ(), sandbox.BaseEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	zero := 0
	suite := config.Suite{
		Name: "pg", Command: "sh bench.sh {port} {datadir}", Parser: "gobench",
		Count: 5, Warmup: &zero, Vars: map[string]string{"pgbin": pgBin}, Setup: fenceSetup,
	}
	watch := &heartbeatWatch{Runner: b}
	start := time.Now()
	out, err := Run(context.Background(), Options{Decide: decideBy(compare.Options{}),
		Repo: r.Dir, Base: "HEAD", Candidates: []Candidate{{Name: "patch", Patch: patch}},
		Suites: []config.Suite{suite}, CacheDir: searchableTempDir(t), Sandbox: watch, SandboxName: "bubblewrap", Env: env,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run took %s", time.Since(start).Round(time.Millisecond))
	for _, f := range out.Failures {
		t.Fatalf("%s failed at %s: %s\n%s", f.Variant, f.Stage, f.Message, f.LogTail)
	}
	// The loop ran: between the patch's rounds its counter moved.
	if watch.patchData == "" {
		t.Fatal("the patch's rounds were not seen")
	}
	t.Logf("the patch's busy loop's counter before and after each baseline round: %q", watch.spans)
	// The loop ran (it runs for ever once started, frozen or not);
	// otherwise the test would prove nothing.
	seen := map[string]bool{}
	for _, s := range watch.spans {
		for _, v := range s {
			if v != "" {
				seen[v] = true
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("the patch's busy loop never wrote its counter: it did not run, and the test proves nothing")
	}
	return out, watch, suite.Count
}
