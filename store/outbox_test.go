package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestOutbox(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		key, target := "github:acme/store#12/comment/7", "github:acme/store#12"
		if ok, err := s.PutAnswer(ctx, key, target, "queued", false, []byte(`{"Key":"q"}`), t0, t0); err != nil || !ok {
			t.Fatalf("put queued: %v, %v", ok, err)
		}
		// Not due before its time; claimed once.
		if got, err := s.ClaimAnswers(ctx, "a", t0.Add(-time.Second), time.Minute, 10); err != nil || len(got) != 0 {
			t.Fatalf("claim before due = %d, %v", len(got), err)
		}
		got, err := s.ClaimAnswers(ctx, "a", t0, time.Minute, 10)
		if err != nil || len(got) != 1 || got[0].Version != 1 || string(got[0].Message) != `{"Key":"q"}` {
			t.Fatalf("claim = %+v, %v", got, err)
		}
		if again, _ := s.ClaimAnswers(ctx, "b", t0, time.Minute, 10); len(again) != 0 {
			t.Fatalf("a claimed answer was claimed again by another process: %+v", again)
		}
		// Running arrives while the queued one is being delivered.
		if ok, err := s.PutAnswer(ctx, key, target, "running", false, []byte(`{"Key":"r"}`), t0.Add(time.Second), time.Time{}); err != nil || !ok {
			t.Fatalf("put running: %v, %v", ok, err)
		}
		if err := s.AnswerDelivered(ctx, key, target, 1, "https://x/1", t0.Add(2*time.Second), t0.Add(32*time.Second)); err != nil {
			t.Fatal(err)
		}
		a, err := s.GetAnswer(ctx, key, target)
		if err != nil || a.Status != OutboxPending || a.Version != 2 || a.DeliveredVersion != 1 || !a.NextAt.Equal(t0.Add(32*time.Second)) {
			t.Fatalf("after delivering v1 with v2 waiting: %+v, %v", a, err)
		}
		// The result is final: due at once, whatever the edit spacing.
		if ok, err := s.PutAnswer(ctx, key, target, "success", true, []byte(`{"Key":"done"}`), t0.Add(3*time.Second), time.Time{}); err != nil || !ok {
			t.Fatalf("put final: %v, %v", ok, err)
		}
		// A late progress report does not replace it.
		if ok, err := s.PutAnswer(ctx, key, target, "running", false, []byte(`{"Key":"late"}`), t0.Add(4*time.Second), time.Time{}); err != nil || ok {
			t.Fatalf("late running replaced the result: %v, %v", ok, err)
		}
		got, err = s.ClaimAnswers(ctx, "b", t0.Add(5*time.Second), time.Minute, 10)
		if err != nil || len(got) != 1 || got[0].State != "success" || !got[0].Final || got[0].Version != 3 {
			t.Fatalf("claim final = %+v, %v", got, err)
		}
		if ok, _ := s.Answered(ctx, key); ok {
			t.Error("answered before the final answer was delivered")
		}
		if err := s.AnswerRetry(ctx, key, target, "502 Bad Gateway", t0.Add(6*time.Second), t0.Add(10*time.Second)); err != nil {
			t.Fatal(err)
		}
		a, _ = s.GetAnswer(ctx, key, target)
		if a.Attempts != 1 || a.LastError != "502 Bad Gateway" || a.Status != OutboxPending {
			t.Fatalf("after a failed attempt: %+v", a)
		}
		if got, _ := s.ClaimAnswers(ctx, "b", t0.Add(9*time.Second), time.Minute, 10); len(got) != 0 {
			t.Fatal("claimed before the backoff ended")
		}
		got, _ = s.ClaimAnswers(ctx, "b", t0.Add(10*time.Second), time.Minute, 10)
		if len(got) != 1 {
			t.Fatal("not claimed after the backoff")
		}
		if err := s.AnswerDelivered(ctx, key, target, 3, "https://x/1", t0.Add(11*time.Second), t0.Add(41*time.Second)); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.Answered(ctx, key); err != nil || !ok {
			t.Errorf("answered = %v, %v after the final answer was delivered", ok, err)
		}
		// The same final answer again (a retried job) is not delivered again.
		if ok, err := s.PutAnswer(ctx, key, target, "success", true, []byte(`{"Key":"done"}`), t0.Add(12*time.Second), time.Time{}); err != nil || ok {
			t.Fatalf("the delivered answer put again: %v, %v", ok, err)
		}
		if a, _ := s.GetAnswer(ctx, key, target); a.Status != OutboxDelivered || a.Version != 3 {
			t.Fatalf("after putting the delivered answer again: %+v", a)
		}
		// Failed answers are listed, and rearmed once on request.
		if _, err := s.PutAnswer(ctx, "k2", "jira:STORE-1", "success", true, []byte(`{}`), t0, time.Time{}); err != nil {
			t.Fatal(err)
		}
		got, _ = s.ClaimAnswers(ctx, "a", t0.Add(time.Minute), time.Minute, 10)
		if len(got) != 1 || got[0].Key != "k2" {
			t.Fatalf("claim k2 = %+v", got)
		}
		if err := s.AnswerFailed(ctx, "k2", "jira:STORE-1", 1, "404 Not Found", t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		failed, err := s.Answers(ctx, OutboxFailed)
		if err != nil || len(failed) != 1 || failed[0].LastError != "404 Not Found" {
			t.Fatalf("failed answers = %+v, %v", failed, err)
		}
		if n, err := s.RearmAnswers(ctx, t0.Add(-time.Hour), t0.Add(2*time.Minute)); err != nil || n != 1 {
			t.Fatalf("rearm = %d, %v", n, err)
		}
		if n, _ := s.RearmAnswers(ctx, t0.Add(-time.Hour), t0.Add(2*time.Minute)); n != 0 {
			t.Fatalf("rearmed a pending answer")
		}
		// The same answer while it waits is not put again; once given
		// up, it is.
		if ok, err := s.PutAnswer(ctx, "k2", "jira:STORE-1", "success", true, []byte(`{}`), t0.Add(3*time.Minute), time.Time{}); err != nil || ok {
			t.Fatalf("the waiting answer put again: %v, %v", ok, err)
		}
		if err := s.AnswerFailed(ctx, "k2", "jira:STORE-1", 1, "404 Not Found", t0.Add(3*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.PutAnswer(ctx, "k2", "jira:STORE-1", "success", true, []byte(`{}`), t0.Add(4*time.Minute), time.Time{}); err != nil || !ok {
			t.Fatalf("the given-up answer put again: %v, %v", ok, err)
		}
		if _, err := s.GetAnswer(ctx, "nope", "github:a/b#1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing answer: %v", err)
		}
		// A new job under an answered key replaces the final answer.
		if ok, err := s.PutAnswer(ctx, key, target, "queued", false, []byte(`{}`), t0.Add(time.Hour), t0.Add(time.Hour)); err != nil || !ok {
			t.Fatalf("replace final: %v, %v", ok, err)
		}
		// but not the answer its worker wrote since.
		if ok, err := s.PutAnswer(ctx, key, target, "running", false, []byte(`{}`), t0.Add(time.Hour+time.Second), time.Time{}); err != nil || !ok {
			t.Fatalf("running after queued: %v, %v", ok, err)
		}
		if ok, err := s.PutAnswer(ctx, key, target, "queued", false, []byte(`{}`), t0.Add(time.Hour+2*time.Second), t0.Add(time.Hour)); err != nil || ok {
			t.Fatalf("a late queued answer replaced the running one: %v, %v", ok, err)
		}
		if n, err := s.PruneAnswers(ctx, t0.Add(2*time.Hour)); err != nil || n != 0 {
			t.Errorf("pruned %d pending answers, %v", n, err)
		}
	})
}
