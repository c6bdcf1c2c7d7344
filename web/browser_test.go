package web

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/storetest"
)

// chromium runs headless Chromium on url with extra flags and returns its
// standard output; the test is skipped when Chromium is not installed.
func chromium(t *testing.T, url string, flags ...string) []byte {
	t.Helper()
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("no chromium on PATH (Debian package chromium): the browser checks need it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + t.TempDir()}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Dir = t.TempDir()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// artifactDir is where screenshots are kept: $PERFBOT_TEST_ARTIFACTS, or
// the test's temporary directory.
func artifactDir(t *testing.T) string {
	if d := os.Getenv("PERFBOT_TEST_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// screenshot saves the page at url as name.png, w×h, and checks that the
// image has that size and is not blank.
func screenshot(t *testing.T, url, name string, w, h int) {
	t.Helper()
	path := filepath.Join(artifactDir(t), name+".png")
	chromium(t, url, fmt.Sprintf("--window-size=%d,%d", w, h), "--screenshot="+path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s is %dx%d, want %dx%d", path, b.Dx(), b.Dy(), w, h)
	}
	if n := colours(img); n < 8 {
		t.Errorf("%s has %d colours: a blank page", path, n)
	}
	t.Logf("screenshot of %s: %s (%d bytes)", url, path, len(data))
}

// colours counts the distinct colours of a sample of img's pixels.
func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}

func TestBrowserRunAndHistoryPages(t *testing.T) {
	st, ids := filled(t)
	srv := server(t, st)
	run := fmt.Sprintf("%s/runs/%d", srv.URL, ids[2])

	dom := string(chromium(t, run, "--dump-dom"))
	for _, want := range []string{`<table class="comparison" id="table-0">`, "index/suffixarray: use 64-bit indexes",
		`<td class="worse">worse</td>`, "perfbot-chart-1.png"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's DOM of %s lacks %s", run, want)
		}
	}
	screenshot(t, run, "run", 1280, 1600)

	_, js := get(t, srv, "/api/benchmarks?q=size=100K", 200)
	i := strings.Index(js, `"url": "/benchmarks/New-8?`)
	if i < 0 {
		t.Fatalf("no series URL in %s", js)
	}
	rest := js[i+len(`"url": "`):]
	history := srv.URL + rest[:strings.IndexByte(rest, '"')]
	dom = string(chromium(t, history, "--dump-dom"))
	if n := strings.Count(dom, "<circle "); n != 3 {
		t.Errorf("the history chart shows %d points, want 3", n)
	}
	if !strings.Contains(dom, `<table id="points">`) || !strings.Contains(dom, `id="history-chart"`) {
		t.Errorf("the history page lacks its chart or table:\n%s", dom)
	}
	screenshot(t, history, "history", 1280, 900)
	screenshot(t, srv.URL+"/", "home", 1280, 1200)
}

// TestBrowserChangePoint loads the history of a tracked series that stepped
// up 20% at commit 5 of 10, and a run page whose unchanged rows are folded.
func TestBrowserChangePoint(t *testing.T) {
	st := storetest.SQLite(t)
	sh := storetest.Shape{Benchmarks: 40, Commits: 10, StepEvery: 20, StepAt: 5}
	ids, err := storetest.Fill(context.Background(), st, sh)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.pageRows = 10
	srv := httptest.NewServer(ws.Handler())
	t.Cleanup(srv.Close)

	name, group, params := storetest.BulkSeries(20)
	history := srv.URL + seriesURL("", name, group, params, "ns/op", "", "main")
	dom := string(chromium(t, history, "--dump-dom"))
	if n := strings.Count(dom, "<circle "); n != sh.Commits {
		t.Errorf("the history chart shows %d points, want %d", n, sh.Commits)
	}
	if n := strings.Count(dom, `<g class="change-point">`); n != 1 {
		t.Errorf("the history chart shows %d change point markers, want 1", n)
	}
	if !strings.Contains(dom, "change point: ") || !strings.Contains(dom, `<ul id="change-points">`) {
		t.Errorf("the history page does not describe its change point:\n%s", dom)
	}
	screenshot(t, history, "history-change-point", 1280, 900)

	run := fmt.Sprintf("%s/runs/%d", srv.URL, ids[sh.StepAt/2])
	dom = string(chromium(t, run, "--dump-dom"))
	if n := strings.Count(dom, `<td class="worse">worse</td>`); n != 2 {
		t.Errorf("the run page shows %d worse rows, want the 2 changed ones", n)
	}
	if !strings.Contains(dom, "The 2 changed rows of 40") || !strings.Contains(dom, "show all 40 rows") {
		t.Errorf("the run page does not say what it folded")
	}
	screenshot(t, run, "run-folded", 1280, 1200)
}
