package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/store"
)

// startServe runs "perfbot serve" in this process until the test ends and
// returns its log.
func startServe(t *testing.T, cfgFile, addr string) *syncWriter {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncWriter{w: &bytes.Buffer{}}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "--config", cfgFile}, io.Discard, logs) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		if t.Failed() {
			t.Logf("serve log:\n%s", logs.String())
		}
	})
	waitHealthy(t, addr)
	return logs
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// deliverAs posts body to serve's webhook as GitHub does with the given
// content type (the form wraps the JSON in its payload field), signed
// with the e2e secret over the raw body, and returns the status and text.
func deliverAs(t *testing.T, addr, ctype string, payload []byte, delivery string) (int, string) {
	t.Helper()
	body := payload
	if ctype == "application/x-www-form-urlencoded" {
		body = []byte("payload=" + url.QueryEscape(string(payload)))
	}
	mac := hmac.New(sha256.New, []byte("e2e-secret"))
	mac.Write(body)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook/github", bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(text))
}

// TestServeWebhookDeliveries drives perfbot serve's webhook with a GitHub
// Enterprise address given without /api/v3: a commenter without
// permission is refused once however often they ask; a delivery that
// meets a failing permission API is answered 500, its form-encoded
// redelivery queues the job and a further redelivery changes nothing, so
// the pull request gets one answer; the SQLite store is private.
func TestServeWebhookDeliveries(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end benchmark run")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "state", "perfbot.db")
	cfgFile, gh, addr := costService(t, fmt.Sprintf("{driver: sqlite, path: %q}", db))
	cfg, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg = regexp.MustCompile(`(url: "http://[^"]*)/api/v3/"`).ReplaceAll(cfg, []byte(`$1"`))
	if err := os.WriteFile(cfgFile, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	gh.roles = map[string]string{"drive-by": "read"}
	startServe(t, cfgFile, addr)

	base := workComment(t)
	comment := func(user string, id int) []byte {
		b := bytes.Replace(base, []byte(`"id": 1987654321`), []byte(`"id": `+strconv.Itoa(id)), 1)
		return bytes.ReplaceAll(b, []byte(`"login": "maintainer"`), []byte(`"login": "`+user+`"`))
	}
	if !bytes.Contains(base, []byte(`"login": "maintainer"`)) {
		t.Fatal("the recorded comment is not by maintainer")
	}
	for i := 0; i < 3; i++ {
		code, text := deliverAs(t, addr, "application/json", comment("drive-by", 100+i), fmt.Sprintf("refuse-%d", i))
		if code != http.StatusOK || (i == 0) != (text == "refused") {
			t.Errorf("drive-by comment %d: %d %q", i+1, code, text)
		}
	}
	gh.mu.Lock()
	refusals := gh.created
	gh.permFailures = 1
	gh.mu.Unlock()
	if refusals != 1 {
		t.Errorf("%d refusals posted for three comments, want 1", refusals)
	}

	const form = "application/x-www-form-urlencoded"
	if code, text := deliverAs(t, addr, form, base, "redeliver"); code != http.StatusInternalServerError {
		t.Fatalf("delivery while the permission API fails: %d %q, want 500", code, text)
	}
	if code, text := deliverAs(t, addr, form, base, "redeliver"); code != http.StatusOK || text != "queued" {
		t.Fatalf("redelivery: %d %q, want 200 queued", code, text)
	}
	if code, text := deliverAs(t, addr, form, base, "redeliver"); code != http.StatusOK || text != "delivery already handled" {
		t.Fatalf("second redelivery: %d %q, want 200 delivery already handled", code, text)
	}
	waitFor(t, 2*time.Minute, "the answer", func() bool {
		gh.mu.Lock()
		defer gh.mu.Unlock()
		return gh.created > refusals
	})
	time.Sleep(500 * time.Millisecond)
	gh.mu.Lock()
	created, reacted := gh.created, len(gh.reacted)
	gh.mu.Unlock()
	if created != refusals+1 || reacted != 1 {
		t.Errorf("comments created %d (one refusal, one answer wanted), reactions %d (want 1)", created, reacted)
	}
	st, err := store.Open(context.Background(), store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if runs, err := st.RunsByKey(context.Background(), "github:acme/store#12/comment/1987654321"); err != nil || len(runs) != 1 {
		t.Errorf("runs of the comment's job: %d, %v; want 1", len(runs), err)
	}
	for _, p := range []string{db, filepath.Dir(db)} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, %v; want nothing for group and others", p, fi.Mode().Perm(), err)
		}
	}
}

// zeroReader reads as endless zero bytes without allocating.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// procStatus reads a size in bytes ("VmRSS", "VmHWM") from
// /proc/self/status.
func procStatus(t *testing.T, field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Skipf("no %s in /proc/self/status", field)
	return 0
}

// TestServeWebhookMemory sends 30 unsigned 25 MB deliveries at once to
// perfbot serve's webhook over loopback. Each is refused (401 once read,
// or 503 when no read slot frees up in time), and the process's memory
// (resident set and Go heap in use, sampled throughout) grows by far less
// than the 750 MB sent: bodies are hashed as they arrive and kept in
// memory only up to 1 MiB each, at most four at a time. The temporary
// files they spill into are removed.
func TestServeWebhookMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 750 MB over loopback")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cfgFile, _, addr := costService(t, fmt.Sprintf("{driver: sqlite, path: %q}", filepath.Join(t.TempDir(), "perfbot.db")))
	startServe(t, cfgFile, addr)

	const n, size = 30, 25 << 20
	runtime.GC()
	baseRSS := procStatus(t, "VmRSS")
	// Start the peak afresh (Linux: "5" resets VmHWM), and sample too.
	resetHWM := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseHeap := ms.HeapInuse
	var peakRSS int64
	var peakHeap uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse)
			peakRSS = max(peakRSS, procStatus(t, "VmRSS"))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()

	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: n, DisableKeepAlives: true}, Timeout: 5 * time.Minute}
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook/github", io.LimitReader(zeroReader{}, size))
			req.ContentLength = size
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-GitHub-Event", "issue_comment")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("flood-%d", i))
			req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
			resp, err := client.Do(req)
			if err != nil {
				codes[i] = -1 // turned away before the body was sent
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	if resetHWM {
		peakRSS = max(peakRSS, procStatus(t, "VmHWM"))
	}
	counts := map[int]int{}
	for _, c := range codes {
		counts[c]++
	}
	growth := peakRSS - baseRSS
	t.Logf("%d unsigned %d MB deliveries: statuses %v; RSS %d MB before, peak %d MB (growth %d MB, VmHWM reset: %v); Go heap in use %d MB before, peak %d MB",
		n, size>>20, counts, baseRSS>>20, peakRSS>>20, growth>>20, resetHWM, baseHeap>>20, peakHeap>>20)
	if counts[http.StatusUnauthorized] < 4 || counts[http.StatusUnauthorized]+counts[http.StatusServiceUnavailable]+counts[-1] != n {
		t.Errorf("statuses %v: want every delivery refused (401 or 503), at least four of them read to the end", counts)
	}
	if growth > 200<<20 {
		t.Errorf("RSS grew by %d MB under %d unsigned deliveries, want under 200 MB", growth>>20, n)
	}
	if ents, _ := filepath.Glob(filepath.Join(tmp, "perfbot-webhook-*")); len(ents) != 0 {
		t.Errorf("spill files left behind: %v", ents)
	}
	waitHealthy(t, addr)
}
