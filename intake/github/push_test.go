package github

import (
	"bytes"
	"context"
	"io"
	"net/http"
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
