package service

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

// TestAnswerKeepsThreadSubject: a job from a mail thread is answered under
// the thread's subject (the poster adds "Re: "), in its thread, even when
// the run failed: the failure is in the body, not the subject.
func TestAnswerKeepsThreadSubject(t *testing.T) {
	cfg := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	var mu sync.Mutex
	var got []answer.Answer
	poster := PosterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, msg)
		return "<x@perfbot>", nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc, err := Open(ctx, cfg, ModeServe, Deps{Poster: poster, Benchmarker: BenchmarkerFunc(func(ctx context.Context, job JobSpec, _ job.ProgressFunc) (*compare.Comparison, error) {
		return &compare.Comparison{Failures: []provenance.Failure{{Variant: "patch", Stage: "setup", Message: "git am failed"}}}, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	subject := "[sums-dev] [PATCH net-next v2 0/3] Faster sums"
	if _, _, err := svc.Enqueue(ctx, JobSpec{Key: "mail:cover-v2@example.org/v2", Targets: []target.Target{target.MustParse("mail:sums-dev@lists.example.org?cc=dev%40example.org")},
		Subject: subject, InReplyTo: "cover-v2@example.org", References: []string{"cover-v1@example.org", "cover-v2@example.org"}, Source: "mail", Patch: "x"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 {
			break
		}
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("%d answers, want 1", len(got))
	}
	m := got[0]
	if m.Subject != subject || m.InReplyTo != "cover-v2@example.org" || strings.Join(m.References, " ") != "cover-v1@example.org cover-v2@example.org" || !strings.Contains(m.Full(answer.Text), "git am failed") {
		t.Errorf("answer %+v: want the thread's subject, threading and the failure in the body", m)
	}
}
