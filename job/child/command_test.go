package child

import (
	"context"
	"encoding/json"
	"github.com/perfbot/perfbot/job/jobspec"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/redact"
	"github.com/perfbot/perfbot/sandbox"
)

func TestCommand(t *testing.T) {
	ctx := context.Background()
	job := jobspec.Spec{Key: "k", BaseRef: "main", CandidateRef: "pull/1/head", Patch: "diff --git a/x b/x\n", Suites: []string{"a", "b"}}
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
	pinned := job
	pinned.CandidateCommit = "0123456789abcdef0123456789abcdef01234567"
	b := &Command{Argv: []string{"sh", "-c", `test "$1" = 0123456789abcdef0123456789abcdef01234567 && echo '{"base_variant":"ok"}'`, "sh", "{candidate}"}}
	if _, err := b.Run(ctx, pinned, nil); err != nil {
		t.Errorf("{candidate} of a pinned job is not its commit: %v", err)
	}
	for _, tt := range tests {
		b := &Command{Argv: []string{"sh", "-c", tt.script, "sh", "{base}", "{candidate}", "{suites}", "{patch}"},
			Answered: map[int]string{2: "patch"}}
		cmp, err := b.Run(ctx, job, nil)
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
	res, err := processRunner{}.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", "sleep 30 & sleep 30; echo done"}})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second || res.ExitCode == 0 {
		t.Errorf("cancelled command ran %v, exit %d", took, res.ExitCode)
	}
}

// TestCommandChildEnvironment: the child perfbot gets neither the
// tokens in perfbot's environment nor the database URL, but keeps what it
// needs (PATH, HOME, Go settings, non-secret PERFBOT_* settings) and what
// the caller hands it; a secret the child prints anyway (in a benchmark
// name, in its errors) is redacted before the comparison is decoded.
func TestCommandChildEnvironment(t *testing.T) {
	const token = "ghp_ChildEnvTestToken0123456789"
	const key = "-----BEGIN KEY-----\nMIIchildkey\"<x>\n-----END KEY-----"
	for _, kv := range [][2]string{{"GITHUB_TOKEN", token}, {"PERFBOT_WEBHOOK_SECRET", token + "w"}, {"JIRA_PASSWORD", token + "j"},
		{"PERFBOT_DATABASE_URL", "postgres://u:" + token + "@db/x"}, {"MY_API_KEY", token + "k"}, {"GITHUB_APP_PRIVATE_KEY", key},
		{"AWS_SECRET_ACCESS_KEY", token + "a"}, {"UNRELATED_SETTING", "x"},
		{"GOFLAGS", "-count=1"}, {"PERFBOT_GITHUB_URL", "https://ghe.example.com/api/v3/"}, {"HOME", "/root"}} {
		t.Setenv(kv[0], kv[1])
	}
	dir := t.TempDir()
	// The child finds the secrets (as a benchmark reading a file could)
	// and prints them, the key JSON-escaped.
	keyJSON, _ := json.Marshal(key)
	leak := token + " " + strings.Trim(string(keyJSON), `"`)
	if err := os.WriteFile(filepath.Join(dir, "leak"), []byte(leak), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `env > ` + dir + `/env; printf '{"base_variant":"base","candidate_variants":["patch"],"failures":[{"variant":"base","stage":"run","message":"%s"}]}\n' "$(cat ` + dir + `/leak)"; cat ` + dir + `/leak >&2; exit 1`
	b := &Command{Argv: []string{"sh", "-c", script}, Env: []string{"PERFBOT_NOISE_DB=/var/lib/perfbot/noise.db"},
		Secrets: []string{token, key}}
	cmp, err := b.Run(context.Background(), jobspec.Spec{Key: "k", BaseRef: "main"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{token, "MIIchildkey", "GITHUB_TOKEN", "PERFBOT_DATABASE_URL", "UNRELATED_SETTING", "AWS_SECRET"} {
		if strings.Contains(string(env), bad) {
			t.Errorf("the child's environment holds %s:\n%s", bad, env)
		}
	}
	for _, want := range []string{"PATH=", "HOME=/root", "GOFLAGS=-count=1", "PERFBOT_GITHUB_URL=", "PERFBOT_NOISE_DB=/var/lib/perfbot/noise.db"} {
		if !strings.Contains(string(env), want) {
			t.Errorf("the child's environment lacks %s:\n%s", want, env)
		}
	}
	if len(cmp.Failures) != 1 {
		t.Fatalf("failures = %+v", cmp.Failures)
	}
	if msg := cmp.Failures[0].Message; strings.Contains(msg, token) || strings.Contains(msg, "MIIchildkey") ||
		strings.Count(msg, redact.Mask) != 2 {
		t.Errorf("message = %q, want both secrets redacted", msg)
	}
}

// TestCommandProgress: the command's progress lines on stderr
// reach the progress func as they come, redacted, and stay out of the
// error text; the outcome it prints brings each cell's samples.
func TestCommandProgress(t *testing.T) {
	const token = "ghp_ProgressTestToken0123456789"
	script := `echo 'perfbot-progress {"stage":"run","suite":"go` + token + `","variant":"patch","round":2,"rounds":5,"elapsed_ns":1000000000,"remaining_ns":3000000000}' >&2
echo 'perfbot: an ordinary line' >&2
grep -q '"candidate_ref":"pull/1/head"' "$1" || exit 9
echo '{"comparison":{"base_variant":"base","candidate_variants":["patch"],"comparisons":[{"benchmark":"Work","unit":"sec/op","base":{"center":1},"candidates":[{"variant":"patch","center":2}]}]},"cells":[{"row":0,"candidate":-1,"samples":[1,1.5]},{"row":0,"candidate":0,"samples":[2,2.5]}]}'
test "$2" = fail && exit 3
exit 0`
	var got []job.Progress
	b := &Command{Argv: []string{"sh", "-c", strings.Replace(script, "echo '{", "test \"$2\" = fail || echo '{", 1), "sh", "{spec}", "fail"}, Secrets: []string{token}}
	_, err := b.Run(context.Background(), jobspec.Spec{Key: "k", CandidateRef: "pull/1/head"}, func(p job.Progress) { got = append(got, p) })
	if err == nil || strings.Contains(err.Error(), "perfbot-progress") || !strings.Contains(err.Error(), "an ordinary line") {
		t.Errorf("err = %v; want the ordinary lines and no progress", err)
	}
	if len(got) != 1 || got[0].Round != 2 || got[0].Rounds != 5 || got[0].Remaining != 3*time.Second ||
		strings.Contains(got[0].Suite, token) {
		t.Errorf("progress = %+v", got)
	}
	b.Argv[2], b.Argv[5] = script, "pass"
	cmp, err := b.Run(context.Background(), jobspec.Spec{Key: "k", CandidateRef: "pull/1/head"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := cmp.Rows[0]; len(r.Base.Samples) != 2 || r.Candidates[0].Samples[1] != 2.5 {
		t.Errorf("row = %+v; want the samples", r)
	}
}
