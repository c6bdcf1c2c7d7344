package github

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
)

func TestAPIBaseURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "https://api.github.com/"},
		{"https://api.github.com", "https://api.github.com/"},
		{"https://api.github.com/", "https://api.github.com/"},
		{"https://github.com/", "https://api.github.com/"},
		{"https://ghe.example.com", "https://ghe.example.com/api/v3/"},
		{"https://ghe.example.com/", "https://ghe.example.com/api/v3/"},
		{"https://ghe.example.com/api/v3", "https://ghe.example.com/api/v3/"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/api/v3/"},
		{"http://127.0.0.1:8080/api/v3/", "http://127.0.0.1:8080/api/v3/"},
	}
	for _, tt := range tests {
		got, err := APIBaseURL(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("APIBaseURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"ghe.example.com", "ftp://ghe.example.com/", "https://"} {
		if got, err := APIBaseURL(bad); err == nil {
			t.Errorf("APIBaseURL(%q) = %q, want an error", bad, got)
		}
	}
}

// TestReadsAndPostingURLs: one venues.github.url, given with or without
// GitHub Enterprise's /api/v3, makes the intake's reads and the posting
// call the same API paths (posting first asks who it is, GET /user).
func TestReadsAndPostingURLs(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"message": "Not Found"}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/api/v3", srv.URL + "/api/v3/"} {
		mu.Lock()
		paths = nil
		mu.Unlock()
		c, err := New(Config{BaseURL: base, Token: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Issue(ctx, "acme/store", 12); err == nil {
			t.Fatalf("%s: the fake answers 404, the read saw no error", base)
		}
		c.Post(ctx, target.MustParse("github:acme/store#12"), answer.Answer{Key: "k", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: "x"}}})
		mu.Lock()
		got := append([]string(nil), paths...)
		mu.Unlock()
		if len(got) < 2 {
			t.Fatalf("%s: requests %q, want the read's and the post's", base, got)
		}
		for _, p := range got {
			if !strings.HasPrefix(p, "/api/v3/repos/acme/store/") && p != "/api/v3/user" {
				t.Errorf("venues.github.url %s: request to %s, want /api/v3/user or /api/v3/repos/acme/store/...", base, p)
			}
		}
	}
}
