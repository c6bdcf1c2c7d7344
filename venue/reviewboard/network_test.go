package reviewboard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"
)

// TestRetriesTimeoutAndReset puts a hanging answer and a dropped connection
// in front of the fake: both are retried.
func TestRetriesTimeoutAndReset(t *testing.T) {
	f := newSite(t)
	var n atomic.Int32
	release := make(chan struct{})
	defer close(release)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1: // hang past the client's timeout
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		case 2: // drop the connection without an answer
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		f.Handler().ServeHTTP(w, r)
	}))
	defer front.Close()
	var waits []time.Duration
	c, err := New(Config{BaseURL: front.URL + "/rb/", Token: f.Token, HTTPClient: &http.Client{Timeout: 200 * time.Millisecond},
		Retry: retry.Policy{Attempts: 4, Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Post(context.Background(), target.MustParse("reviewboard:42"), msg("k", "x")); err != nil {
		t.Fatal(err)
	}
	if n := len(f.Reviews(42, "")); len(waits) != 2 || n != 1 {
		t.Errorf("waits %v, %d reviews: want two retries and one review", waits, n)
	}
}
