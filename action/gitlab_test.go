package action_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/perfbot/perfbot/internal/fake/gitlabfake"
	"github.com/perfbot/perfbot/internal/gitrepo"
)

// gitlabTemplate is the included template's global variables and the
// perfbot job's script.
func gitlabTemplate(t *testing.T) (vars map[string]string, script string) {
	t.Helper()
	var doc struct {
		Variables map[string]string `yaml:"variables"`
		Perfbot   struct {
			Variables map[string]string `yaml:"variables"`
			Script    []string          `yaml:"script"`
		} `yaml:"perfbot"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(actionPath(t), "ci", "gitlab", "perfbot.gitlab-ci.yml"))), &doc); err != nil {
		t.Fatal(err)
	}
	vars = doc.Variables
	for k, v := range doc.Perfbot.Variables {
		vars[k] = v
	}
	return vars, strings.Join(doc.Perfbot.Script, "\n")
}

// TestGitLabTemplateNotesOnceAndEditsOnPush runs the template's job script
// as a GitLab runner would on a merge request pipeline (its predefined
// variables, sh), against a fake GitLab API: one note, edited in place
// when the merge request is pushed again.
func TestGitLabTemplateNotesOnceAndEditsOnPush(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	bin := filepath.Join(t.TempDir(), "perfbot")
	build := exec.Command("go", "build", "-o", bin, "./cmd/perfbot")
	build.Dir = actionPath(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	r := gitrepo.New(t)
	mergeBase := r.Commit("work", gitrepo.WorkModule(200000, true))
	r.Git("checkout", "-q", "-b", "feature")
	head := r.Commit("work: halve the loop", map[string]string{"work/work.go": gitrepo.WorkSource(100000)})

	fake := gitlabfake.New("glpat-project-token", "project_5_bot")
	t.Cleanup(fake.Close)
	fake.AddMR(gitlabfake.MR{Project: "acme/work", IID: 3, Title: "work: halve the loop", SHA: head})
	vars, script := gitlabTemplate(t)
	run := func(head string) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = r.Dir
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "CI_") && !strings.HasPrefix(kv, "PERFBOT_") && !strings.HasPrefix(kv, "GITLAB_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		for k, v := range vars {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Env = append(cmd.Env, "GITLAB_CI=true", "CI=true",
			"CI_PIPELINE_SOURCE=merge_request_event", "CI_PROJECT_DIR="+r.Dir, "CI_PROJECT_PATH=acme/work",
			"CI_SERVER_URL="+fake.URL, "CI_MERGE_REQUEST_IID=3", "CI_MERGE_REQUEST_DIFF_BASE_SHA="+mergeBase,
			"CI_COMMIT_SHA="+head, "PERFBOT_GITLAB_TOKEN="+fake.Token, "PERFBOT_BIN="+bin,
			"PERFBOT_INSTRUMENT=walltime",
			"PERFBOT_ARGS=--benchtime 100x --count 2 --no-confirm --no-sandbox -q --cache-dir "+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the job's script: %v\n%s", err, out)
		}
		return string(out)
	}
	out := run(head)
	notes := fake.Notes("acme/work", 3)
	if len(notes) != 1 || !strings.Contains(notes[0].Body, "gl-3") || !strings.Contains(notes[0].Body, "mr-3") {
		t.Fatalf("notes %+v: want one with the key gl-3 and the head mr-3\n%s", notes, out)
	}
	if !strings.Contains(out, "`Work-") {
		t.Errorf("the job's log lacks the answer:\n%s", out)
	}
	first := notes[0]
	head2 := r.Commit("work: a third off", map[string]string{"work/work.go": gitrepo.WorkSource(130000)})
	fake.AddMR(gitlabfake.MR{Project: "acme/work", IID: 3, Title: "work: halve the loop", SHA: head2})
	run(head2)
	notes = fake.Notes("acme/work", 3)
	if len(notes) != 1 || notes[0].ID != first.ID || notes[0].Body == first.Body {
		t.Fatalf("after a push: notes %+v, want note %d edited", notes, first.ID)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "perfbot-answer", "answer.md")); err != nil {
		t.Errorf("the artifact perfbot-answer/: %v", err)
	}
}
