package jira

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAttachment: an attachment is fetched with the client's credentials,
// only from the client's own site.
func TestAttachment(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "bot" || p != "pw" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, "diff --git a/x b/x\n")
	}))
	defer srv.Close()
	ctx := context.Background()
	url := srv.URL + "/secure/attachment/1/x.patch"
	c, err := New(Config{BaseURL: srv.URL, User: "bot", Token: "pw", Deployment: Server})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Attachment(ctx, url)
	if err != nil || got != "diff --git a/x b/x\n" {
		t.Errorf("Attachment = %q, %v", got, err)
	}
	if _, err := c.Attachment(ctx, "https://evil.example/x.patch"); err == nil || !strings.Contains(err.Error(), "not sending credentials there") {
		t.Errorf("off-site attachment: err = %v; want a refusal", err)
	}
	wrong, err := New(Config{BaseURL: srv.URL, User: "bot", Token: "wrong-token", Deployment: Server})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wrong.Attachment(ctx, url); err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("wrong credentials: err = %v; want a 401 without the token", err)
	}
	pat, err := New(Config{BaseURL: srv.URL, PAT: "tok", Deployment: Server})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pat.Attachment(ctx, url); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("PAT on a basic-auth site: err = %v; want 401", err)
	}
}
