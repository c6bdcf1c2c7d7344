package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/sandbox"
)

func TestExecBenchmarker(t *testing.T) {
	ctx := context.Background()
	job := JobSpec{Key: "k", BaseRef: "main", CandidateRef: "pull/1/head", Patch: "diff --git a/x b/x\n", Suites: []string{"a", "b"}}
	tests := []struct {
		name    string
		script  string
		wantErr string
		check   func(t *testing.T, failures int, stage string)
	}{
		{"comparison", `echo '{"base_variant":"base","candidate_variants":["patch"],"comparisons":[]}'`, "", nil},
		{"placeholders", `test "$1 $2 $3" = "main pull/1/head a,b" && grep -q 'diff --git' "$4" && echo '{"base_variant":"ok"}'`, "", nil},
		{"nothing compared", `echo '{"base_variant":"base","failures":[{"variant":"base","stage":"build","message":"x"}]}'; exit 1`, "", func(t *testing.T, n int, stage string) {
			if n != 1 || stage != "build" {
				t.Errorf("failures %d, stage %q", n, stage)
			}
		}},
		{"patch does not apply", `echo 'error: patch failed: x:1' >&2; exit 2`, "", func(t *testing.T, n int, stage string) {
			if n != 1 || stage != "patch" {
				t.Errorf("failures %d, stage %q", n, stage)
			}
		}},
		{"crash", `echo boom >&2; exit 3`, "exited with status 3: boom", nil},
		{"garbage", `echo not json`, "not a comparison", nil},
	}
	for _, tt := range tests {
		b := &ExecBenchmarker{Argv: []string{"sh", "-c", tt.script, "sh", "{base}", "{candidate}", "{suites}", "{patch}"},
			Answered: map[int]string{2: "patch"}}
		cmp, err := b.Run(ctx, job)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if tt.check != nil {
			stage := ""
			if len(cmp.Failures) > 0 {
				stage = cmp.Failures[0].Stage
			}
			tt.check(t, len(cmp.Failures), stage)
		}
	}
}

// TestChildCancelled: a cancelled job's command and its children end at
// once.
func TestChildCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := childRunner{}.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", "sleep 30 & sleep 30; echo done"}})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second || res.ExitCode == 0 {
		t.Errorf("cancelled command ran %v, exit %d", took, res.ExitCode)
	}
}
