package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/fake/gitlabfake"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/store"
)

// deliverGitLab posts a webhook delivery as GitLab does.
func deliverGitLab(t *testing.T, addr, event, token string, payload []byte, uuid string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook/gitlab", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Gitlab-Event", event)
	req.Header.Set("X-Gitlab-Event-UUID", uuid)
	req.Header.Set("X-Gitlab-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// gitlabNote is the documented Note Hook payload of a merge request
// comment, by user (id) on acme/store!12 whose last commit is head.
func gitlabNote(t *testing.T, noteID, userID int64, user, text, head string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../intake/gitlab/testdata/note_merge_request.json")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "acme/db/store", "acme/store")
	s = strings.Replace(s, `"id": 1244`, fmt.Sprintf(`"id": %d`, noteID), 1)
	s = strings.Replace(s, `"note": "/perfbot run wal"`, fmt.Sprintf(`"note": %q`, text), 1)
	s = strings.Replace(s, `"id": 21,`, fmt.Sprintf(`"id": %d,`, userID), 1)
	s = strings.Replace(s, `"username": "alice"`, fmt.Sprintf(`"username": %q`, user), 1)
	s = strings.ReplaceAll(s, "0123456789abcdef0123456789abcdef01234567", head)
	return []byte(s)
}

// TestServeGitLab runs perfbot serve against a fake GitLab: a Reporter's
// "/perfbot run" is refused with one note; a Developer's runs the merge
// request's head ref, and the answer is one note edited in place from
// queued to the verdict, with the commit status following it.
func TestServeGitLab(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end benchmark run")
	}
	r := gitrepo.New(t)
	r.Commit("cost", map[string]string{"cost": "200\n"})
	r.Git("checkout", "-q", "-b", "merge-requests/12/head")
	head := r.Commit("halve the cost", map[string]string{"cost": "100\n"})
	r.Git("checkout", "-q", "main")

	const token = "glpat-e2e0123456789"
	fake := gitlabfake.New(token, "perfbot")
	defer fake.Close()
	fake.AddMR(gitlabfake.MR{Project: "acme/store", IID: 12, Title: "halve the cost", SHA: head})
	fake.SetMember("acme/store", 21, 30) // alice: Developer
	fake.SetMember("acme/store", 22, 20) // rita: Reporter

	dir := t.TempDir()
	addr := freeAddr(t)
	db := filepath.Join(dir, "perfbot.db")
	cfgFile := filepath.Join(dir, "config.yaml")
	cfg := fmt.Sprintf(`project: {repo: %q, branch: main}
suites:
  work:
    command: "sleep 0.2; printf 'BenchmarkWork 1 %%s ns/op\n' $(cat {worktree}/cost)"
    parser: gobench
    count: 3
sandbox: {mode: none}
service: {listen: %q, heartbeat: 250ms, url: "https://perf.example.org"}
store: {driver: sqlite, path: %q}
venues:
  gitlab: {base_url: %q, project: acme/store, token_env: E2E_GITLAB_TOKEN, webhook_secret_env: E2E_GITLAB_SECRET, login: perfbot}
`, r.Dir, addr, db, fake.URL)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(mainEnv, "1")
	t.Setenv("E2E_GITLAB_TOKEN", token)
	t.Setenv("E2E_GITLAB_SECRET", "e2e-hook-secret")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	startServe(t, cfgFile, addr)

	if code, _ := deliverGitLab(t, addr, "Note Hook", "wrong", gitlabNote(t, 600, 21, "alice", "/perfbot run", head), "u-0"); code != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", code)
	}
	for i := range 2 {
		code, text := deliverGitLab(t, addr, "Note Hook", "e2e-hook-secret", gitlabNote(t, int64(601+i), 22, "rita", "/perfbot run", head), fmt.Sprintf("u-%d", 1+i))
		if want := []string{"refused", "throttled"}[i]; code != http.StatusOK || text != want {
			t.Fatalf("reporter's run %d: %d %q, want %s", i+1, code, text, want)
		}
	}
	if n := fake.Notes("acme/store", 12); len(n) != 1 || !strings.Contains(n[0].Body, "@rita") {
		t.Fatalf("notes after the refusals: %+v", n)
	}

	code, text := deliverGitLab(t, addr, "Note Hook", "e2e-hook-secret", gitlabNote(t, 700, 21, "alice", "/perfbot run work", head), "u-3")
	if code != http.StatusOK || text != "queued" {
		t.Fatalf("developer's run: %d %q", code, text)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const key = "gitlab:acme/store!12/note/700"
	waitFor(t, 2*time.Minute, "the run", func() bool {
		runs, _ := st.RunsByKey(ctx, key)
		return len(runs) == 1 && runs[0].Status == store.StatusDone
	})
	waitFor(t, time.Minute, "the final status", func() bool {
		s := fake.Statuses()
		return len(s) > 0 && s[len(s)-1].State == "success"
	})
	notes := fake.Notes("acme/store", 12)
	if len(notes) != 2 || !strings.HasPrefix(notes[1].Body, "<!-- perfbot:"+key+" -->") || !strings.Contains(notes[1].Body, "BenchmarkWork") {
		t.Fatalf("notes: %+v", notes)
	}
	var states []string
	for _, s := range fake.Statuses() {
		if s.SHA != head || s.Name != "perfbot" {
			t.Errorf("status %+v", s)
		}
		states = append(states, s.State)
	}
	if states[0] != "pending" || states[len(states)-1] != "success" {
		t.Errorf("states %v", states)
	}
	if last := fake.Statuses()[len(states)-1]; !strings.HasPrefix(last.TargetURL, "https://perf.example.org/runs/") {
		t.Errorf("final status links %q, want the run's page", last.TargetURL)
	}
	edits := 0
	for _, r := range fake.Requests() {
		if strings.HasPrefix(r, "PUT /api/v4/projects/acme%2Fstore/merge_requests/12/notes/") {
			edits++
		}
	}
	t.Logf("commit states %v; the answer note edited %d times", states, edits)
	if edits == 0 {
		t.Errorf("the answer note was never edited in place: %q", fake.Requests())
	}
}

// TestReportPostsToGitLab posts a report to a merge request twice, with
// the instance and token from the environment: one note, edited in
// place, and no commit status: result files name no measured commit.
func TestReportPostsToGitLab(t *testing.T) {
	const token = "glpat-report0123456789"
	fake := gitlabfake.New(token, "perfbot")
	defer fake.Close()
	fake.AddMR(gitlabfake.MR{Project: "acme/db/store", IID: 7, SHA: "6dcb09b5b57875f334f61aebed695e2e4193db5e"})
	t.Setenv("PERFBOT_GITLAB_URL", fake.URL)
	t.Setenv("GITLAB_TOKEN", token)
	args := []string{"report", "--post", "gitlab:acme/db/store!7", "testdata/wal-base.txt", "testdata/wal-patch.txt"}
	for i := range 2 {
		var stderr bytes.Buffer
		if err := run(context.Background(), args, io.Discard, &stderr); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "posted to gitlab:acme/db/store!7: "+fake.URL+"/acme/db/store/-/merge_requests/7#note_") {
			t.Errorf("run %d: stderr %q", i, stderr.String())
		}
	}
	notes := fake.Notes("acme/db/store", 7)
	if len(notes) != 1 || !strings.Contains(notes[0].Body, "Append") || !strings.HasPrefix(notes[0].Body, "<!-- perfbot:cli-") || strings.Contains(notes[0].Body, token) {
		t.Fatalf("notes %+v", notes)
	}
	if st := fake.Statuses(); len(st) != 0 {
		t.Errorf("statuses %+v, want none: nothing says which commit the files measured", st)
	}
}
