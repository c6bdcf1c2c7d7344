package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The shell commands of README.md and docs/, and what runs each:
//
//   - README.md's quickstart and docs/web.md's "Try it" (compare --save,
//     history): TestDocsWebTryIt; README's "go test ./...": .ci/run.
//   - docs/setup.md step 1 (go build, ./perfbot version) and step 4
//     (perfbot config check, perfbot doctor on the step 2 config):
//     TestDocsSetupSteps, against the binary step 1 builds.
//   - docs/venues.md's postfix commands: .ci/run (.ci/services), which
//     then runs the mail tests with PERFBOT_TEST_POSTFIX=1.
//
// Not run, and why: setup.md's install, apt-get, systemctl, journalctl and
// curl of the unit (root and systemd on the host); docs/service.md's
// serve and worker lines (daemons; serve_cmd_test.go and worker_cmd_test.go
// start them against fakes) and its history lines (a store with runs:
// TestDocsWebTryIt runs the same command); docs/cost.md's and docs/web.md's
// timing runs and benchmarks (measurements, not checks, on a loaded CI
// host); docs/web.md's curl | jq loop (web's tests read the same API).

// TestDocsSetupSteps follows docs/setup.md's steps 1, 2 and 4 as written,
// with the binary step 1 builds: version prints the build, the step 2
// config passes config check, and doctor on it says that the cgroups line
// becomes ok only after step 6 (while the unit has not run on this host).
func TestDocsSetupSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfbot")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "setup.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var ranBuild, ranVersion bool
	for _, words := range docBlock(t, filepath.Join(root, "docs", "setup.md"), "## 1. Build and install perfbot") {
		line := strings.Join(words, " ")
		switch {
		case strings.HasPrefix(line, "go build -o perfbot ./cmd/perfbot"):
			cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "perfbot"), "./cmd/perfbot")
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", line, err, out)
			}
			ranBuild = true
		case strings.HasPrefix(line, "./perfbot version"):
			out, err := exec.Command(filepath.Join(dir, "perfbot"), "version").CombinedOutput()
			if err != nil || !regexp.MustCompile(`^perfbot \S+ .*go1\.`).Match(out) {
				t.Errorf("./perfbot version: %v\n%s", err, out)
			}
			ranVersion = true
		}
	}
	if !ranBuild || !ranVersion {
		t.Fatalf("setup.md step 1 lacks go build or ./perfbot version (ran build %v, version %v)", ranBuild, ranVersion)
	}

	// Step 2's config, as /etc/perfbot/config.yaml: here in dir.
	m := regexp.MustCompile("(?s)## 2\\. Write the config.*?```yaml\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("setup.md step 2 has no yaml block")
	}
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, m[1], 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "perfbot")
	if out, err := exec.Command(bin, "config", "check", cfg).CombinedOutput(); err != nil {
		t.Fatalf("perfbot config check: %v\n%s", err, out)
	}

	// Step 4: doctor, in the unit's working directory (here dir). The
	// App's key is not there, so the github line fails without asking
	// GitHub anything; the lines checked are those of the host.
	cmd := exec.Command(bin, "doctor", "--config", cfg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PERFBOT_WEBHOOK_SECRET=")
	out, _ := cmd.CombinedOutput()
	lines := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 {
			lines[f[1]] = sc.Text()
		}
	}
	if !strings.HasPrefix(lines["config"], "ok") {
		t.Errorf("doctor's config line is not ok:\n%s", out)
	}
	if strings.Contains(string(out), "-----BEGIN") {
		t.Errorf("doctor printed a key:\n%s", out)
	}
	parent := "/sys/fs/cgroup/system.slice/perfbot.service"
	if _, err := os.Stat(parent); err == nil {
		t.Logf("%s exists (the unit has run on this host): the cgroups line is tried as it is", parent)
		return
	}
	if !strings.HasPrefix(lines["cgroups"], "warn") || !strings.Contains(lines["cgroups"], "ok after step 6 of docs/setup.md") {
		t.Errorf("doctor's cgroups line does not say it becomes ok after step 6:\n%s", out)
	}
	if !strings.Contains(lines["bubblewrap"], "once the unit runs") && strings.HasPrefix(lines["bubblewrap"], "ok") {
		t.Errorf("doctor's bubblewrap line does not say it ran without the unit's cgroup:\n%s", out)
	}
}

// TestDeployEnvTemplate: deploy/perfbot.env, which the unit reads and
// docs/setup.md installs, holds no secret, only commented KEY=value lines,
// and each variable it names is one the docs describe.
func TestDeployEnvTemplate(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "deploy", "perfbot.env"))
	if err != nil {
		t.Fatal(err)
	}
	var docs strings.Builder
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, f := range append(files, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	assign := regexp.MustCompile(`^#([A-Z][A-Z0-9_]*)=(.*)$`)
	n := 0
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "# ") || line == "#" {
			continue
		}
		m := assign.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("deploy/perfbot.env:%d: %q is neither a comment nor a commented-out KEY=value line", i+1, line)
			continue
		}
		n++
		if v := m[2]; v != "" && !strings.Contains(v, "example.org") && !strings.Contains(v, "example.com") && !strings.HasPrefix(v, "localhost") {
			t.Errorf("deploy/perfbot.env:%d: %s has a value that is not an example: %q", i+1, m[1], v)
		}
		if !strings.Contains(docs.String(), m[1]) {
			t.Errorf("deploy/perfbot.env:%d: %s is in no doc", i+1, m[1])
		}
	}
	if n < 10 {
		t.Errorf("deploy/perfbot.env names %d variables, want every venue's", n)
	}
}
