package github

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestPushWebhook: a signed push delivery reaches OnPush with its repository,
// ref and heads; an untracked branch and a deleted one are ignored, and a
// failure is answered 500 and not recorded, so GitHub's redelivery counts.
func TestPushWebhook(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var got []string
	fail := false
	f.intake.OnPush = func(ctx context.Context, repo, ref, before, after string) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return false, io.ErrUnexpectedEOF
		}
		got = append(got, repo+" "+ref+" "+before+" "+after)
		return ref == "refs/heads/main", nil
	}
	deliver := func(delivery, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, f.server.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", "push")
		req.Header.Set("X-GitHub-Delivery", delivery)
		req.Header.Set("X-Hub-Signature-256", sign([]byte("s3cret"), []byte(body)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(bytes.TrimSpace(text))
	}
	push := func(ref string, deleted bool) string {
		d := "false"
		if deleted {
			d = "true"
		}
		return `{"ref":"` + ref + `","before":"aaa","after":"bbb","deleted":` + d + `,"repository":{"full_name":"acme/store"}}`
	}
	if code, text := deliver("d1", push("refs/heads/main", false)); code != http.StatusOK || text != "tracked branch queued" {
		t.Errorf("push to main: %d %q", code, text)
	}
	if code, text := deliver("d2", push("refs/heads/dev", false)); code != http.StatusAccepted || !strings.Contains(text, "not a tracked branch") {
		t.Errorf("push to dev: %d %q", code, text)
	}
	if code, _ := deliver("d3", push("refs/heads/main", true)); code != http.StatusAccepted {
		t.Errorf("deleted branch: %d", code)
	}
	if code, _ := deliver("d4", `{"ref": 7}`); code != http.StatusBadRequest {
		t.Errorf("bad payload: %d", code)
	}
	mu.Lock()
	fail = true
	mu.Unlock()
	if code, _ := deliver("d5", push("refs/heads/main", false)); code != http.StatusInternalServerError {
		t.Errorf("failing OnPush: %d", code)
	}
	if seen, _ := f.st.DeliveryHandled(context.Background(), "d5"); seen {
		t.Error("a failed push delivery was recorded as handled")
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	if code, _ := deliver("d5", push("refs/heads/main", false)); code != http.StatusOK {
		t.Errorf("redelivery: %d", code)
	}
	if code, text := deliver("d1", push("refs/heads/main", false)); code != http.StatusOK || text != "delivery already handled" {
		t.Errorf("replay: %d %q", code, text)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0] != "acme/store refs/heads/main aaa bbb" {
		t.Errorf("OnPush calls %q", got)
	}
}

// TestMergedWebhook: a signed pull_request "closed" delivery of a merged
// pull request, in GitHub's documented shape, reaches OnMerged with the
// repository, number and merge_commit_sha; a pull request closed without
// merging, another action and another repository do not; a failing
// OnMerged is answered 500 so that GitHub delivers it again.
func TestMergedWebhook(t *testing.T) {
	f := newFixture(t)
	f.intake.Repo = "acme/store"
	var mu sync.Mutex
	var got []string
	var fail error
	f.intake.OnMerged = func(ctx context.Context, repo string, number int, commit string) error {
		mu.Lock()
		defer mu.Unlock()
		if fail != nil {
			return fail
		}
		got = append(got, repo+"#"+strconv.Itoa(number)+" "+commit)
		return nil
	}
	deliver := func(delivery, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, f.server.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", "pull_request")
		req.Header.Set("X-GitHub-Delivery", delivery)
		req.Header.Set("X-Hub-Signature-256", sign([]byte("s3cret"), []byte(body)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(bytes.TrimSpace(text))
	}
	sha := strings.Repeat("9f", 20)
	event := func(action, repo string, merged bool) string {
		m := "false"
		if merged {
			m = "true"
		}
		return `{"action":"` + action + `","number":12,"pull_request":{"number":12,"state":"closed","merged":` + m +
			`,"merge_commit_sha":"` + sha + `","base":{"ref":"main"}},"repository":{"full_name":"` + repo + `"},` +
			`"sender":{"login":"alice","type":"User"}}`
	}
	if code, text := deliver("m1", event("closed", "acme/store", true)); code != http.StatusOK || text != "merge recorded" {
		t.Errorf("merged: %d %q", code, text)
	}
	for i, body := range []string{event("closed", "acme/store", false), event("opened", "acme/store", false),
		event("closed", "acme/other", true)} {
		if code, _ := deliver("m-ignored-"+strconv.Itoa(i), body); code != http.StatusAccepted {
			t.Errorf("case %d: %d, want 202", i, code)
		}
	}
	for i, pr := range []string{`{"merged":true}`, `{"merged":true,"merge_commit_sha":"--upload-pack=x"}`} {
		body := `{"action":"closed","number":13,"pull_request":` + pr + `,"repository":{"full_name":"acme/store"}}`
		if code, _ := deliver("m2-"+strconv.Itoa(i), body); code != http.StatusBadRequest {
			t.Errorf("merged without a merge_commit_sha (%s): %d", pr, code)
		}
	}
	mu.Lock()
	fail = io.ErrUnexpectedEOF
	mu.Unlock()
	if code, _ := deliver("m3", event("closed", "acme/store", true)); code != http.StatusInternalServerError {
		t.Errorf("failing OnMerged: %d", code)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "acme/store#12 "+sha {
		t.Errorf("OnMerged calls %q", got)
	}
}
