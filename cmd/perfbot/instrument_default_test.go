package main

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"testing"

	"github.com/perfbot/perfbot/internal/gitrepo"
)

// TestCompareDefaultInstrumentIsAuto: perfbot compare on a Go repository
// without --config or --instrument chooses the instrument for the host
// (auto), and its answer names the instrument it chose and why: wall time
// on a quiet host, cpu-sim on a noisy one, wall time on a noisy one
// without valgrind.
func TestCompareDefaultInstrumentIsAuto(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	r := gitrepo.New(t)
	r.Commit("work", gitrepo.WorkModule(20000, true))
	patch := r.Patch("work: halve the loop", map[string]string{"work/work.go": gitrepo.WorkSource(10000)}, true)
	var stdout, stderr bytes.Buffer
	args := []string{"compare", "--repo", r.Dir, "--base", "main", "--patch", patch, "--bench", "Work",
		"--benchtime", "20x", "--count", "1", "--no-confirm", "--no-sandbox", "--cache-dir", t.TempDir(), "-q"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil && exitCode(err, &stderr) != 1 {
		t.Fatalf("compare: %v\n%s", err, stderr.String())
	}
	// The host's noise decides which; either way the answer says.
	why := regexp.MustCompile(`instrument (walltime|cpu-sim) \(auto\): (wall time on this host varied [0-9.]+% during the probe, (below|above) the 5% to detect(, but valgrind .*)?|the host's noise could not be probed)`)
	got := regexp.MustCompile(`\s+`).ReplaceAllString(stdout.String(), " ")
	m := why.FindAllStringSubmatch(got, -1)
	if len(m) < 2 {
		t.Fatalf("the answer does not name the instrument auto chose and why, in its summary and its provenance:\n%s", stdout.String())
	}
	instrument, side := m[0][1], m[0][3]
	t.Logf("%s", m[0][0])
	switch {
	case side == "below" && instrument != "walltime",
		side == "above" && instrument == "cpu-sim" && m[0][4] != "",
		side == "above" && instrument == "walltime" && m[0][4] == "":
		t.Errorf("auto chose %s although %q", instrument, m[0][0])
	}
}
