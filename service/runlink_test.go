package service

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

func TestLinkRun(t *testing.T) {
	msg := RenderSummary(&compare.Comparison{Summary: []compare.Tally{{Variant: "patch", Worse: 1}}})
	msg.Set(answer.HTML, answer.Rendering{Full: "<html><body><p>report</p></body></html>"})
	msg.Attachments = []answer.Attachment{{Name: "perfbot-chart-1.png", ContentType: "image/png"}, {Name: "r.json", ContentType: "application/json"}}
	if got := report.LinkRun(msg, "", 2); got.Full(answer.MarkdownGFM) != msg.Full(answer.MarkdownGFM) {
		t.Error("no URL changed the answer")
	}
	url := RunURL("https://perfbot.example.org/", 42)
	if url != "https://perfbot.example.org/runs/42" {
		t.Fatalf("RunURL = %q", url)
	}
	got := report.LinkRun(msg, url, 2)
	for name, text := range map[string]string{"markdown": got.Full(answer.MarkdownGFM), "short markdown": got.Short(answer.MarkdownGFM),
		"jira": got.Full(answer.JIRAWiki), "short jira": got.Short(answer.JIRAWiki), "text": got.Full(answer.Text), "html": got.Full(answer.HTML)} {
		if !strings.Contains(text, url) {
			t.Errorf("%s rendering lacks the link:\n%s", name, text)
		}
	}
	// One chart attached and two flame graphs stored: GitHub's Markdown
	// says it leaves three images out.
	if !strings.Contains(got.Full(answer.MarkdownGFM), "cannot hold files: the 3 images (charts, flame graphs)") {
		t.Errorf("markdown does not say what it leaves out:\n%s", got.Full(answer.MarkdownGFM))
	}
	if strings.Contains(got.Full(answer.JIRAWiki), "cannot hold") || strings.Contains(got.Full(answer.Text), "cannot hold") {
		t.Error("JIRA and mail keep their attachments but say they cannot")
	}
	if !strings.Contains(got.Full(answer.HTML), `<a href="https://perfbot.example.org/runs/42">Run page</a>`) || !strings.HasSuffix(got.Full(answer.HTML), "</body></html>") {
		t.Errorf("html:\n%s", got.Full(answer.HTML))
	}
}

// fileBenchmarker returns a comparison and a flame graph to keep.
type fileBenchmarker struct{ cmp *compare.Comparison }

func (b fileBenchmarker) Run(ctx context.Context, spec jobspec.Spec, p job.ProgressFunc) (*compare.Comparison, error) {
	cmp, _, err := b.RunWithFiles(ctx, spec, p)
	return cmp, err
}

func (b fileBenchmarker) RunWithFiles(context.Context, jobspec.Spec, job.ProgressFunc) (*compare.Comparison, []answer.Attachment, error) {
	return b.cmp, []answer.Attachment{{Name: "flame-go-wal-patch-vs-base.svg", ContentType: "image/svg+xml", Data: []byte("<svg/>")}}, nil
}

// TestAnswerLinksRunPage: with service.url set, the posted answer links
// the page of the run the worker stored, and the flame graphs the
// benchmarker drew are kept with that run.
func TestAnswerLinksRunPage(t *testing.T) {
	cfg := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	cfg.Service.URL = "https://perfbot.example.org"
	var mu sync.Mutex
	var got []answer.Answer
	poster := PosterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, msg)
		return "https://github.com/acme/store/pull/7#issuecomment-1", nil
	})
	cmp := &compare.Comparison{Base: "base", Candidates: []string{"patch"}, Rows: []compare.Row{{Benchmark: "Append", Unit: "ns/op",
		Base: &compare.Cell{Center: 1000, N: 6, Samples: []float64{990, 1000, 1010, 995, 1005, 1000}},
		Candidates: []compare.Candidate{{Variant: "patch", Cell: compare.Cell{Center: 400, N: 6, Samples: []float64{398, 400, 402, 399, 401, 400}},
			DeltaPct: -60, Verdict: compare.Better, Significant: true}}}},
		Summary: []compare.Tally{{Variant: "patch", Better: 1}}}
	cmp.Rows[0].Better = bench.LowerIsBetter
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc, err := Open(ctx, cfg, ModeServe, Deps{Poster: poster, Benchmarker: fileBenchmarker{cmp}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if _, _, err := svc.Enqueue(ctx, JobSpec{Key: "github:acme/store#7/1", Targets: []target.Target{target.MustParse("github:acme/store#7")}, Source: "github", CandidateRef: "pull/7/head"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		final := len(got) > 0 && !live(got[len(got)-1])
		mu.Unlock()
		if final {
			break
		}
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	// The live answers (queued, running) come first; the result is last.
	if len(got) == 0 || live(got[len(got)-1]) {
		t.Fatalf("%d answers and none final", len(got))
	}
	got = got[len(got)-1:]
	runs, err := svc.Store().RunsByKey(context.Background(), "github:acme/store#7/1")
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs of the job: %v, %v", runs, err)
	}
	link := RunURL(cfg.Service.URL, runs[0].ID)
	if !strings.Contains(got[0].Full(answer.MarkdownGFM), "("+link+")") || !strings.Contains(got[0].Full(answer.MarkdownGFM), "cannot hold files: the 1 image") {
		t.Errorf("answer does not link %s and say it leaves the flame graph out:\n%s", link, got[0].Full(answer.MarkdownGFM))
	}
	files, err := svc.Store().Artifacts(context.Background(), runs[0].ID)
	if err != nil || len(files) != 1 || files[0].Name != "flame-go-wal-patch-vs-base.svg" {
		t.Errorf("files kept with run %d: %+v, %v", runs[0].ID, files, err)
	}
}

// live says whether msg is a queued or running answer, not a result.
func live(msg answer.Answer) bool {
	return msg.State == answer.StateQueued || msg.State == answer.StatePending
}
