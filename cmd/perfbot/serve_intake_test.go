package main

import (
	"bytes"
	"context"
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/store"
)

// appGitHub puts a GitHub App's installation token exchange in front of
// the e2e fake: POST /app/installations/{id}/access_tokens takes a JWT
// signed RS256 by the app's key (iss the app ID) and answers 201 with an
// installation token, as GitHub documents; every other request must carry
// that token (a personal token is refused), and then reaches the fake.
type appGitHub struct {
	key            *rsa.PublicKey
	appID          int64
	installationID int64

	mu sync.Mutex
	// tokens are the installation tokens minted, each valid for an hour
	// as GitHub's are (posting and intake each hold one).
	tokens map[string]bool
	// refused counts requests made with anything but the installation
	// token.
	refused int
}

func (a *appGitHub) handler(t *testing.T, inner http.Handler) http.Handler {
	js := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		bearer, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if r.URL.Path == fmt.Sprintf("/app/installations/%d/access_tokens", a.installationID) && r.Method == http.MethodPost {
			if err := a.verifyJWT(bearer); err != nil {
				t.Errorf("installation token request: %v", err)
				js(w, http.StatusUnauthorized, map[string]string{"message": "A JSON web token could not be decoded"})
				return
			}
			tok := fmt.Sprintf("ghs_installation%d", len(a.tokens)+1)
			a.tokens[tok] = true
			js(w, http.StatusCreated, map[string]any{"token": tok,
				"expires_at":           time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
				"permissions":          map[string]string{"issues": "write", "pull_requests": "write", "checks": "write", "statuses": "write"},
				"repository_selection": "selected"})
			return
		}
		if r.URL.Path == "/app" && r.Method == http.MethodGet {
			// serve's credential check at start: the app itself, by JWT.
			if err := a.verifyJWT(bearer); err != nil {
				js(w, http.StatusUnauthorized, map[string]string{"message": "A JSON web token could not be decoded"})
				return
			}
			js(w, http.StatusOK, map[string]any{"id": a.appID, "slug": "perfbot", "name": "perfbot",
				"owner": map[string]any{"login": "acme", "type": "Organization"}})
			return
		}
		if !a.tokens[bearer] {
			a.refused++
			js(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
			return
		}
		r.Header.Set("Authorization", "Bearer e2e-token")
		inner.ServeHTTP(w, r)
	})
}

// verifyJWT checks an app JWT: RS256 over header.claims with the app's
// key, iss the app ID, issued in the past and expiring within ten minutes.
func (a *appGitHub) verifyJWT(tok string) error {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return fmt.Errorf("not a JWT: %q", tok)
	}
	enc := base64.RawURLEncoding
	sig, err := enc.DecodeString(parts[2])
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(a.key, crypto.SHA256, sum[:], sig); err != nil {
		return fmt.Errorf("signature: %w", err)
	}
	var header struct{ Alg string }
	var claims struct {
		Iss      json.Number
		Iat, Exp int64
	}
	h, _ := enc.DecodeString(parts[0])
	c, _ := enc.DecodeString(parts[1])
	if json.Unmarshal(h, &header) != nil || json.Unmarshal(c, &claims) != nil || header.Alg != "RS256" {
		return fmt.Errorf("header %s, claims %s", h, c)
	}
	now := time.Now().Unix()
	if claims.Iss.String() != fmt.Sprint(a.appID) || claims.Iat > now || claims.Exp <= now || claims.Exp > now+600 {
		return fmt.Errorf("claims %s: want iss %d, iat past, exp within ten minutes", c, a.appID)
	}
	return nil
}

// deliverEvent posts a delivery of event to serve's webhook, JSON or
// form-encoded (the JSON in the payload field), signed over the raw body
// with the e2e secret, and returns the status and text.
func deliverEvent(t *testing.T, addr, event, ctype string, payload []byte, delivery string) (int, string) {
	t.Helper()
	body := payload
	if ctype == "application/x-www-form-urlencoded" {
		body = []byte("payload=" + url.QueryEscape(string(payload)))
	}
	mac := hmac.New(sha256.New, []byte("e2e-secret"))
	mac.Write(body)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook/github", bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(text))
}

// commentEvent is the recorded issue_comment delivery with another
// comment id, author and body.
func commentEvent(t *testing.T, id int64, login, body string) []byte {
	t.Helper()
	data, err := os.ReadFile("../../intake/github/testdata/issue_comment.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	c := ev["comment"].(map[string]any)
	c["id"], c["body"] = id, body
	c["user"].(map[string]any)["login"] = login
	ev["sender"].(map[string]any)["login"] = login
	out, _ := json.Marshal(ev)
	return out
}

// TestServeGitHubApp drives "perfbot serve" configured with a GitHub App
// only (no GITHUB_TOKEN; its RSA key made here) through form-encoded
// signed deliveries: "/perfbot help" is answered with the usage; "/perfbot
// run" is permission-checked, queued, run and answered; a check run's
// "Re-run" runs the pull request again under a new key; "/perfbot status"
// sees a slow run running and "/perfbot cancel" stops it and says so.
// Every GitHub request carries the installation token; an unsigned
// delivery is refused, logged and counted.
func TestServeGitHubApp(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end benchmark run")
	}
	r := gitrepo.New(t)
	r.Commit("cost", map[string]string{"cost": "200\n"})
	r.Git("checkout", "-q", "-b", "pull/12/head")
	head := r.Commit("halve the cost", map[string]string{"cost": "100\n"})
	r.Git("checkout", "-q", "main")

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "perfbot.private-key.pem")
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	gh := &e2eGitHub{comments: map[int64]string{}, headSHA: head, roles: map[string]string{"drive-by": "read"}}
	app := &appGitHub{key: &key.PublicKey, appID: 123456, installationID: 45678901, tokens: map[string]bool{}}
	fake := httptest.NewServer(http.StripPrefix("/api/v3", app.handler(t, gh.handler(t))))
	defer fake.Close()

	addr := freeAddr(t)
	db := filepath.Join(dir, "perfbot.db")
	cfgFile := filepath.Join(dir, "config.yaml")
	cfg := fmt.Sprintf(`project: {repo: %q, branch: main}
suites:
  work:
    command: "sleep 0.2; printf 'BenchmarkWork 1 %%s ns/op\n' $(cat {worktree}/cost)"
    parser: gobench
    count: 3
  slow:
    command: "sleep 1; printf 'BenchmarkSlow 1 %%s ns/op\n' $(cat {worktree}/cost)"
    parser: gobench
    count: 6
sandbox: {mode: none}
service: {listen: %q, heartbeat: 250ms}
store: {driver: sqlite, path: %q}
venues:
  github: {repo: acme/store, url: %q, app_id: "123456", installation_id: 45678901, private_key_file: %q, webhook_secret_env: E2E_WEBHOOK_SECRET}
`, r.Dir, addr, db, fake.URL+"/api/v3/", keyFile)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(mainEnv, "1")
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("E2E_WEBHOOK_SECRET", "e2e-secret")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	logs := startServe(t, cfgFile, addr)

	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const form = "application/x-www-form-urlencoded"
	comments := func() []string {
		gh.mu.Lock()
		defer gh.mu.Unlock()
		var out []string
		for _, id := range gh.order {
			out = append(out, gh.comments[id])
		}
		return out
	}
	waitComment := func(what, substr string) {
		t.Helper()
		waitFor(t, 90*time.Second, what, func() bool {
			for _, c := range comments() {
				if strings.Contains(c, substr) {
					return true
				}
			}
			return false
		})
	}
	waitRun := func(key, status string) {
		t.Helper()
		waitFor(t, 120*time.Second, key+" "+status, func() bool {
			runs, _ := st.RunsByKey(ctx, key)
			return len(runs) == 1 && runs[0].Status == status
		})
	}

	// Help, for anyone.
	if code, text := deliverEvent(t, addr, "issue_comment", form, commentEvent(t, 501, "drive-by", "/perfbot help"), "help-1"); code != http.StatusOK || text != "answered" {
		t.Fatalf("help: %d %q", code, text)
	}
	waitComment("the usage", "@drive-by perfbot commands")

	// A run, end to end, with App credentials only.
	if code, text := deliverEvent(t, addr, "issue_comment", form, commentEvent(t, 502, "maintainer", "/perfbot run work"), "run-1"); code != http.StatusOK || text != "queued" {
		t.Fatalf("run: %d %q", code, text)
	}
	waitRun("github:acme/store#12/comment/502", store.StatusDone)
	waitComment("the answer to the run", "perfbot:github:acme/store#12/comment/502")

	// The check run's "Re-run".
	rerun, err := os.ReadFile("../../intake/github/testdata/check_run_rerequested.json")
	if err != nil {
		t.Fatal(err)
	}
	if code, text := deliverEvent(t, addr, "check_run", "application/json", rerun, "rerun-1"); code != http.StatusOK || text != "queued" {
		t.Fatalf("check run re-run: %d %q", code, text)
	}
	waitRun("github:acme/store#12/rerun/rerun-1", store.StatusDone)
	waitComment("the answer to the re-run", "perfbot:github:acme/store#12/rerun/rerun-1")

	// A slow run: status sees it running, cancel stops it.
	slowKey := "github:acme/store#12/comment/503"
	if code, text := deliverEvent(t, addr, "issue_comment", form, commentEvent(t, 503, "maintainer", "/perfbot run slow"), "run-2"); code != http.StatusOK || text != "queued" {
		t.Fatalf("slow run: %d %q", code, text)
	}
	waitRun(slowKey, store.StatusRunning)
	if code, text := deliverEvent(t, addr, "issue_comment", form, commentEvent(t, 504, "maintainer", "/perfbot status"), "status-1"); code != http.StatusOK || text != "answered" {
		t.Fatalf("status: %d %q", code, text)
	}
	waitComment("the status", "@maintainer running:\u200b ")
	if code, text := deliverEvent(t, addr, "issue_comment", form, commentEvent(t, 505, "drive-by", "/perfbot cancel"), "cancel-0"); code != http.StatusOK || text != "refused" {
		t.Fatalf("cancel by a reader: %d %q", code, text)
	}
	if code, text := deliverEvent(t, addr, "issue_comment", form, commentEvent(t, 506, "maintainer", "/perfbot cancel"), "cancel-1"); code != http.StatusOK || text != "answered" {
		t.Fatalf("cancel: %d %q", code, text)
	}
	waitComment("the cancel reply", "@maintainer cancelled 1 benchmark job of this pull request.")
	var state string
	waitFor(t, 30*time.Second, "the slow job to be cancelled", func() bool {
		err := st.DB().QueryRowContext(ctx, `SELECT state FROM river_job WHERE kind = 'perfbot_benchmark' ORDER BY id DESC LIMIT 1`).Scan(&state)
		return err == nil && state == "cancelled"
	})
	if runs, _ := st.RunsByKey(ctx, slowKey); len(runs) != 1 || runs[0].Status == store.StatusDone {
		t.Errorf("the cancelled run: %+v, want one that did not finish", runs)
	}

	// An unsigned delivery is refused, logged and counted.
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook/github", strings.NewReader("payload=%7B%7D"))
	req.Header.Set("Content-Type", form)
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", "forged")
	req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("ab", 32))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("forged delivery: %v %v, want 401", resp, err)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`perfbot_webhook_deliveries_total{result="bad_signature"} 1`,
		`perfbot_webhook_deliveries_total{result="queued"} 3`,
		`perfbot_webhook_deliveries_total{result="answered"} 3`,
		`perfbot_requests_total{result="queued",source="github"} 3`, // client_golang sorts the labels
		`perfbot_jobs_cancelled_total 1`,
	} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("metrics lack %s:\n%s", want, metrics)
		}
	}
	if !regexp.MustCompile(`msg="webhook delivery rejected" .*reason=bad_signature .*delivery=forged`).MatchString(logs.String()) {
		t.Errorf("the forged delivery is not logged with its reason")
	}
	app.mu.Lock()
	defer app.mu.Unlock()
	if len(app.tokens) == 0 || app.refused != 0 {
		t.Errorf("installation tokens minted %d, requests without one %d; want some and none", len(app.tokens), app.refused)
	}
	gh.mu.Lock()
	defer gh.mu.Unlock()
	if len(gh.reacted) != 2 {
		t.Errorf("reactions %q, want a rocket for each of the two comments that started a run", gh.reacted)
	}
}
