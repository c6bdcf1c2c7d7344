package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeGitHubUser answers GET /api/v3/user and GET
// /api/v3/repos/acme/store as GitHub does: 200 for the token "good-token-123456",
// 401 Bad credentials for any other.
func fakeGitHubUser(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if r.Header.Get("Authorization") != "Bearer good-token-123456" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`))
			return
		}
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v3/user":
			w.Write([]byte(`{"login":"perfbot-ci","id":1,"type":"User"}`))
		case "GET /api/v3/repos/acme/store":
			w.Write([]byte(`{"id":2,"name":"store","full_name":"acme/store","private":false}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// doctorConfigFile writes a config whose GitHub venue is srv, with its
// store in the test's directory.
func doctorConfigFile(t *testing.T, srv *httptest.Server, extra string) string {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	text := "suites:\n  wall:\n    command: ./bench\nstore: {path: " + filepath.Join(dir, "perfbot.db") + "}\n" +
		"venues:\n  github: {repo: acme/store, url: " + srv.URL + "/api/v3/, token_env: DOCTOR_TEST_GH_TOKEN}\n" + extra
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestDoctorBadTokenFails(t *testing.T) {
	file := doctorConfigFile(t, fakeGitHubUser(t), "")
	t.Setenv("DOCTOR_TEST_GH_TOKEN", "revoked-token-987654")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"doctor", "--config", file}, &out, &errb)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || exitCode(err, &errb) != 1 {
		t.Fatalf("err = %v, want exit status 1\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "FAIL  github") || !strings.Contains(out.String(), "401 Bad credentials") {
		t.Errorf("checklist has no failing github line:\n%s", out.String())
	}
	if strings.Contains(out.String()+errb.String(), "revoked-token-987654") {
		t.Errorf("the token was printed:\n%s%s", out.String(), errb.String())
	}
	for _, name := range []string{"ok    config", "store", "git", "bubblewrap", "cgroups", "perf", "valgrind"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("checklist lacks %q:\n%s", name, out.String())
		}
	}

	t.Setenv("DOCTOR_TEST_GH_TOKEN", "good-token-123456")
	out.Reset()
	if err := run(context.Background(), []string{"doctor", "--config", file}, &out, &errb); err != nil {
		t.Fatalf("with a good token: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "ok    github         signed in as perfbot-ci; acme/store readable") {
		t.Errorf("checklist:\n%s", out.String())
	}
}

func TestDoctorListsConfigErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(file, []byte("suites:\n  wall:\n    comand: ./bench\nvenues:\n  github: {tokn_env: X}\n"), 0o644)
	var out, errb, checkOut, checkErr bytes.Buffer
	err := run(context.Background(), []string{"doctor", "--config", file}, &out, &errb)
	if exitCode(err, &errb) != 1 {
		t.Fatalf("err = %v, want exit status 1", err)
	}
	// The same mistakes as perfbot config check, each on its own line.
	run(context.Background(), []string{"config", "check", file}, &checkOut, &checkErr)
	lines := strings.Split(strings.TrimSpace(checkErr.String()), "\n")
	if len(lines) < 2 {
		t.Fatalf("config check found %q", lines)
	}
	for _, l := range lines {
		if !strings.Contains(out.String(), "      "+l+"\n") {
			t.Errorf("doctor lacks %q:\n%s", l, out.String())
		}
	}
	if !strings.Contains(out.String(), "FAIL  config") {
		t.Errorf("no failing config line:\n%s", out.String())
	}
}

// TestServeSaysWhichVenuesWork starts serve with a venue whose token is
// refused and checks that it says so at start, and keeps running.
func TestServeSaysWhichVenuesWork(t *testing.T) {
	file := doctorConfigFile(t, fakeGitHubUser(t), "")
	t.Setenv("DOCTOR_TEST_GH_TOKEN", "revoked-token-987654")
	logs := &syncWriter{w: &bytes.Buffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	addr := freeAddr(t)
	go func() { done <- run(ctx, []string{"serve", "--config", file, "--listen", addr}, logs, logs) }()
	waitHealthy(t, addr)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	text := logs.w.String()
	if !strings.Contains(text, "level=ERROR") || !strings.Contains(text, "venue=github") || !strings.Contains(text, "401 Bad credentials") {
		t.Errorf("logs:\n%s", text)
	}
	if strings.Contains(text, "revoked-token-987654") {
		t.Errorf("the token was logged:\n%s", text)
	}
}

func TestServeWithoutVenuesSaysSo(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	os.WriteFile(file, []byte("suites:\n  wall:\n    command: ./bench\nstore: {path: "+filepath.Join(dir, "perfbot.db")+"}\n"), 0o644)
	logs := &syncWriter{w: &bytes.Buffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	addr := freeAddr(t)
	go func() { done <- run(ctx, []string{"serve", "--config", file, "--listen", addr}, logs, logs) }()
	waitHealthy(t, addr)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	if !strings.Contains(logs.w.String(), "level=WARN") || !strings.Contains(logs.w.String(), "no venue is configured") {
		t.Errorf("logs:\n%s", logs.w.String())
	}
}

// TestLoginMismatchStopsServe: venues.github.login names another account
// than the token's. perfbot doctor fails its github line, naming both;
// perfbot serve refuses to start with the same words, instead of serving
// answers it could never find again.
func TestLoginMismatchStopsServe(t *testing.T) {
	file := doctorConfigFile(t, fakeGitHubUser(t), "")
	text, _ := os.ReadFile(file)
	os.WriteFile(file, bytes.Replace(text, []byte("token_env: DOCTOR_TEST_GH_TOKEN}"), []byte("token_env: DOCTOR_TEST_GH_TOKEN, login: perfbot-old}"), 1), 0o644)
	t.Setenv("DOCTOR_TEST_GH_TOKEN", "good-token-123456")
	const want = `venues.github.login is "perfbot-old", but the token signs in as perfbot-ci`
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"doctor", "--config", file}, &out, &errb)
	if exitCode(err, &errb) != 1 || !strings.Contains(out.String(), "FAIL  github") || !strings.Contains(out.String(), want) {
		t.Errorf("doctor: err %v\n%s", err, out.String())
	}
	logs := &syncWriter{w: &bytes.Buffer{}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = run(ctx, []string{"serve", "--config", file, "--listen", freeAddr(t)}, logs, logs)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) {
		t.Errorf("serve: err = %v, want it to refuse to start naming the mismatch\n%s", err, logs.w.String())
	}
}
