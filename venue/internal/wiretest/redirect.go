package wiretest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// RedirectElsewhere starts a venue site that redirects every request to
// another host and calls call with the site's URL. It fails t unless
// call's error names both hosts and the other host was never asked, so
// no credential of the venue's client could have reached it.
func RedirectElsewhere(t *testing.T, call func(siteURL string) error) {
	t.Helper()
	var asked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		t.Errorf("the other host was asked %s %s with headers %v", r.Method, r.URL.Path, r.Header)
		http.Error(w, "not here", http.StatusNotFound)
	}))
	defer other.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer site.Close()
	err := call(site.URL)
	if err == nil || !strings.Contains(err.Error(), site.Listener.Addr().String()) || !strings.Contains(err.Error(), other.Listener.Addr().String()) {
		t.Errorf("err = %v, want a refused redirect naming both hosts", err)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the other host was asked %d times", n)
	}
}
