package followup_test

import (
	"context"
	"fmt"
	"io"
	"mime/quotedprintable"
	"net/mail"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/service"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/fake/smtpfake"
	"github.com/perfbot/perfbot/internal/pgtest"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/track"
	perfmail "github.com/perfbot/perfbot/venue/mail"
	"github.com/perfbot/perfbot/venue/retry"
)

// TestVerdictFollowUpMail: a mailed patch answered "Append -95%" lands on
// the tracked branch as a commit of its own (matched by patch-id); the
// tracked run of that commit shows -94%, and the list gets one short
// reply in the thread of perfbot's answer, through SMTP. A restart and
// more commits send nothing more. On SQLite and PostgreSQL.
func TestVerdictFollowUpMail(t *testing.T) {
	for _, driver := range []string{store.SQLite, store.Postgres} {
		t.Run(driver, func(t *testing.T) { testVerdictFollowUpMail(t, driver) })
	}
}

func testVerdictFollowUpMail(t *testing.T, driver string) {
	r := newLevelRepo(t)
	commit := func(msg string, files map[string]string) string { return r.commit(msg, files, 1) }
	first := commit("commit 0", map[string]string{"n": "0"})

	sink := &smtpfake.Sink{}
	sink.Start(t)
	defer sink.Stop()
	sender, err := perfmail.NewSender(perfmail.SMTPConfig{Addr: sink.Addr, From: "perfbot <perfbot@example.org>",
		StartTLS: perfmail.StartTLSOff, Timeout: 5 * time.Second, Retry: retry.Policy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	poster := service.PosterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
		if to.Venue != "mail" {
			return "", fmt.Errorf("unexpected target %s", to)
		}
		return sender.Post(ctx, to, msg)
	})
	bencher := service.BenchmarkerFunc(func(ctx context.Context, spec jobspec.Spec, _ job.ProgressFunc) (*compare.Comparison, error) {
		if spec.Track == "" { // the patch's claim
			b := map[string]float64{"Append": 100, "Read": 100, "Scan": 100}
			return levelsComparison("base", "patch", b, map[string]float64{"Append": 5, "Read": 100, "Scan": 100}), nil
		}
		return r.comparison(spec.BaseRef, spec.CandidateRef), nil
	})
	dsn := filepath.Join(t.TempDir(), "perfbot.db")
	if driver == store.Postgres {
		dsn = pgtest.Start(t).NewDB(t)
	}
	cfg := servicetest.Config("serve", driver, dsn, true)
	cfg.Project.Repo = r.Dir
	cfg.Track.Branches = []config.TrackedBranch{{Branch: "main", From: first}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	start := func() (*service.Service, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		svc, err := service.Open(ctx, cfg, service.ModeServe, service.Deps{Poster: poster, Benchmarker: bencher})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- svc.Run(ctx) }()
		return svc, func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
			svc.Close()
		}
	}
	ctx := context.Background()
	name := track.Name(r.Dir, "main")
	waitMails := func(n int) []string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			got := sink.Received()
			if len(got) > n {
				t.Fatalf("%d mails, want %d: %q", len(got), n, got)
			}
			if len(got) == n {
				return got
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d mails after 30s, want %d: %q", len(got), n, got)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// The patch, as mailed, is the diff of the commit that lands later
	// (applied by git am: another commit id, the same patch-id).
	landing := commit("append: grow in place", map[string]string{"append.go": "package store // faster\n"})
	patch := r.Git("diff", first, landing)
	r.Git("reset", "--hard", first)

	svc, stop := start()
	key := "mail:<patch-1@example.org>"
	spec := jobspec.Spec{Key: key, Targets: []target.Target{target.MustParse("mail:dev@example.org")}, Title: "append", Source: "mail",
		Patch: patch, Subject: "[PATCH] append: grow in place", InReplyTo: "patch-1@example.org"}
	if _, _, err := svc.Enqueue(ctx, spec); err != nil {
		t.Fatal(err)
	}
	servicetest.WaitAnswered(t, svc.Store(), key)
	answerMail := parseMail(t, waitMails(1)[0])
	answerID := answerMail.Header.Get("Message-Id")

	r.cur["Append"] = 5.9 // the patch's -95% shows as -94%
	landed := commit("append: grow in place\n\nApplied from the list.", map[string]string{"append.go": "package store // faster\n"})
	measureTracked(t, svc, name, landed)
	reply := parseMail(t, waitMails(2)[1])
	body := mailBody(t, reply)
	if !regexp.MustCompile(fmt.Sprintf(`- Append \(ns/op\): confirmed on main at %.7s: -94\.[0-9]%%`, landed)).MatchString(body) {
		t.Errorf("follow-up reply body %q", body)
	}
	if got := reply.Header.Get("Subject"); got != "Re: [PATCH] append: grow in place" {
		t.Errorf("follow-up subject %q", got)
	}
	if got := reply.Header.Get("In-Reply-To"); got != answerID || answerID == "" {
		t.Errorf("follow-up In-Reply-To %q, want perfbot's answer %q", got, answerID)
	}
	if got := reply.Header.Get("References"); got != "<patch-1@example.org> "+answerID {
		t.Errorf("follow-up References %q", got)
	}
	if ct := reply.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("follow-up Content-Type %q, want plain text", ct)
	}
	if reply.Header.Get("Message-Id") == answerID {
		t.Error("follow-up reuses the answer's Message-ID")
	}
	fu, err := followUpPut(t, svc.Store(), key)
	if err != nil || fu.Landed != landed || fu.LandedHow != store.LandedPatchID || fu.State != store.FollowUpPosted {
		t.Errorf("follow-up: %+v, %v; want landed at %.7s by patch-id, posted", fu, err, landed)
	}
	servicetest.WaitAnswered(t, svc.Store(), key+"/followup")

	// A restart and more commits send nothing more.
	stop()
	svc, stop = start()
	defer stop()
	for i := 1; i <= 3; i++ {
		measureTracked(t, svc, name, commit(fmt.Sprintf("commit %d", i), map[string]string{"n": fmt.Sprint(i)}))
	}
	time.Sleep(300 * time.Millisecond)
	if got := sink.Received(); len(got) != 2 {
		t.Errorf("after a restart: %d mails, want 2", len(got))
	}
}

func parseMail(t *testing.T, raw string) *mail.Message {
	t.Helper()
	m, err := mail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatalf("%v: %q", err, raw)
	}
	return m
}

// mailBody is a single-part text mail's body, quoted-printable decoded.
func mailBody(t *testing.T, m *mail.Message) string {
	t.Helper()
	var b strings.Builder
	r := quotedprintable.NewReader(m.Body)
	if _, err := io.Copy(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestVerdictFollowUpGitLab: a merge request answered "Append -95%" is
// merged (the Merge Request Hook's merge_commit_sha, RecordGitLabMerge);
// the tracked run of that commit shows -94%, and the answer is edited
// in place with the follow-up: the same key and target delivered again.
func TestVerdictFollowUpGitLab(t *testing.T) {
	r := newLevelRepo(t)
	commit := func(msg string) string { return r.commit(msg, map[string]string{"n": msg}, 1) }
	first := commit("commit 0")
	list := &servicetest.RecordingPoster{}
	bencher := service.BenchmarkerFunc(func(ctx context.Context, spec jobspec.Spec, _ job.ProgressFunc) (*compare.Comparison, error) {
		if spec.Track == "" {
			b := map[string]float64{"Append": 100, "Read": 100, "Scan": 100}
			return levelsComparison("base", "patch", b, map[string]float64{"Append": 5, "Read": 100, "Scan": 100}), nil
		}
		return r.comparison(spec.BaseRef, spec.CandidateRef), nil
	})
	cfg := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	cfg.Project.Repo = r.Dir
	cfg.Track.Branches = []config.TrackedBranch{{Branch: "main", From: first}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	svc, err := service.Open(ctx, cfg, service.ModeServe, service.Deps{Poster: list, Benchmarker: bencher})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	defer func() {
		cancel()
		<-done
		svc.Close()
	}()
	key := "gitlab:acme/db/store!12/note/7"
	const dest = "gitlab:acme/db/store!12"
	if _, _, err := svc.Enqueue(context.Background(), jobspec.Spec{Key: key, Targets: []target.Target{target.MustParse(dest)}, Title: "append", Source: "gitlab"}); err != nil {
		t.Fatal(err)
	}
	servicetest.WaitAnswered(t, svc.Store(), key)
	if err := svc.Tracker().RecordGitLabMerge(context.Background(), "acme/db/store", 12, "HEAD"); err == nil {
		t.Error("a merge at HEAD was recorded")
	}
	r.cur["Append"] = 5.9
	landed := commit("Merge branch 'append' into 'main'")
	if err := svc.Tracker().RecordGitLabMerge(context.Background(), "acme/db/store", 12, landed); err != nil {
		t.Fatal(err)
	}
	if err := svc.Tracker().PollTracked(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		fu, err := svc.Store().GetFollowUp(context.Background(), key)
		if err == nil && fu.State == store.FollowUpPosted {
			if fu.Landed != landed || fu.LandedHow != store.LandedMerged {
				t.Errorf("follow-up %+v, want landed at %.7s by merge", fu, landed)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("follow-up not put: %+v, %v", fu, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	servicetest.WaitAnswered(t, svc.Store(), key)
	a, err := svc.Store().GetAnswer(context.Background(), key, dest)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(a.Message), fmt.Sprintf("confirmed on main at %.7s: -94.", landed)) || a.DeliveredVersion != a.Version {
		t.Errorf("answer not edited with the follow-up: version %d, delivered %d: %s", a.Version, a.DeliveredVersion, a.Message)
	}
	n := 0
	for _, p := range list.List() {
		if strings.HasPrefix(p, dest+" "+key+" ") {
			n++
		}
		if strings.Contains(p, "/followup") {
			t.Errorf("a GitLab answer got a reply: %q", p)
		}
	}
	if n < 2 {
		t.Errorf("posts %q: want the answer and its edit", list.List())
	}
}

// TestVerdictFollowUpReviewBoard: a patch answered on a Review Board
// request lands (patch-id); its follow-up is a new review under a key of
// its own, in Review Board's Markdown, and the answer is not posted again.
func TestVerdictFollowUpReviewBoard(t *testing.T) {
	r := newLevelRepo(t)
	commit := func(msg string, files map[string]string) string { return r.commit(msg, files, 1) }
	first := commit("commit 0", map[string]string{"n": "0"})
	var mu sync.Mutex // guards posts
	var posts []answer.Answer
	poster := service.PosterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
		if to.String() != "reviewboard:42" {
			return "", fmt.Errorf("unexpected target %s", to)
		}
		mu.Lock()
		defer mu.Unlock()
		posts = append(posts, msg)
		return fmt.Sprintf("https://rb.example.org/r/42/#review%d", len(posts)), nil
	})
	bencher := service.BenchmarkerFunc(func(ctx context.Context, spec jobspec.Spec, _ job.ProgressFunc) (*compare.Comparison, error) {
		if spec.Track == "" {
			b := map[string]float64{"Append": 100, "Read": 100, "Scan": 100}
			return levelsComparison("base", "patch", b, map[string]float64{"Append": 5, "Read": 100, "Scan": 100}), nil
		}
		return r.comparison(spec.BaseRef, spec.CandidateRef), nil
	})
	cfg := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	cfg.Project.Repo = r.Dir
	cfg.Track.Branches = []config.TrackedBranch{{Branch: "main", From: first}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	landing := commit("append: grow in place", map[string]string{"append.go": "package store // faster\n"})
	patch := r.Git("diff", first, landing)
	r.Git("reset", "--hard", first)

	ctx, cancel := context.WithCancel(context.Background())
	svc, err := service.Open(ctx, cfg, service.ModeServe, service.Deps{Poster: poster, Benchmarker: bencher})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	defer func() {
		cancel()
		<-done
		svc.Close()
	}()
	key := "reviewboard:42/diff/1"
	if _, _, err := svc.Enqueue(context.Background(), jobspec.Spec{Key: key, Targets: []target.Target{target.MustParse("reviewboard:42")}, Title: "append",
		Source: "reviewboard", Patch: patch}); err != nil {
		t.Fatal(err)
	}
	servicetest.WaitAnswered(t, svc.Store(), key)
	r.cur["Append"] = 5.9
	landed := commit("append: grow in place", map[string]string{"append.go": "package store // faster\n"})
	if err := svc.Tracker().PollTracked(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if ok, _ := svc.Store().Answered(context.Background(), key+"/followup"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no follow-up review; posts %d", len(posts))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	var answers, replies int
	for _, p := range posts {
		switch p.Key {
		case key:
			answers++
		case key + "/followup":
			replies++
			want := fmt.Sprintf(`- Append \(ns/op\): confirmed on main at %.7s: -94.`, landed)
			if !strings.Contains(p.Full(answer.MarkdownRB), want) {
				t.Errorf("follow-up review %q, want %q", p.Full(answer.MarkdownRB), want)
			}
		default:
			t.Errorf("post under key %q", p.Key)
		}
	}
	if answers != 1 || replies != 1 {
		t.Errorf("%d answers and %d follow-up reviews, want one of each", answers, replies)
	}
}
