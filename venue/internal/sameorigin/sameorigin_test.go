package sameorigin

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCrossOriginRedirectRefused(t *testing.T) {
	var leaked []string
	second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked = append(leaked, r.Header.Get("Private-Token"))
	}))
	defer second.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, second.URL+"/elsewhere", http.StatusFound)
	}))
	defer first.Close()

	req, _ := http.NewRequest(http.MethodGet, first.URL+"/api", nil)
	req.Header.Set("Private-Token", "secret")
	_, err := Client(nil, "gitlab").Do(req)
	if err == nil || !strings.Contains(err.Error(), Origin(req)) || !strings.Contains(err.Error(), strings.TrimPrefix(second.URL, "http://")) {
		t.Fatalf("err = %v, want a refusal naming both origins", err)
	}
	if len(leaked) != 0 {
		t.Fatalf("second server was asked %d times", len(leaked))
	}
}

func TestSameOriginRedirectFollowed(t *testing.T) {
	var token string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		token = r.Header.Get("Private-Token")
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/old", nil)
	req.Header.Set("Private-Token", "secret")
	resp, err := Client(&http.Client{}, "gitlab").Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if token != "secret" {
		t.Fatalf("same-origin redirect lost the token: %q", token)
	}
}

func TestKeepsOwnPolicyAndLeavesClientAlone(t *testing.T) {
	stop := errors.New("no redirects")
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return stop }}
	c := Client(hc, "gitlab")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusFound)
		}
	}))
	defer srv.Close()
	if _, err := c.Get(srv.URL + "/old"); !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the client's own policy", err)
	}
	if err := hc.CheckRedirect(nil, nil); err != stop {
		t.Fatal("the given client was modified")
	}
}

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://GitLab.example.org/api":   "https://gitlab.example.org:443",
		"https://gitlab.example.org:443/x": "https://gitlab.example.org:443",
		"http://gitlab.example.org/x":      "http://gitlab.example.org:80",
		"http://gitlab.example.org:8080/x": "http://gitlab.example.org:8080",
	} {
		req, _ := http.NewRequest(http.MethodGet, in, nil)
		if got := Origin(req); got != want {
			t.Errorf("Origin(%s) = %s, want %s", in, got, want)
		}
	}
}
