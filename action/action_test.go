// Package action_test runs the GitHub Action's shell steps (action.yml at
// the repository's root, the scripts in this directory) as GitHub runs
// them: the documented environment, a pull_request or workflow_run payload
// in GITHUB_EVENT_PATH, and GITHUB_API_URL pointed at a fake REST API.
package action_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/fake/githubfake"
	"github.com/perfbot/perfbot/internal/gitrepo"
)

// actionPath is GITHUB_ACTION_PATH: the repository's root, where action.yml is.
func actionPath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runnerTemp is RUNNER_TEMP shared by the tests of this package, so the
// action builds perfbot once, as it does once per job.
var runnerTemp string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "perfbot-action-")
	if err != nil {
		panic(err)
	}
	runnerTemp = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// job is one run of an action step: its environment's files.
type job struct {
	t                     *testing.T
	event, summary, outFn string
	env                   []string
}

// newFakeGitHub is a GitHub Enterprise Server whose token is a workflow's
// GITHUB_TOKEN: comments are written by github-actions[bot], and GET /user
// answers 403.
func newFakeGitHub(t *testing.T, token string) *githubfake.Server {
	gh := githubfake.New(t, token)
	gh.Login, gh.Integration = "github-actions[bot]", true
	return gh
}

// newJob writes payload as the event and sets up GitHub's environment for
// one step, with GITHUB_API_URL at gh.
func newJob(t *testing.T, eventName string, payload any, workspace string, gh *githubfake.Server, extra ...string) *job {
	t.Helper()
	dir := t.TempDir()
	j := &job{t: t, event: filepath.Join(dir, "event.json"), summary: filepath.Join(dir, "summary.md"), outFn: filepath.Join(dir, "output")}
	data, err := json.MarshalIndent(payload, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{j.event} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{j.summary, j.outFn} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "PERFBOT_") && !strings.HasPrefix(kv, "RUNNER_") {
			j.env = append(j.env, kv)
		}
	}
	j.env = append(j.env,
		"GITHUB_ACTIONS=true", "CI=true",
		"GITHUB_EVENT_NAME="+eventName, "GITHUB_EVENT_PATH="+j.event,
		"GITHUB_WORKSPACE="+workspace, "GITHUB_ACTION_PATH="+actionPath(t),
		"GITHUB_STEP_SUMMARY="+j.summary, "GITHUB_OUTPUT="+j.outFn,
		"GITHUB_API_URL="+gh.APIURL(), "GITHUB_TOKEN="+gh.Token,
		"GITHUB_REPOSITORY=acme/work", "RUNNER_TEMP="+runnerTemp,
	)
	j.env = append(j.env, extra...)
	return j
}

// run runs the action's script and returns its combined output.
func (j *job) run(script string) (string, error) {
	cmd := exec.Command("bash", filepath.Join(actionPath(j.t), "action", script))
	cmd.Env = j.env
	cmd.Dir = j.t.TempDir()
	log := filepath.Join(cmd.Dir, "log")
	f, err := os.Create(log)
	if err != nil {
		j.t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Run()
	out, _ := os.ReadFile(log)
	return string(out), err
}

// outputs reads GITHUB_OUTPUT's name=value lines.
func (j *job) outputs() map[string]string {
	data, err := os.ReadFile(j.outFn)
	if err != nil {
		j.t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

func (j *job) summaryText() string {
	data, err := os.ReadFile(j.summary)
	if err != nil {
		j.t.Fatal(err)
	}
	return string(data)
}

// repoSide is one side of a pull request in its payload.
type repoSide struct {
	Label string         `json:"label"`
	Ref   string         `json:"ref"`
	SHA   string         `json:"sha"`
	User  map[string]any `json:"user"`
	Repo  map[string]any `json:"repo"`
}

func repoJSON(full string, fork bool) map[string]any {
	owner, name, _ := strings.Cut(full, "/")
	return map[string]any{
		"id": 1296269, "node_id": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5", "name": name, "full_name": full, "private": false,
		"owner":    map[string]any{"login": owner, "id": 1, "type": "User"},
		"html_url": "https://github.com/" + full, "fork": fork, "default_branch": "main",
		"clone_url": "https://github.com/" + full + ".git",
	}
}

// pullRequestEvent is a pull_request "synchronize" payload as GitHub
// documents it, for pull request n of acme/work from headRepo.
func pullRequestEvent(n int, baseSHA, headSHA, headRepo string) map[string]any {
	owner, _, _ := strings.Cut(headRepo, "/")
	return map[string]any{
		"action": "synchronize", "number": n, "before": strings.Repeat("1", 40), "after": headSHA,
		"pull_request": map[string]any{
			"url": "https://api.github.com/repos/acme/work/pulls/" + itoa(n),
			"id":  1, "node_id": "PR_kwDOA", "html_url": "https://github.com/acme/work/pull/" + itoa(n),
			"number": n, "state": "open", "locked": false, "title": "work: halve the loop", "draft": false,
			"user":   map[string]any{"login": owner, "id": 2, "type": "User"},
			"body":   "Makes Work faster.",
			"head":   repoSide{Label: owner + ":feature", Ref: "feature", SHA: headSHA, User: map[string]any{"login": owner}, Repo: repoJSON(headRepo, headRepo != "acme/work")},
			"base":   repoSide{Label: "acme:main", Ref: "main", SHA: baseSHA, User: map[string]any{"login": "acme"}, Repo: repoJSON("acme/work", false)},
			"merged": false, "mergeable": nil, "comments": 0, "commits": 1,
			"author_association": "CONTRIBUTOR",
		},
		"repository": repoJSON("acme/work", false),
		"sender":     map[string]any{"login": owner, "id": 2, "type": "User"},
	}
}

// workflowRunEvent is a workflow_run "completed" payload for the run of
// the pull_request workflow on headSHA; prs are its pull_requests (empty
// for a fork's, as GitHub sends it).
func workflowRunEvent(headSHA, headRepo string, prs ...int) map[string]any {
	var list []map[string]any
	for _, n := range prs {
		list = append(list, map[string]any{"number": n, "id": n, "url": "https://api.github.com/repos/acme/work/pulls/" + itoa(n),
			"head": map[string]any{"sha": headSHA, "ref": "feature"}, "base": map[string]any{"ref": "main"}})
	}
	if list == nil {
		list = []map[string]any{}
	}
	return map[string]any{
		"action": "completed",
		"workflow_run": map[string]any{
			"id": 30433642, "name": "perfbot", "event": "pull_request", "status": "completed", "conclusion": "success",
			"head_branch": "feature", "head_sha": headSHA, "run_number": 12, "workflow_id": 159038,
			"pull_requests": list, "head_repository": repoJSON(headRepo, true), "repository": repoJSON("acme/work", false),
		},
		"workflow":   map[string]any{"id": 159038, "name": "perfbot", "path": ".github/workflows/perfbot.yml"},
		"repository": repoJSON("acme/work", false),
		"sender":     map[string]any{"login": "acme", "id": 1},
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// pullRequestRepo is a workspace: main moved on after the pull request's
// branch left it, so the merge base is neither side's tip.
func pullRequestRepo(t *testing.T) (r *gitrepo.Repo, mergeBase, baseTip, head string) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed (GitHub's runners have it)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	r = gitrepo.New(t)
	mergeBase = r.Commit("work", gitrepo.WorkModule(200000, true))
	r.Git("checkout", "-q", "-b", "feature")
	head = r.Commit("work: halve the loop", map[string]string{"work/work.go": gitrepo.WorkSource(100000)})
	r.Git("checkout", "-q", "main")
	baseTip = r.Commit("docs", map[string]string{"README": "work\n"})
	r.Git("checkout", "-q", "feature")
	return r, mergeBase, baseTip, head
}

// cheap keeps each comparison short on a busy two-core host.
func cheap(t *testing.T) string {
	return "PERFBOT_INPUT_ARGS=--benchtime 100x --count 2 --no-confirm --no-sandbox --cache-dir " + t.TempDir()
}

func TestSameRepositoryPullRequestCommentsOnceAndEditsOnPush(t *testing.T) {
	r, _, baseTip, head := pullRequestRepo(t)
	gh := newFakeGitHub(t, "ghs_workflowtoken")
	gh.Heads[7] = head
	j := newJob(t, "pull_request", pullRequestEvent(7, baseTip, head, "acme/work"), r.Dir, gh,
		cheap(t), "PERFBOT_INPUT_INSTRUMENT=walltime", "PERFBOT_INPUT_ARTIFACT_DIR="+filepath.Join(t.TempDir(), "answer"))
	out, err := j.run("compare.sh")
	if err != nil {
		t.Fatalf("compare.sh: %v\n%s", err, out)
	}
	comments, runs, _ := gh.Snapshot()
	if len(comments) != 1 {
		t.Fatalf("%d comments after the first run, want 1: %+v\n%s", len(comments), comments, out)
	}
	c := comments[0]
	if c.Issue != 7 || !strings.Contains(c.Body, "gha-7") || !strings.Contains(c.Body, "Work") {
		t.Errorf("comment on #%d without the key gha-7 or the benchmark Work:\n%s", c.Issue, c.Body)
	}
	if len(runs) != 1 || runs[0]["head_sha"] != head || runs[0]["name"] != "perfbot" || runs[0]["status"] != "completed" || runs[0]["conclusion"] == nil {
		t.Errorf("check runs %+v: want one completed perfbot run on the head %s", runs, head)
	}
	o := j.outputs()
	if o["verdict"] == "" || o["fork"] != "false" || o["posted"] != "true" {
		t.Errorf("outputs %v: want a verdict, fork=false, posted=true", o)
	}
	for _, k := range []string{"better", "worse", "same", "noisy"} {
		if _, ok := o[k]; !ok {
			t.Errorf("output %s missing from %v", k, o)
		}
	}
	sum := j.summaryText()
	if !strings.Contains(sum, "`Work-") || !strings.Contains(sum, "pr-7 vs base") {
		t.Errorf("job summary lacks the answer (Work, the head named pr-7):\n%s", sum)
	}

	// A second push: the same comment is edited, a check run goes on the new head.
	head2 := r.Commit("work: a third off", map[string]string{"work/work.go": gitrepo.WorkSource(130000)})
	gh.Mu.Lock()
	gh.Heads[7] = head2
	gh.Mu.Unlock()
	j2 := newJob(t, "pull_request", pullRequestEvent(7, baseTip, head2, "acme/work"), r.Dir, gh,
		cheap(t), "PERFBOT_INPUT_INSTRUMENT=walltime", "PERFBOT_INPUT_ARTIFACT_DIR="+filepath.Join(t.TempDir(), "answer"))
	if out, err := j2.run("compare.sh"); err != nil {
		t.Fatalf("compare.sh after a push: %v\n%s", err, out)
	}
	comments, runs, writes := gh.Snapshot()
	if len(comments) != 1 || comments[0].ID != c.ID || comments[0].Edits != 1 || comments[0].Body == c.Body {
		t.Fatalf("after a push: comments %+v, want comment %d edited once with a new body; writes %v", comments, c.ID, writes)
	}
	if len(runs) != 2 || runs[1]["head_sha"] != head2 {
		t.Errorf("check runs after a push %+v: want a second on %s", runs, head2)
	}
}

func TestForkPullRequestLeavesArtifactAndCompanionPostsIt(t *testing.T) {
	r, _, baseTip, head := pullRequestRepo(t)
	gh := newFakeGitHub(t, "ghs_readonly")
	gh.Heads[9] = head
	artifact := filepath.Join(t.TempDir(), "perfbot-answer")
	j := newJob(t, "pull_request", pullRequestEvent(9, baseTip, head, "contributor/work"), r.Dir, gh,
		cheap(t), "PERFBOT_INPUT_INSTRUMENT=walltime", "PERFBOT_INPUT_ARTIFACT_DIR="+artifact)
	out, err := j.run("compare.sh")
	if err != nil {
		t.Fatalf("compare.sh: %v\n%s", err, out)
	}
	if comments, runs, writes := gh.Snapshot(); len(comments)+len(runs)+len(writes) != 0 {
		t.Fatalf("a fork's pull request posted: comments %v, check runs %v, writes %v", comments, runs, writes)
	}
	if o := j.outputs(); o["fork"] != "true" || o["posted"] != "false" || o["verdict"] == "" {
		t.Errorf("outputs %v: want fork=true, posted=false, a verdict", o)
	}
	md, err := os.ReadFile(filepath.Join(artifact, "answer.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j.summaryText(), string(md)) || !strings.Contains(string(md), "Work") {
		t.Errorf("the job summary does not hold the answer %q", md)
	}
	var meta struct {
		PR      int    `json:"pr"`
		HeadSHA string `json:"head_sha"`
		Key     string `json:"key"`
	}
	data, err := os.ReadFile(filepath.Join(artifact, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &meta); err != nil || meta.PR != 9 || meta.HeadSHA != head || meta.Key != "gha-9" {
		t.Fatalf("meta.json %s: want pr 9, head %s, key gha-9 (%v)", data, head, err)
	}

	// The companion: a workflow_run in the base repository with a write
	// token. An artifact naming a pull request whose head is another
	// commit is refused, and nothing is posted.
	wrong := copyDir(t, artifact)
	writeFile(t, filepath.Join(wrong, "meta.json"), `{"pr": 10, "head_sha": "`+head+`", "key": "gha-10"}`)
	gh.Heads[10] = strings.Repeat("a", 40)
	writeFile(t, filepath.Join(wrong, "answer.json"), strings.Replace(readFile(t, filepath.Join(wrong, "answer.json")), `"gha-9"`, `"gha-10"`, 1))
	bad := newJob(t, "workflow_run", workflowRunEvent(head, "contributor/work"), r.Dir, gh, "PERFBOT_INPUT_ARTIFACT_DIR="+wrong)
	if out, err := bad.run("post-artifact.sh"); err == nil || !strings.Contains(out, "not posted") {
		t.Errorf("an artifact for pull request 10, whose head is another commit, was not refused: %v\n%s", err, out)
	}
	other := newJob(t, "workflow_run", workflowRunEvent(strings.Repeat("b", 40), "contributor/work"), r.Dir, gh, "PERFBOT_INPUT_ARTIFACT_DIR="+artifact)
	if out, err := other.run("post-artifact.sh"); err == nil || !strings.Contains(out, "is not the workflow run's head") {
		t.Errorf("an artifact for another commit than the workflow run's was not refused: %v\n%s", err, out)
	}
	if comments, runs, _ := gh.Snapshot(); len(comments)+len(runs) != 0 {
		t.Fatalf("refused artifacts posted: %v %v", comments, runs)
	}

	post := newJob(t, "workflow_run", workflowRunEvent(head, "contributor/work"), r.Dir, gh, "PERFBOT_INPUT_ARTIFACT_DIR="+copyDir(t, artifact))
	if out, err := post.run("post-artifact.sh"); err != nil {
		t.Fatalf("post-artifact.sh: %v\n%s", err, out)
	}
	comments, runs, _ := gh.Snapshot()
	if len(comments) != 1 || comments[0].Issue != 9 || !strings.Contains(comments[0].Body, strings.TrimSpace(string(md))) || !strings.Contains(comments[0].Body, "gha-9") {
		t.Fatalf("companion: comments %+v, want one on #9 holding the artifact's answer", comments)
	}
	if len(runs) != 1 || runs[0]["head_sha"] != head {
		t.Errorf("companion: check runs %+v, want one on %s", runs, head)
	}
	// Run again (a re-run of the companion): the comment is kept, not doubled.
	again := newJob(t, "workflow_run", workflowRunEvent(head, "contributor/work", 9), r.Dir, gh, "PERFBOT_INPUT_ARTIFACT_DIR="+copyDir(t, artifact))
	if out, err := again.run("post-artifact.sh"); err != nil {
		t.Fatalf("post-artifact.sh again: %v\n%s", err, out)
	}
	if comments, _, _ := gh.Snapshot(); len(comments) != 1 {
		t.Errorf("a second companion run left %d comments, want 1", len(comments))
	}
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestForkPullRequestTargetIsRefused: pull_request_target runs with a write
// token, so a fork's pull request is refused before its code is built or run,
// and nothing is posted.
func TestForkPullRequestTargetIsRefused(t *testing.T) {
	r, _, baseTip, head := pullRequestRepo(t)
	gh := newFakeGitHub(t, "ghs_write")
	bin := filepath.Join(t.TempDir(), "perfbot")
	j := newJob(t, "pull_request_target", pullRequestEvent(9, baseTip, head, "contributor/work"), r.Dir, gh,
		"PERFBOT_BIN="+bin)
	out, err := j.run("compare.sh")
	if err == nil || !strings.Contains(out, "pull_request_target would run its code with a write token") {
		t.Fatalf("compare.sh on a fork's pull_request_target: err %v, want a refusal naming the write token\n%s", err, out)
	}
	if _, err := os.Stat(bin); err == nil {
		t.Errorf("perfbot was built for a refused pull request")
	}
	if comments, runs, writes := gh.Snapshot(); len(comments)+len(runs)+len(writes) != 0 {
		t.Errorf("a refused pull request posted: comments %v, check runs %v, writes %v", comments, runs, writes)
	}
}
