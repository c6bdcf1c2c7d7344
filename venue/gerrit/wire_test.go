package gerrit_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"

	"github.com/perfbot/perfbot/venue/gerrit"
	"github.com/perfbot/perfbot/venue/internal/wiretest"
	"github.com/perfbot/perfbot/venue/retry"
)

// TestWire records what a first post, a retried delivery and a rerun with
// a changed verdict send to Gerrit.
func TestWire(t *testing.T) {
	f := newSite(t)
	var rec wiretest.Recorder
	f.Config.Handler = rec.Wrap(f.Config.Handler)
	c := newClient(t, f, "Performance")
	ctx := context.Background()
	for _, m := range []answer.Answer{
		{Key: "gerrit:1234/2", Summary: "1 worse", State: answer.StateFailure, Renderings: map[answer.Format]answer.Rendering{answer.Text: {Full: "WORSE: BenchmarkWAL +12%\n\nBenchmarkWAL  4.1ms  4.6ms  +12%  worse\n"}}},
		{Key: "gerrit:1234/2", Summary: "1 worse", State: answer.StateFailure, Renderings: map[answer.Format]answer.Rendering{answer.Text: {Full: "WORSE: BenchmarkWAL +12%\n\nBenchmarkWAL  4.1ms  4.6ms  +12%  worse\n"}}},
		{Key: "gerrit:1234/2", Summary: "all same", State: answer.StateSuccess, Renderings: map[answer.Format]answer.Rendering{answer.Text: {Full: "SAME\n"}}},
	} {
		if _, err := c.Post(ctx, target.MustParse("gerrit:1234"), m); err != nil {
			t.Fatal(err)
		}
	}
	wiretest.Golden(t, "post-retry-rerun", rec.Transcript())
}

// TestRetries puts a 503, a 429 with Retry-After and a proxy's 502 page
// in front of the fake: each is retried, and one message is
// posted.
func TestRetries(t *testing.T) {
	f := newSite(t)
	var n atomic.Int32
	upstream, _ := url.Parse(f.URL)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "Service Unavailable\n")
			return
		case 2:
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		case 3: // a proxy's error page
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
			return
		}
		r.URL.Scheme, r.URL.Host = upstream.Scheme, upstream.Host
		f.Config.Handler.ServeHTTP(w, r)
	}))
	defer front.Close()
	var waits []time.Duration
	c, err := gerrit.New(gerrit.Config{BaseURL: front.URL, User: f.User, Password: f.Password,
		Retry: retry.Policy{Attempts: 5, Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Post(context.Background(), target.MustParse("gerrit:1234"), result("1 worse", answer.StateFailure, "x")); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 3 || waits[1] < 3*time.Second || len(f.ByPerfbot(1234)) != 1 {
		t.Errorf("waits %v, %d messages: want three retries (one after 3s) and one message", waits, len(f.ByPerfbot(1234)))
	}
}
