package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfbot/perfbot/ciresult"
	"github.com/perfbot/perfbot/internal/fake/githubfake"
)

// TestPostArtifactOneInstallationToken: a fork's artifact, whose pull
// request the event does not list, has its head checked and its answer
// posted through one set of venue clients, so a GitHub App mints one
// installation token for both.
func TestPostArtifactOneInstallationToken(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	f := githubfake.New(t, "")
	f.AppKey = &key.PublicKey
	f.AppToken = "ghs_INSTALLATIONtoken0123456789"
	f.Login = "perfbot[bot]"

	dir := t.TempDir()
	keyFile := filepath.Join(dir, "app.pem")
	write := func(path, body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})))
	cfgFile := filepath.Join(dir, "config.yaml")
	write(cfgFile, fmt.Sprintf("venues:\n  github: {repo: acme/store, url: %q, app_id: %q, installation_id: %s, private_key_file: %q}\n",
		f.URL(), githubfake.AppID, githubfake.InstallationID, keyFile))
	art := filepath.Join(dir, "artifact")
	if err := os.Mkdir(art, 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(art, ciresult.MetaFile), `{"pr":7,"head_sha":"`+githubfake.Head+`","key":"gha-7"}`)
	write(filepath.Join(art, ciresult.AnswerJSONFile), `{"Key":"gha-7","Summary":"1 worse","State":"failure","Commit":"`+githubfake.Head+`","Renderings":{"markdown-gfm":{"Full":"### perfbot\n| a |"}}}`)
	event := filepath.Join(dir, "event.json")
	write(event, `{"workflow_run":{"event":"pull_request","head_sha":"`+githubfake.Head+`","pull_requests":[]},"repository":{"full_name":"acme/store"}}`)
	t.Setenv("GITHUB_TOKEN", "")

	var stdout, stderr bytes.Buffer
	if err := postArtifactCmd(context.Background(), []string{"--dir", art, "--event", event, "--config", cfgFile}, &stdout, &stderr); err != nil {
		t.Fatalf("post-artifact: %v\n%s", err, stderr.String())
	}
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if f.Tokens != 1 || len(f.Comments) != 1 {
		t.Errorf("minted %d installation tokens, posted %d comments; want 1 and 1\n%s", f.Tokens, len(f.Comments), stderr.String())
	}
}
