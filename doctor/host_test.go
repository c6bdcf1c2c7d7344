package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/store"
)

const simSuite = "suites:\n  sim:\n    command: ./bench\n    instrument: cpu-sim\n"
const perfSuite = "suites:\n  counters:\n    command: ./bench\n    perf_stat: true\n"
const plainSuite = "suites:\n  wall:\n    command: ./bench\n"

// emptyPath leaves the test a PATH with no tools on it.
func emptyPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
}

func TestValgrindNeededButMissingFails(t *testing.T) {
	emptyPath(t)
	r := Valgrind(context.Background(), parse(t, simSuite))
	if r.Status != Fail || !strings.Contains(r.Reason, "valgrind is not installed") || !strings.Contains(r.Reason, "suites: sim") {
		t.Errorf("valgrind = %v %q, want FAIL naming the suite", r.Status, r.Reason)
	}
	r = Valgrind(context.Background(), parse(t, plainSuite))
	if r.Status != Warn || !strings.Contains(r.Reason, "no suite uses instrument cpu-sim") {
		t.Errorf("valgrind unneeded = %v %q, want a warning", r.Status, r.Reason)
	}
}

// autoSuites say auto, or are Go suites that name no instrument (auto
// by default).
var autoSuites = []string{"suites:\n  wal:\n    preset: go\n    instrument: auto\n", "suites:\n  wal:\n    preset: go\n"}

// TestValgrindMissingUnderAutoWarns: a suite whose instrument is auto
// runs without valgrind (on wall time), so its absence is a warning.
func TestValgrindMissingUnderAutoWarns(t *testing.T) {
	for _, autoSuite := range autoSuites {
		if r := Valgrind(context.Background(), parse(t, autoSuite)); r.Status != OK || !strings.Contains(r.Reason, "instrument auto in suites: wal") {
			t.Errorf("%q: valgrind = %v %q, want ok (.ci/run installs valgrind)", autoSuite, r.Status, r.Reason)
		}
	}
	emptyPath(t)
	for _, autoSuite := range autoSuites {
		r := Valgrind(context.Background(), parse(t, autoSuite))
		if r.Status != Warn || !strings.Contains(r.Reason, "instrument auto in suites wal falls back to wall time") {
			t.Errorf("%q: valgrind = %v %q, want a warning that auto falls back to wall time", autoSuite, r.Status, r.Reason)
		}
	}
}

func TestValgrindRunsCachegrind(t *testing.T) {
	r := Valgrind(context.Background(), parse(t, simSuite))
	if r.Status != OK || !strings.Contains(r.Reason, "ran cachegrind") {
		t.Errorf("valgrind = %v %q, want ok (.ci/run installs valgrind)", r.Status, r.Reason)
	}
}

func TestPerfNeededButMissingFails(t *testing.T) {
	emptyPath(t)
	r := Perf(context.Background(), parse(t, perfSuite))
	if r.Status != Fail || !strings.Contains(r.Reason, "perf is not installed") || !strings.Contains(r.Reason, "counters") {
		t.Errorf("perf = %v %q, want FAIL naming the suite", r.Status, r.Reason)
	}
	if r := Perf(context.Background(), parse(t, plainSuite)); r.Status != Warn {
		t.Errorf("perf unneeded = %v %q, want a warning", r.Status, r.Reason)
	}
}

func TestGitMissingFails(t *testing.T) {
	if r := Git(context.Background()); r.Status != OK || !strings.HasPrefix(r.Reason, "git version ") {
		t.Errorf("git = %v %q", r.Status, r.Reason)
	}
	emptyPath(t)
	if r := Git(context.Background()); r.Status != Fail || !strings.Contains(r.Reason, "git is not installed") {
		t.Errorf("git off PATH = %v %q, want FAIL", r.Status, r.Reason)
	}
}

func TestSandboxStartsBubblewrap(t *testing.T) {
	ctx := context.Background()
	if r := Sandbox(ctx, parse(t, plainSuite)); r.Status != OK || !strings.Contains(r.Reason, "ran /bin/true in the sandbox") {
		t.Errorf("bubblewrap = %v %q, want ok", r.Status, r.Reason)
	}
	if r := Sandbox(ctx, parse(t, plainSuite+"sandbox: {mode: none}\n")); r.Status != Warn {
		t.Errorf("mode none = %v %q, want a warning", r.Status, r.Reason)
	}
	emptyPath(t)
	if r := Sandbox(ctx, parse(t, plainSuite)); r.Status != Fail || !strings.Contains(r.Reason, "bubblewrap") {
		t.Errorf("no bwrap = %v %q, want FAIL", r.Status, r.Reason)
	}
	if r := Sandbox(ctx, parse(t, plainSuite+"sandbox: {on_missing: warn}\n")); r.Status != Warn || !strings.Contains(r.Reason, "unsandboxed") {
		t.Errorf("no bwrap, on_missing warn = %v %q, want a warning", r.Status, r.Reason)
	}
}

func TestCgroupParentUnusableFails(t *testing.T) {
	dir := t.TempDir() // a directory, not a cgroup
	r := Cgroups(parse(t, plainSuite+"sandbox: {cgroup_parent: "+dir+"}\n"))
	if r.Status != Fail || !strings.Contains(r.Reason, "not a cgroup v2 directory") {
		t.Errorf("cgroups = %v %q, want FAIL: not a cgroup directory", r.Status, r.Reason)
	}
	if r := Cgroups(parse(t, plainSuite+"sandbox: {cgroup_parent: none}\n")); r.Status != OK || !strings.Contains(r.Reason, "rlimits only") {
		t.Errorf("cgroup_parent none = %v %q", r.Status, r.Reason)
	}
	// Automatic: whatever this host offers, never a failure.
	if r := Cgroups(parse(t, plainSuite)); r.Status == Fail {
		t.Errorf("automatic cgroups = %v %q, want ok or a warning", r.Status, r.Reason)
	}
}

func TestStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "perfbot.db")
	cfg := parse(t, plainSuite+"store: {path: "+file+"}\n")
	if r := Store(ctx, cfg); r.Status != OK || !strings.Contains(r.Reason, "does not exist yet") {
		t.Errorf("new store = %v %q", r.Status, r.Reason)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("the check created the store")
	}
	st, err := store.Open(ctx, store.SQLite, file)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := st.SchemaVersion(ctx)
	st.Close()
	if r := Store(ctx, cfg); r.Status != OK || !strings.HasSuffix(r.Reason, "schema version "+strconv.Itoa(want)) {
		t.Errorf("store = %v %q, want schema version %d", r.Status, r.Reason, want)
	}
	notDir := filepath.Join(dir, "perfbot.db", "x.db") // under a file
	if r := Store(ctx, parse(t, plainSuite+"store: {path: "+notDir+"}\n")); r.Status != Fail {
		t.Errorf("store under a file = %v %q, want FAIL", r.Status, r.Reason)
	}
	t.Setenv("DOCTOR_TEST_PG_URL", "")
	if r := Store(ctx, parse(t, plainSuite+"store: {driver: postgres, url_env: DOCTOR_TEST_PG_URL}\n")); r.Status != Fail || !strings.Contains(r.Reason, "DOCTOR_TEST_PG_URL") {
		t.Errorf("postgres without URL = %v %q, want FAIL naming the variable", r.Status, r.Reason)
	}
}

// TestFreezer: with cgroups off, a suite with setup gets a warning that
// its servers cannot be frozen; without such a suite it does not matter.
func TestFreezer(t *testing.T) {
	const setupSuite = "suites:\n  pg:\n    command: ./bench\n    setup: ./start-server\n"
	r := Freezer(parse(t, setupSuite+"sandbox: {cgroup_parent: none}\n"))
	if r.Status != Warn || !strings.Contains(r.Reason, "cannot be frozen") || !strings.Contains(r.Reason, "suites with setup: pg") {
		t.Errorf("cgroup_parent none with setup = %v %q, want a warning naming the suite", r.Status, r.Reason)
	}
	if r := Freezer(parse(t, plainSuite+"sandbox: {cgroup_parent: none}\n")); r.Status != OK || !strings.Contains(r.Reason, "no suite has setup") {
		t.Errorf("cgroup_parent none without setup = %v %q", r.Status, r.Reason)
	}
	r = Freezer(parse(t, setupSuite))
	if r.Status == Fail {
		t.Errorf("automatic = %v %q, want ok or a warning", r.Status, r.Reason)
	}
	if os.Geteuid() == 0 && r.Status == OK && !strings.Contains(r.Reason, "frozen (cgroup v") {
		t.Errorf("automatic = %q, want the freezer named", r.Reason)
	}
}

// TestCgroupParentOfUnitNotStarted: the setup guide's cgroup_parent, the
// unit's own cgroup, exists only once step 6 starts the unit; before that
// doctor says so instead of failing, and the sandbox and freezer lines run
// without it.
func TestCgroupParentOfUnitNotStarted(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "system.slice", "perfbot-doctor-test.service")
	cfg := parse(t, plainSuite+"sandbox: {cgroup_parent: "+parent+"}\n")
	r := Cgroups(cfg)
	if r.Status != Warn || !strings.Contains(r.Reason, "ok after step 6 of docs/setup.md") || !strings.Contains(r.Reason, "systemctl enable --now perfbot-doctor-test") {
		t.Errorf("cgroups = %v %q, want a warning that says which step makes it ok", r.Status, r.Reason)
	}
	if now, later := unitCgroup(parent); now != "" || !strings.Contains(later, "perfbot-doctor-test.service exists once the unit runs") {
		t.Errorf("unitCgroup = %q %q", now, later)
	}
	// The unit's cgroup exists (the unit runs): tried as it is, and a
	// directory that is no cgroup fails.
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := Cgroups(cfg); r.Status != Fail {
		t.Errorf("an existing directory that is no cgroup = %v %q, want FAIL", r.Status, r.Reason)
	}
}
