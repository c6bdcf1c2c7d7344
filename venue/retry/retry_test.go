package retry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

func noSleep(waits *[]time.Duration) func(context.Context, time.Duration) error {
	return func(ctx context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return ctx.Err()
	}
}

func TestDo(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name      string
		fails     []error // returned by successive calls, then nil
		attempts  int
		wantCalls int
		wantErr   string
	}{
		{name: "success", wantCalls: 1},
		{name: "transient then success", fails: []error{Transient(errBoom), Transient(errBoom)}, wantCalls: 3},
		{name: "permanent stops at once", fails: []error{errBoom}, wantCalls: 1, wantErr: "op: boom"},
		{name: "gives up", fails: []error{Transient(errBoom), Transient(errBoom), Transient(errBoom)}, attempts: 3, wantCalls: 3, wantErr: "gave up after 3 attempts: boom"},
		{name: "server wait too long", fails: []error{After(errBoom, time.Hour)}, wantCalls: 1, wantErr: "longer than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var waits []time.Duration
			p := Policy{Attempts: tc.attempts, Sleep: noSleep(&waits)}
			calls := 0
			err := p.Do(context.Background(), "op", func(context.Context) error {
				calls++
				if calls <= len(tc.fails) {
					return tc.fails[calls-1]
				}
				return nil
			})
			if calls != tc.wantCalls {
				t.Errorf("calls = %d, want %d", calls, tc.wantCalls)
			}
			if tc.wantErr == "" && err != nil {
				t.Fatalf("err = %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, errBoom) {
				t.Errorf("err %v does not wrap the call's error", err)
			}
		})
	}
}

func TestDoBackoffGrowsAndHonoursAfter(t *testing.T) {
	var waits []time.Duration
	p := Policy{Attempts: 5, Base: time.Second, Max: 3 * time.Second, Sleep: noSleep(&waits)}
	calls := 0
	_ = p.Do(context.Background(), "op", func(context.Context) error {
		calls++
		if calls == 3 {
			return After(errors.New("rate"), 42*time.Second)
		}
		return Transient(errors.New("x"))
	})
	if len(waits) != 4 {
		t.Fatalf("waits = %v", waits)
	}
	if waits[0] < 800*time.Millisecond || waits[0] > 1200*time.Millisecond {
		t.Errorf("first wait %v, want about 1s", waits[0])
	}
	if waits[2] != 42*time.Second {
		t.Errorf("third wait %v, want the server's 42s", waits[2])
	}
	if waits[3] > 3600*time.Millisecond {
		t.Errorf("fourth wait %v exceeds the cap", waits[3])
	}
}

func TestDoStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := Policy{Sleep: func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }}.
		Do(ctx, "op", func(context.Context) error { calls++; return Transient(errors.New("503")) })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Fatalf("err = %v, calls = %d", err, calls)
	}
}

func TestHTTPStatusTransient(t *testing.T) {
	for code, want := range map[int]bool{200: false, 400: false, 401: false, 403: false, 404: false, 408: true, 429: true, 500: true, 501: false, 502: true, 503: true, 504: true} {
		if got := HTTPStatusTransient(code); got != want {
			t.Errorf("HTTPStatusTransient(%d) = %v, want %v", code, got, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":     0,
		"7":    7 * time.Second,
		"junk": 0,
		now.Add(time.Minute).Format(http.TimeFormat): time.Minute,
	} {
		h := http.Header{}
		if v != "" {
			h.Set("Retry-After", v)
		}
		if got := RetryAfter(h, now); got != want {
			t.Errorf("RetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestNetworkTransient(t *testing.T) {
	if !NetworkTransient(fmt.Errorf("read: %w", syscall.ECONNRESET)) {
		t.Error("connection reset should be transient")
	}
	if NetworkTransient(context.Canceled) || NetworkTransient(errors.New("bad request")) {
		t.Error("cancel and plain errors should not be transient")
	}
}

func TestRedact(t *testing.T) {
	base := errors.New(`401: {"echo":"Bearer s3cr3t-token"}`)
	err := fmt.Errorf("post: %w", Redact(base, "", "s3cr3t-token"))
	if strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("token in %q", err)
	}
	if !errors.Is(err, base) {
		t.Error("redacted error lost its cause")
	}
}

func TestRedactEncodedForms(t *testing.T) {
	// A Basic credential echoed back carries the token base64-encoded.
	base := errors.New("401: Authorization: Basic cGVyZmJvdDpqaXJhLXRva2VuLTEyMzQ1")
	if got := Redact(base, "jira-token-12345").Error(); strings.Contains(got, "cGVyZmJvdDpqaXJhLXRva2VuLTEyMzQ1") {
		t.Errorf("encoded token kept: %q", got)
	}
}

func TestDoStopsOnExpiredContextAfterTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	calls := 0
	err := Policy{}.Do(ctx, "op", func(ctx context.Context) error {
		calls++
		return Transient(ctx.Err())
	})
	if calls != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("calls %d, err %v", calls, err)
	}
}

func TestByResponse(t *testing.T) {
	base := errors.New("answer")
	for _, c := range []struct {
		status     int
		retryAfter string
		transient  bool
		after      time.Duration
	}{
		{404, "", false, 0},
		{404, "7", false, 0},
		{503, "", true, 0},
		{503, "7", true, 7 * time.Second},
		{429, "2", true, 2 * time.Second},
	} {
		resp := &http.Response{StatusCode: c.status, Header: http.Header{}}
		if c.retryAfter != "" {
			resp.Header.Set("Retry-After", c.retryAfter)
		}
		err := ByResponse(base, resp)
		if IsTransient(err) != c.transient || !errors.Is(err, base) {
			t.Errorf("%d Retry-After %q: %v transient %v, want %v", c.status, c.retryAfter, err, IsTransient(err), c.transient)
		}
		var te *transientError
		if errors.As(err, &te) && te.after != c.after {
			t.Errorf("%d Retry-After %q: waits %v, want %v", c.status, c.retryAfter, te.after, c.after)
		}
	}
	if err := ByResponse(base, nil); IsTransient(err) {
		t.Errorf("no response: %v is transient", err)
	}
}
