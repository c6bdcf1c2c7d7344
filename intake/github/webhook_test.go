package github

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// post sends a signed or unsigned delivery with the given content type and
// returns the response with its body read.
func (f *fixture) post(t *testing.T, delivery, ctype, signature string, body io.Reader) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.server.URL, body)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", delivery)
	if signature != "" {
		req.Header.Set("X-Hub-Signature-256", signature)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp, string(text)
}

// TestWebhookFormEncoded: GitHub's "application/x-www-form-urlencoded"
// deliveries carry the JSON in the payload field and are signed over the
// raw form body.
func TestWebhookFormEncoded(t *testing.T) {
	f := newFixture(t)
	form := []byte("payload=" + url.QueryEscape(string(payload(t, nil))))
	const ctype = "application/x-www-form-urlencoded"
	// A signature over the JSON inside is not a signature of the delivery.
	if resp, _ := f.post(t, "form-1", ctype, sign([]byte("s3cret"), payload(t, nil)), bytes.NewReader(form)); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("form signed over its JSON: status %d, want 401", resp.StatusCode)
	}
	resp, text := f.post(t, "form-1", ctype, sign([]byte("s3cret"), form), bytes.NewReader(form))
	if resp.StatusCode != http.StatusOK || !strings.Contains(text, "queued") {
		t.Fatalf("form delivery: %d %q, want 200 queued", resp.StatusCode, text)
	}
	if f.queue.new != 1 || f.queue.jobs[0].Key != "github:acme/store#12/comment/1987654321" {
		t.Errorf("jobs %+v, want the comment's job", f.queue.jobs)
	}
	body := []byte("{}")
	if resp, _ := f.post(t, "xml", "application/xml", sign([]byte("s3cret"), body), bytes.NewReader(body)); resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("XML delivery: status %d, want 415", resp.StatusCode)
	}
}

// TestWebhookRedeliveryAfterFailure: when GitHub's permission API fails,
// the delivery is answered 500 and not recorded; GitHub's redelivery is
// then handled, once, and a further redelivery changes nothing.
func TestWebhookRedeliveryAfterFailure(t *testing.T) {
	for _, user := range []string{"writer", "drive-by"} {
		t.Run(user, func(t *testing.T) {
			f := newFixture(t)
			f.fake.permFailures = 1
			body := payload(t, setComment(user, 300, ""))
			sig := sign([]byte("s3cret"), body)
			if resp := f.deliver(t, "redeliver-1", sig, body); resp.StatusCode != http.StatusInternalServerError {
				t.Fatalf("delivery while the permission API fails: status %d, want 500", resp.StatusCode)
			}
			reactions, replies := f.fake.snapshot()
			if len(f.queue.jobs) != 0 || len(reactions) != 0 || len(replies) != 0 {
				t.Fatalf("failed delivery had effects: jobs %v, reactions %v, replies %v", f.queue.jobs, reactions, replies)
			}
			for i := 0; i < 3; i++ {
				if resp := f.deliver(t, "redeliver-1", sig, body); resp.StatusCode != http.StatusOK {
					t.Fatalf("redelivery %d: status %d", i+1, resp.StatusCode)
				}
			}
			reactions, replies = f.fake.snapshot()
			if user == "writer" && (f.queue.new != 1 || len(f.queue.jobs) != 1 || len(reactions) != 1 || len(replies) != 0) {
				t.Errorf("queued %d of %d, reactions %v, replies %v; want one job, one rocket, no reply", f.queue.new, len(f.queue.jobs), reactions, replies)
			}
			if user == "drive-by" && (len(f.queue.jobs) != 0 || len(replies) != 1 || !strings.Contains(replies[0], "@drive-by")) {
				t.Errorf("jobs %v, replies %q; want no job and one refusal", f.queue.jobs, replies)
			}
			if n := f.metrics.Counter("perfbot_webhook_deliveries_total", "result", "replayed"); n != 2 {
				t.Errorf("replayed deliveries counted %v, want 2", n)
			}
		})
	}
}

// failingSeen is the store, failing the chosen calls once each.
type failingSeen struct {
	Seen
	failHandled, failSee bool
}

var errStoreDown = errors.New("database is locked")

func (s *failingSeen) DeliveryHandled(ctx context.Context, id string) (bool, error) {
	if s.failHandled {
		s.failHandled = false
		return false, errStoreDown
	}
	return s.Seen.DeliveryHandled(ctx, id)
}

func (s *failingSeen) SeeDelivery(ctx context.Context, id string) (bool, error) {
	if s.failSee {
		s.failSee = false
		return false, errStoreDown
	}
	return s.Seen.SeeDelivery(ctx, id)
}

// TestWebhookStoreFailure: a store failure is answered 5xx and the
// delivery is not recorded, so its redelivery is handled; the comment's
// job is queued once however often it is delivered.
func TestWebhookStoreFailure(t *testing.T) {
	f := newFixture(t)
	seen := &failingSeen{Seen: f.intake.Seen, failHandled: true, failSee: true}
	f.intake.Seen = seen
	body := payload(t, nil)
	sig := sign([]byte("s3cret"), body)
	if resp := f.deliver(t, "store-1", sig, body); resp.StatusCode/100 != 5 {
		t.Fatalf("delivery while the store fails: status %d, want 5xx", resp.StatusCode)
	}
	if len(f.queue.jobs) != 0 {
		t.Fatalf("delivery queued although the store failed: %v", f.queue.jobs)
	}
	// The job is queued, but recording the delivery fails: 500, and the
	// redelivery finds the comment taken in already.
	if resp := f.deliver(t, "store-1", sig, body); resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("delivery whose recording fails: status %d, want 500", resp.StatusCode)
	}
	resp, text := f.post(t, "store-1", "application/json", sig, bytes.NewReader(body))
	if resp.StatusCode != http.StatusOK || !strings.Contains(text, "seen") {
		t.Fatalf("redelivery: %d %q, want 200 seen", resp.StatusCode, text)
	}
	if resp, text := f.post(t, "store-1", "application/json", sig, bytes.NewReader(body)); !strings.Contains(text, "already handled") {
		t.Errorf("redelivery after it was recorded: %d %q, want already handled", resp.StatusCode, text)
	}
	if reactions, _ := f.fake.snapshot(); f.queue.new != 1 || len(reactions) != 1 {
		t.Errorf("queued %d, reactions %v; want one job acknowledged once", f.queue.new, reactions)
	}
}

// TestRefusalThrottled: a user without permission is answered once per
// pull request within the hour, however many comments they make; another
// pull request is answered.
func TestRefusalThrottled(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < 4; i++ {
		body := payload(t, setComment("drive-by", float64(700+i), ""))
		resp, text := f.post(t, "throttle-"+string(rune('a'+i)), "application/json", sign([]byte("s3cret"), body), bytes.NewReader(body))
		want := "refused"
		if i > 0 {
			want = "throttled"
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(text, want) {
			t.Errorf("comment %d: %d %q, want 200 %s", i+1, resp.StatusCode, text, want)
		}
	}
	other := payload(t, func(ev map[string]any) {
		setComment("drive-by", 800, "")(ev)
		ev["issue"].(map[string]any)["number"] = 13.0
	})
	if resp, text := f.post(t, "throttle-other", "application/json", sign([]byte("s3cret"), other), bytes.NewReader(other)); !strings.Contains(text, "refused") {
		t.Errorf("comment on another pull request: %d %q, want refused", resp.StatusCode, text)
	}
	_, replies := f.fake.snapshot()
	if len(replies) != 2 || !strings.HasPrefix(replies[0], "12:") || !strings.HasPrefix(replies[1], "13:") {
		t.Errorf("replies %q, want one refusal on #12 and one on #13", replies)
	}
	if n := f.metrics.Counter("perfbot_replies_throttled_total", "venue", "github", "kind", "refusal"); n != 3 {
		t.Errorf("throttled refusals counted %v, want 3", n)
	}
	if len(f.queue.jobs) != 0 {
		t.Errorf("refused user queued %v", f.queue.jobs)
	}
}

// TestWebhookLimits: a body larger than GitHub's 25 MB is refused, with
// or without a Content-Length.
func TestWebhookLimits(t *testing.T) {
	f := newFixture(t)
	big := int64(maxPayload + 1)
	sig := sign([]byte("s3cret"), []byte("x"))
	if resp, _ := f.post(t, "big-1", "", sig, io.LimitReader(zeros{}, big)); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("26 MB with a length: status %d, want 413", resp.StatusCode)
	}
	if resp, _ := f.post(t, "big-2", "", sig, struct{ io.Reader }{io.LimitReader(zeros{}, big)}); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("26 MB chunked: status %d, want 413", resp.StatusCode)
	}
	if n := f.metrics.Counter("perfbot_webhook_deliveries_total", "result", "too_large"); n != 2 {
		t.Errorf("too large deliveries counted %v, want 2", n)
	}
}

// TestWebhookReadSlots: a delivery finding every read slot busy is
// answered 503 with Retry-After; once the slot is free deliveries are read
// again.
func TestWebhookReadSlots(t *testing.T) {
	f := newFixture(t)
	sig := sign([]byte("s3cret"), []byte("x"))
	f.intake.ReadSlots, f.intake.ReadWait = 1, 100*time.Millisecond
	f.intake.once.Do(f.intake.init)
	pr, pw := io.Pipe()
	slow := make(chan int, 1)
	go func() {
		resp, _ := f.post(t, "slow", "", sig, pr)
		slow <- resp.StatusCode
	}()
	pw.Write([]byte(`{"action":`))
	deadline := time.Now().Add(10 * time.Second)
	for len(f.intake.reads) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	resp, _ := f.post(t, "busy", "", sig, strings.NewReader("{}"))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("delivery while the only slot is busy: status %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	pw.Write([]byte(`"created"}`))
	pw.Close()
	if code := <-slow; code != http.StatusUnauthorized {
		t.Errorf("slow unsigned delivery: status %d, want 401", code)
	}
	if resp, _ := f.post(t, "after", "", sig, strings.NewReader("{}")); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("delivery once the slot is free: status %d, want 401", resp.StatusCode)
	}
}

// zeros reads as endless zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestSpool: a body past 1 MiB goes to a temporary file readable only by
// perfbot, which Close removes; what is read back is what was sent.
func TestSpool(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	data := bytes.Repeat([]byte("0123456789abcdef"), 3<<16) // 3 MiB
	b, ok, err := spool(bytes.NewReader(data), []byte("k"), mustMAC(t, sign([]byte("k"), data)), maxPayload)
	if err != nil || !ok {
		t.Fatalf("spool: ok %v, %v", ok, err)
	}
	if b.file == nil || b.mem.Len() > spillAfter {
		t.Fatalf("3 MiB kept in memory (%d bytes), want the rest in a file", b.mem.Len())
	}
	fi, err := os.Stat(b.file.Name())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("spool file mode %v, %v; want 0600", fi.Mode(), err)
	}
	rd, err := b.Reader()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rd)
	if !bytes.Equal(got, data) {
		t.Errorf("read back %d bytes, differ from the %d sent", len(got), len(data))
	}
	name := b.file.Name()
	b.Close()
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("spool file %s left behind: %v", name, err)
	}
	other, ok, err := spool(bytes.NewReader(data), []byte("other"), mustMAC(t, sign([]byte("k"), data)), maxPayload)
	if err != nil || ok {
		t.Fatalf("other key: ok %v, %v; want a mismatch", ok, err)
	}
	other.Close()
	if _, _, err := spool(bytes.NewReader(data), []byte("k"), nil, 1<<20); err == nil {
		t.Error("3 MiB under a 1 MiB limit: no error")
	}
	if ents, _ := os.ReadDir(os.Getenv("TMPDIR")); len(ents) != 0 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func mustMAC(t *testing.T, sig string) []byte {
	mac, err := parseSignature(sig)
	if err != nil {
		t.Fatal(err)
	}
	return mac
}
