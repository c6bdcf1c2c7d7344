package jira

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCredentialsNotSentAcrossRedirect: go-jira's auth transports sign
// every request they send, a redirected one too, so the API client refuses
// a redirect to another host, naming both hosts, and that host is never
// asked.
func TestCredentialsNotSentAcrossRedirect(t *testing.T) {
	for _, cfg := range []Config{{User: "perfbot", Token: "api-secret"}, {PAT: "pat-secret"}} {
		var asked atomic.Int32
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			if r.Header.Get("Authorization") != "" {
				t.Errorf("the other host received credentials: %v", r.Header)
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"name":"mallory","displayName":"Mallory"}`))
		}))
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
		}))
		cfg.BaseURL, cfg.Deployment = site.URL, Server
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Check(context.Background())
		if err == nil || !strings.Contains(err.Error(), site.Listener.Addr().String()) || !strings.Contains(err.Error(), other.Listener.Addr().String()) {
			t.Errorf("err = %v, want a refused redirect naming both hosts", err)
		}
		if n := asked.Load(); n != 0 {
			t.Errorf("the other host was asked %d times", n)
		}
		site.Close()
		other.Close()
	}
}
