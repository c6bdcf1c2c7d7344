package github

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/perfbot/perfbot/answer"
	ghreview "github.com/perfbot/perfbot/venue/github"
)

// TestIntakeAndPostingURLs: one venues.github.url, given with or without
// GitHub Enterprise's /api/v3, makes the intake and the poster call the
// same API paths (the poster first asks who it is, GET /user).
func TestIntakeAndPostingURLs(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/api/v3", srv.URL + "/api/v3/"} {
		mu.Lock()
		paths = nil
		mu.Unlock()
		gc, err := ghreview.NewClient(ghreview.Config{BaseURL: base, Token: "t"})
		if err != nil {
			t.Fatal(err)
		}
		c := NewClient(gc)
		if _, err := c.Issue(ctx, "acme/store", 12); err == nil {
			t.Fatalf("%s: the fake answers 404, the intake saw no error", base)
		}
		p, err := ghreview.New(ghreview.Config{BaseURL: base, Token: "t"})
		if err != nil {
			t.Fatal(err)
		}
		p.Post(ctx, "acme/store#12", answer.Answer{Key: "k", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: "x"}}})
		mu.Lock()
		got := append([]string(nil), paths...)
		mu.Unlock()
		if len(got) < 2 {
			t.Fatalf("%s: requests %q, want the intake's and the poster's", base, got)
		}
		for _, p := range got {
			if !strings.HasPrefix(p, "/api/v3/repos/acme/store/") && p != "/api/v3/user" {
				t.Errorf("venues.github.url %s: request to %s, want /api/v3/user or /api/v3/repos/acme/store/...", base, p)
			}
		}
	}
}
