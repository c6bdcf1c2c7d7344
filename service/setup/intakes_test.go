package setup

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/job"
)

// TestFetchPatch: a JIRA attachment is fetched with the venue's
// credentials only from the venue's own site.
func TestFetchPatch(t *testing.T) {
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
	if err := onSite(url, srv.URL); err != nil {
		t.Fatal(err)
	}
	if err := onSite("https://evil.example/x.patch", srv.URL); err == nil {
		t.Error("credentials would go to another site")
	}
	if _, err := job.FetchPatch(ctx, url, nil); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("without credentials: %v", err)
	}
	got, err := job.FetchPatch(ctx, url, func(r *http.Request) { r.SetBasicAuth("bot", "pw") })
	if err != nil || got != "diff --git a/x b/x\n" {
		t.Errorf("fetch = %q, %v", got, err)
	}
}
