package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/provenance"
)

// TestAnswerScrubsHostPaths: a failure whose text names the perfbot binary
// and a worktree under the cache directory is answered without those
// paths, in every rendering.
func TestAnswerScrubsHostPaths(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	wt := filepath.Join(cache, "repos", "0a1b", "wt", "patched")
	cmp := &compare.Comparison{Base: "base", Candidates: []string{"patched"}, Failures: []provenance.Failure{{
		Variant: "patched", Stage: "build", Message: exe + " compare: build failed", LogTail: wt + "/x_test.go:3:1: syntax error"}}}
	extra := answer.Attachment{Name: "flame.svg", ContentType: "image/svg+xml", Data: []byte("<svg/>")}
	cfg := &config.Config{}
	cfg.Service.URL = "https://perf.example/"
	msg, err := Answer(cmp, cfg, AnswerOptions{Key: "scrub-test", CacheDir: cache, RunID: 3, Extra: []answer.Attachment{extra}})
	if err != nil {
		t.Fatal(err)
	}
	if msg.Key != "scrub-test" {
		t.Errorf("key %q, want scrub-test", msg.Key)
	}
	md := msg.Renderings[answer.MarkdownGFM].Full
	if !strings.Contains(md, "&lt;perfbot&gt; compare") || !strings.Contains(md, "<worktree>/x_test.go:3:1") {
		t.Errorf("the GitHub answer lacks the scrubbed failure:\n%s", md)
	}
	if !strings.Contains(md, "https://perf.example/runs/3") {
		t.Errorf("the GitHub answer does not link the run:\n%s", md)
	}
	for f, r := range msg.Renderings {
		if strings.Contains(r.Full, exe) || strings.Contains(r.Full, cache) {
			t.Errorf("%s shows host paths:\n%s", f, r.Full)
		}
	}
	if n := len(msg.Attachments); n == 0 || msg.Attachments[n-1].Name != "flame.svg" {
		t.Errorf("attachments %v, want flame.svg last", msg.Attachments)
	}
}
