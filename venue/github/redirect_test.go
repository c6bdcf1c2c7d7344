package github

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestTokenNotSentAcrossRedirect: go-github's token transport signs every
// request it sends, a redirected one too, so a redirect to another host is
// refused, naming both hosts, and that host is never asked.
func TestTokenNotSentAcrossRedirect(t *testing.T) {
	var asked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the other host received the token: %v", r.Header)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"login":"mallory"}`))
	}))
	defer other.Close()
	ghe := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer ghe.Close()

	c, err := New(Config{BaseURL: ghe.URL, Token: "ghp-secret"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Self(context.Background())
	if err == nil || !strings.Contains(err.Error(), ghe.Listener.Addr().String()) || !strings.Contains(err.Error(), other.Listener.Addr().String()) {
		t.Errorf("err = %v, want a refused redirect naming both hosts", err)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the other host was asked %d times", n)
	}
}
