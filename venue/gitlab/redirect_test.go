package gitlab

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestTokenNotSentAcrossRedirect: a GitLab server that redirects to
// another host does not pass the token on; the request fails naming both
// hosts, and the other host is never asked.
func TestTokenNotSentAcrossRedirect(t *testing.T) {
	var asked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if r.Header.Get("Private-Token") != "" || r.Header.Get("Authorization") != "" || r.Header.Get("Job-Token") != "" {
			t.Errorf("the other host received a token: %v", r.Header)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"username":"mallory"}`))
	}))
	defer other.Close()
	gitlab := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer gitlab.Close()

	c, err := New(Config{BaseURL: gitlab.URL, Token: "glpat-secret"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Self(context.Background())
	if err == nil || !strings.Contains(err.Error(), gitlab.Listener.Addr().String()) || !strings.Contains(err.Error(), other.Listener.Addr().String()) {
		t.Errorf("err = %v, want a refused redirect naming both hosts", err)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the other host was asked %d times", n)
	}
}
