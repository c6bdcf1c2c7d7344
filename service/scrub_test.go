package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

func TestScrubberString(t *testing.T) {
	s := NewScrubber(
		PathRoot{"/var/cache/perfbot/repos/*/wt/*", "<worktree>"},
		PathRoot{"/var/cache/perfbot/repos/*/repo.git", "<repository>"},
		PathRoot{"/var/cache/perfbot", "<cache>"},
		PathRoot{"/usr/local/bin/perfbot", "<perfbot>"},
		PathRoot{"/tmp", "<tmp>"},
		PathRoot{"/root", "<home>"},
		PathRoot{"/", "<root>"},         // skipped: it would match everything
		PathRoot{"relative/dir", "<x>"}, // skipped: not a host path
	)
	tests := []struct{ in, want string }{
		{"/var/cache/perfbot/repos/0f1e2d3c/wt/patched/work/x_test.go:12:3: undefined: y",
			"<worktree>/work/x_test.go:12:3: undefined: y"},
		{"fatal: '/var/cache/perfbot/repos/0f1e2d3c/repo.git/worktrees/base' is not a git dir",
			"fatal: '<repository>/worktrees/base' is not a git dir"},
		{"lock /var/cache/perfbot/lock: busy", "lock <cache>/lock: busy"},
		{"/usr/local/bin/perfbot compare: exit status 2", "<perfbot> compare: exit status 2"},
		{"open /tmp/perfbot-job-123/patch: no such file", "open <tmp>/perfbot-job-123/patch: no such file"},
		{"GOCACHE=/root/.cache/go-build", "GOCACHE=<home>/.cache/go-build"},
		{"in /tmp and /tmp/x, (/tmp)", "in <tmp> and <tmp>/x, (<tmp>)"},
		{"/var/tmp/x /tmpfoo /rootless /usr/local/bin/perfbot-old", "/var/tmp/x /tmpfoo /rootless /usr/local/bin/perfbot-old"},
		{"no paths at all", "no paths at all"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := s.String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	var nilScrubber *Scrubber
	if got := nilScrubber.String("/tmp/x"); got != "/tmp/x" {
		t.Errorf("nil scrubber changed text: %q", got)
	}
}

// TestScrubberSymlinkedRoot: a root reached through a symbolic link is
// replaced in its resolved spelling too.
func TestScrubberSymlinkedRoot(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real-cache")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "cache")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	s := NewScrubber(HostPaths(link)...)
	for _, in := range []string{link + "/repos/ab/wt/base/go.mod", real + "/repos/ab/wt/base/go.mod"} {
		if got := s.String(in); got != "<worktree>/go.mod" {
			t.Errorf("String(%q) = %q, want <worktree>/go.mod", in, got)
		}
	}
}

// TestScrubberComparison: the failure texts, warnings, names and
// provenance of a comparison are scrubbed in a copy; the original keeps
// the host paths for the store and the logs.
func TestScrubberComparison(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "perfbot")
	s := NewScrubber(HostPaths(cache)...)
	wt := filepath.Join(cache, "repos", "c0ffee", "wt", "patched")
	cmp := &compare.Comparison{
		Failures: []provenance.Failure{{Variant: "patched", Stage: "build", Message: exe + ": build failed in " + wt,
			LogTail: wt + "/x.go:3: syntax error"}},
		Warnings: []string{"cache at " + cache},
		Rows:     []compare.Row{{Benchmark: "BenchmarkOpen/file=" + wt}},
		Provenance: provenance.Record{Repo: filepath.Join(cache, "repos", "c0ffee", "repo.git"),
			Suites: []provenance.Suite{{Name: "s", Commands: []string{"go test " + wt + "/..."}}}},
	}
	got := s.Comparison(cmp)
	for _, text := range []string{got.Failures[0].Message, got.Failures[0].LogTail, got.Warnings[0], got.Rows[0].Benchmark,
		got.Provenance.Repo, got.Provenance.Suites[0].Commands[0]} {
		if strings.Contains(text, cache) || strings.Contains(text, exe) {
			t.Errorf("host path left in %q", text)
		}
	}
	if got.Failures[0].Message != "<perfbot>: build failed in <worktree>" || got.Provenance.Repo != "<repository>" {
		t.Errorf("scrubbed failure %q, repo %q", got.Failures[0].Message, got.Provenance.Repo)
	}
	if !strings.Contains(cmp.Failures[0].Message, exe) || !strings.Contains(cmp.Provenance.Repo, cache) {
		t.Error("the original comparison was changed")
	}
	msg := s.Message(answer.Answer{Attachments: []answer.Attachment{
		{Name: "log.txt", ContentType: "text/plain", Data: []byte(wt)}, {Name: "c.png", ContentType: "image/png", Data: []byte(wt)}}, Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: "failed in " + wt}}})
	if msg.Full(answer.MarkdownGFM) != "failed in <worktree>" || string(msg.Attachments[0].Data) != "<worktree>" || string(msg.Attachments[1].Data) != wt {
		t.Errorf("message scrubbed to %q, attachments %q %q", msg.Full(answer.MarkdownGFM), msg.Attachments[0].Data, msg.Attachments[1].Data)
	}
}

// textPoster records the Markdown of every answer.
type textPoster struct {
	mu    sync.Mutex
	posts []string
}

func (p *textPoster) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.posts = append(p.posts, msg.Full(answer.MarkdownGFM)+"\n"+msg.Full(answer.Text))
	return "link", nil
}

// TestWorkerPostsScrubbedFailure: a job whose benchmarker fails on its
// last attempt with an error naming the perfbot binary and a worktree is
// answered without those paths.
func TestWorkerPostsScrubbedFailure(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	wt := filepath.Join(cache, "repos", "0123", "wt", "base")
	cfg := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	cfg.Service.MaxAttempts = 1
	poster := &textPoster{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc, err := Open(ctx, cfg, ModeServe, Deps{Poster: poster, Scrub: NewScrubber(HostPaths(cache)...),
		Benchmarker: BenchmarkerFunc(func(ctx context.Context, job JobSpec, _ job.ProgressFunc) (*compare.Comparison, error) {
			return nil, &os.PathError{Op: "exec " + exe + " compare", Path: wt + "/go.mod", Err: os.ErrPermission}
		})})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	if _, _, err := svc.Enqueue(ctx, JobSpec{Key: "scrub", Targets: []target.Target{target.MustParse("github:acme/store#12")}}); err != nil {
		t.Fatal(err)
	}
	// The live answers come first; the failure notice is the final one.
	servicetest.WaitAnswered(t, svc.Store(), "scrub")
	cancel()
	<-done
	post := poster.posts[len(poster.posts)-1]
	if strings.Contains(post, exe) || strings.Contains(post, cache) || !strings.Contains(post, "<worktree>/go.mod") {
		t.Errorf("failure notice shows host paths or lacks the neutral names:\n%s", post)
	}
}
