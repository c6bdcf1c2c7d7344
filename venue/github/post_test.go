package github

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	gh "github.com/google/go-github/v60/github"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/fake/githubfake"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"
)

const testToken = "ghp_TESTtoken0123456789abcdefABCDEF"

// fakeHead is the fake pull request's head commit, which message measured.
const fakeHead = githubfake.Head

type waits struct{ d []time.Duration }

func (w *waits) policy() retry.Policy {
	return retry.Policy{Attempts: 8, Sleep: func(ctx context.Context, d time.Duration) error {
		w.d = append(w.d, d)
		return ctx.Err()
	}}
}

func newPoster(t *testing.T, f *githubfake.Server, w *waits, token string) *Client {
	t.Helper()
	p, err := New(Config{BaseURL: f.URL(), Token: token, Retry: w.policy()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func message(key, summary string) answer.Answer {
	return answer.Answer{
		Key: key, Subject: "wal: 2 better", Summary: summary, State: answer.StateFailure, Commit: fakeHead,
		Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {
			Full:  "**2 better, 1 worse, 14 same**\n\n| Threads | Default | Async | Diff |\n|---|---|---|---|\n| 10 | 1.0 | 3.7 | 3.7x |\n",
			Short: "**2 better, 1 worse, 14 same**\n"}},
	}
}

func TestPostCreatesThenEdits(t *testing.T) {
	f := githubfake.New(t, testToken)
	f.Comments = []githubfake.Comment{{ID: 1, Body: "LGTM", User: "alice"}}
	var w waits
	p := newPoster(t, f, &w, testToken)
	ctx := context.Background()

	link, err := p.Post(ctx, target.MustParse("github:acme/store#7"), message("job-1", "2 better, 1 worse"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(link, "/acme/store/pull/7#issuecomment-") {
		t.Errorf("link = %q", link)
	}
	msg2 := message("job-1", strings.Repeat("very long summary ", 20))
	msg2.Set(answer.MarkdownGFM, answer.Rendering{Full: "**rerun**\n"})
	link2, err := p.Post(ctx, target.MustParse("github:acme/store#7"), msg2)
	if err != nil {
		t.Fatal(err)
	}
	if link2 != link {
		t.Errorf("rerun link %q, want the first %q", link2, link)
	}
	if len(f.Comments) != 2 {
		t.Fatalf("%d comments after a rerun, want 2 (one foreign, one perfbot)", len(f.Comments))
	}
	if got := f.Comments[1].Body; got != "<!-- perfbot:job-1 -->\n**rerun**\n" {
		t.Errorf("edited body = %q", got)
	}
	if len(f.Statuses) != 2 {
		t.Fatalf("statuses = %v", f.Statuses)
	}
	st := f.Statuses[1]
	if st["context"] != "perfbot" || st["state"] != "failure" || st["sha"] != "6dcb09b5b57875f334f61aebed695e2e4193db5e" || st["target_url"] != link {
		t.Errorf("status = %v", st)
	}
	if d := st["description"].(string); len([]rune(d)) != StatusDescriptionLimit || !strings.HasSuffix(d, "…") {
		t.Errorf("description %q not cut to %d", d, StatusDescriptionLimit)
	}
	// A retry of the same answer changes nothing.
	before := len(f.Requests)
	if _, err := p.Post(ctx, target.MustParse("github:acme/store#7"), msg2); err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Requests[before:] {
		if strings.HasPrefix(r, "PATCH") || strings.HasPrefix(r, "POST /api/v3/repos/acme/store/issues") {
			t.Errorf("identical retry wrote: %s", r)
		}
	}
}

func TestPostFindsCommentOnLaterPage(t *testing.T) {
	f := githubfake.New(t, testToken)
	for i := range 250 {
		f.Comments = append(f.Comments, githubfake.Comment{ID: int64(i + 1), Issue: 7, Body: "comment", User: "bob"})
	}
	f.Comments[230].Body = "<!-- perfbot:job-9 -->\nold"
	f.Comments[230].User = "perfbot-ci"
	// Someone quoting the marker is not perfbot.
	f.Comments[10].Body = "<!-- perfbot:job-9 -->\nfake"
	p, err := New(Config{BaseURL: f.URL(), Token: testToken, Login: "perfbot-ci"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), message("job-9", "s")); err != nil {
		t.Fatal(err)
	}
	if len(f.Comments) != 250 || !strings.Contains(f.Comments[230].Body, "Threads") || f.Comments[10].Body != "<!-- perfbot:job-9 -->\nfake" {
		t.Errorf("wrong comment edited")
	}
}

func TestPostRidesOutStorm(t *testing.T) {
	f := githubfake.New(t, testToken)
	f.Fail = []func(http.ResponseWriter){githubfake.Status502, githubfake.Status429, githubfake.PrimaryLimit, githubfake.SecondaryLimit, githubfake.Status502, githubfake.Status502}
	var w waits
	p := newPoster(t, f, &w, testToken)
	if _, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), message("job-2", "ok")); err != nil {
		t.Fatal(err)
	}
	if len(f.Comments) != 1 || len(f.Statuses) != 1 {
		t.Fatalf("comments %d statuses %d", len(f.Comments), len(f.Statuses))
	}
	var saw2, saw60 bool
	for _, d := range w.d {
		saw2 = saw2 || d == 2*time.Second
		saw60 = saw60 || d == time.Minute
	}
	if !saw2 || !saw60 {
		t.Errorf("waits %v: want the 429's Retry-After 2s and a minute for the secondary limit", w.d)
	}
}

func TestPostFailsFast(t *testing.T) {
	tests := []struct {
		name  string
		token string
		fail  func(http.ResponseWriter)
		want  string
	}{
		{"401 bad credentials", "ghp_wrongTOKENwrongTOKENwrong", nil, "401 Bad credentials"},
		{"404", testToken, githubfake.NotFound, "404 Not Found"},
		{"403 integration token without login", testToken, githubfake.Forbidden, "set venues.github.login"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := githubfake.New(t, testToken)
			f.EchoAuth = true
			if tc.fail != nil {
				f.Fail = []func(http.ResponseWriter){tc.fail}
			}
			var w waits
			p := newPoster(t, f, &w, tc.token)
			_, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), message("job-3", "s"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if len(f.Requests) != 1 || len(w.d) != 0 {
				t.Errorf("requests %v waits %v: want one request, no retry", f.Requests, w.d)
			}
			if strings.Contains(err.Error(), tc.token) || strings.Contains(err.Error(), testToken) {
				t.Errorf("token in error: %v", err)
			}
		})
	}
}

func TestPostGivesUp(t *testing.T) {
	f := githubfake.New(t, testToken)
	for range 20 {
		f.Fail = append(f.Fail, githubfake.Status502)
	}
	var w waits
	p := newPoster(t, f, &w, testToken)
	_, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), message("job-4", "s"))
	var er *gh.ErrorResponse
	if err == nil || !strings.Contains(err.Error(), "gave up after 8 attempts") || !errors.As(err, &er) {
		t.Fatalf("err = %v", err)
	}
}

func TestPostAsApp(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	f := githubfake.New(t, "")
	f.AppKey = &key.PublicKey
	f.AppToken = "ghs_INSTALLATIONtoken0123456789"
	f.Login = "perfbot[bot]" // the App's bot user writes its comments
	var w waits
	p, err := New(Config{BaseURL: f.URL(), App: &App{ID: "12345", InstallationID: 99, PrivateKey: pemKey}, Retry: w.policy()})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), message("job-5", "s")); err != nil {
			t.Fatal(err)
		}
	}
	if f.Tokens != 1 || len(f.Comments) != 1 {
		t.Errorf("minted %d tokens, %d comments; want 1 and 1", f.Tokens, len(f.Comments))
	}

	// A wrong installation is a permanent failure without the token.
	p2, _ := New(Config{BaseURL: f.URL(), App: &App{ID: "12345", InstallationID: 98, PrivateKey: pemKey}, Retry: w.policy()})
	if _, err := p2.Post(context.Background(), target.MustParse("github:acme/store#7"), message("job-5", "s")); err == nil || !strings.Contains(err.Error(), "installation 98") {
		t.Errorf("err = %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{{}, {Token: "x", App: &App{}}, {App: &App{ID: "1", InstallationID: 2, PrivateKey: []byte("nope")}}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
	p, err := New(Config{Token: "x"})
	if err != nil {
		t.Fatal(err)
	}
	// A short form never filled in from config, or another venue's target.
	for _, to := range []target.Target{target.PR("", 1), target.Issue("STORE-1"), {}} {
		if _, err := p.Post(context.Background(), to, message("k", "s")); err == nil || !strings.Contains(err.Error(), "want OWNER/REPO#N") {
			t.Errorf("Post(%+v) = %v", to, err)
		}
	}
}

func TestClassifyRateLimits(t *testing.T) {
	three := 3 * time.Second
	reset := time.Now().Add(30 * time.Second)
	resp := &http.Response{StatusCode: 403, Request: &http.Request{Method: "GET", URL: &url.URL{Path: "/x"}}}
	tests := []struct {
		name     string
		err      error
		wantWait time.Duration // 0: permanent
	}{
		{"primary waits until reset", &gh.RateLimitError{Rate: gh.Rate{Reset: gh.Timestamp{Time: reset}}, Response: resp}, 31 * time.Second},
		{"secondary honours Retry-After", &gh.AbuseRateLimitError{RetryAfter: &three, Response: resp}, three},
		{"plain 403 is permanent", &gh.ErrorResponse{Response: resp}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []time.Duration
			p := retry.Policy{Attempts: 2, Sleep: func(_ context.Context, d time.Duration) error { got = append(got, d); return nil }}
			_ = p.Do(context.Background(), "x", func(context.Context) error { return classify(tc.err) })
			if tc.wantWait == 0 {
				if len(got) != 0 {
					t.Errorf("waited %v for a permanent error", got)
				}
				return
			}
			if len(got) != 1 || got[0] < tc.wantWait-2*time.Second || got[0] > tc.wantWait {
				t.Errorf("waits %v, want about %v", got, tc.wantWait)
			}
		})
	}
}

func TestSignJWTClaims(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	for iss, want := range map[string]string{"12345": `"iss":12345`, "Iv1.abc": `"iss":"Iv1.abc"`} {
		tok, err := signJWT(key, iss, now)
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(tok, ".")
		claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
		if got := string(claims); got != `{"iat":1799999940,"exp":1800000540,`+want+`}` {
			t.Errorf("claims %s", got)
		}
	}
}

// TestPostCheckRun: with Checks, the outcome is a check run on the head
// commit carrying the report; a pending answer is in progress, the final
// one completes the same run (queued -> in_progress -> completed; a
// cancelled request completes it as cancelled), and GitHub's refusal of a plain token is a
// clear error.
func TestPostCheckRun(t *testing.T) {
	f := githubfake.New(t, testToken)
	var w waits
	p, err := New(Config{BaseURL: f.URL(), Token: testToken, Checks: true, StatusContext: "perfbot/wal", Retry: w.policy()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	queued := message("job-9", "queued: position 1")
	queued.State = answer.StateQueued
	if _, err := p.Post(ctx, target.MustParse("github:acme/store#7"), queued); err != nil {
		t.Fatal(err)
	}
	if len(f.CheckRuns) != 1 || f.CheckRuns[0]["status"] != "queued" || f.CheckRuns[0]["conclusion"] != nil {
		t.Fatalf("queued: check runs %v, want one queued", f.CheckRuns)
	}
	pending := message("job-9", "benchmarking 2 suites")
	pending.State = answer.StatePending
	if _, err := p.Post(ctx, target.MustParse("github:acme/store#7"), pending); err != nil {
		t.Fatal(err)
	}
	if len(f.CheckRuns) != 1 || f.CheckRuns[0]["status"] != "in_progress" || f.CheckRuns[0]["conclusion"] != nil {
		t.Fatalf("pending: check runs %v, want one in progress", f.CheckRuns)
	}
	link, err := p.Post(ctx, target.MustParse("github:acme/store#7"), message("job-9", "2 better, 1 worse"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.CheckRuns) != 1 || len(f.Statuses) != 0 {
		t.Fatalf("%d check runs and %d statuses, want the one run updated and no status", len(f.CheckRuns), len(f.Statuses))
	}
	c := f.CheckRuns[0]
	out, _ := c["output"].(map[string]any)
	if c["name"] != "perfbot/wal" || c["head_sha"] != "6dcb09b5b57875f334f61aebed695e2e4193db5e" ||
		c["status"] != "completed" || c["conclusion"] != "failure" || c["details_url"] != link ||
		out["title"] != "2 better, 1 worse" || !strings.Contains(out["summary"].(string), "| 10 | 1.0 | 3.7 | 3.7x |") {
		t.Errorf("check run = %v", c)
	}
	// A report too long for the output falls back to the short form.
	long := message("job-9", "s")
	long.Set(answer.MarkdownGFM, answer.Rendering{Full: strings.Repeat("x", CheckOutputLimit+1), Short: long.Short(answer.MarkdownGFM)})
	long.State = answer.StateError
	if _, err := p.Post(ctx, target.MustParse("github:acme/store#7"), long); err != nil {
		t.Fatal(err)
	}
	if out := f.CheckRuns[0]["output"].(map[string]any); out["summary"] != long.Short(answer.MarkdownGFM) || f.CheckRuns[0]["conclusion"] != "neutral" {
		t.Errorf("long report: output %v, conclusion %v", out, f.CheckRuns[0]["conclusion"])
	}

	cancelled := message("job-9", "cancelled by alice")
	cancelled.State = answer.StateCancelled
	if _, err := p.Post(ctx, target.MustParse("github:acme/store#7"), cancelled); err != nil {
		t.Fatal(err)
	}
	if len(f.CheckRuns) != 1 || f.CheckRuns[0]["status"] != "completed" || f.CheckRuns[0]["conclusion"] != "cancelled" {
		t.Errorf("cancelled: check runs %v", f.CheckRuns)
	}

	f.ChecksDenied = true
	_, err = p.Post(ctx, target.MustParse("github:acme/store#7"), message("job-9", "s"))
	if err == nil || !strings.Contains(err.Error(), "GitHub App") || strings.Contains(err.Error(), testToken) {
		t.Errorf("token refused: err = %v, want GitHub's message without the token", err)
	}
}

func TestCheckSummary(t *testing.T) {
	huge := strings.Repeat("é", CheckOutputLimit+10)
	for _, tt := range []struct {
		msg  answer.Answer
		want int // runes
	}{
		{answer.Answer{Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: "full", Short: "short"}}}, 4},
		{answer.Answer{Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: huge, Short: "short"}}}, 5},
		{answer.Answer{Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: huge, Short: huge}}}, CheckOutputLimit},
		{answer.Answer{Summary: "only a summary"}, 14},
	} {
		if got := utf8.RuneCountInString(checkSummary(tt.msg)); got != tt.want {
			t.Errorf("checkSummary: %d characters, want %d", got, tt.want)
		}
	}
}

// TestCommitStatusLiveStates: without check runs, a queued or running
// answer is a pending commit status and a cancelled one an error, the only
// states GitHub's statuses know.
func TestCommitStatusLiveStates(t *testing.T) {
	f := githubfake.New(t, testToken)
	var w waits
	p, err := New(Config{BaseURL: f.URL(), Token: testToken, Retry: w.policy()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		state answer.State
		want  string
	}{{answer.StateQueued, "pending"}, {answer.StatePending, "pending"}, {answer.StateCancelled, "error"}} {
		msg := message("job-3", string(c.state))
		msg.State = c.state
		if _, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), msg); err != nil {
			t.Fatalf("%s: %v", c.state, err)
		}
		if got := f.Statuses[len(f.Statuses)-1]["state"]; got != c.want {
			t.Errorf("%s: status state %v, want %s", c.state, got, c.want)
		}
	}
	if len(f.Comments) != 1 {
		t.Errorf("%d comments, want the one answer edited", len(f.Comments))
	}
}

func TestCommentBodyPicksRendering(t *testing.T) {
	long := strings.Repeat("| a | b |\n", 7000) // 70,000 characters
	tests := []struct {
		name, md, short, want string
	}{
		{"full fits", "full\n", "short\n", "full\n"},
		{"short when full is too long", long, "short\n", "short\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CommentBody(answer.Answer{Key: "k", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: tc.md, Short: tc.short}}})
			if got != "<!-- perfbot:k -->\n"+tc.want {
				t.Errorf("got %.80q", got)
			}
		})
	}
}

func TestCutKeepsEndAndBalances(t *testing.T) {
	var b strings.Builder
	b.WriteString("**3 better, 1 worse** summary\n\n<details><summary>all rows</summary>\n\n```\n")
	for i := range 9000 {
		b.WriteString("BenchmarkX/row-")
		b.WriteString(strings.Repeat("é", i%5))
		b.WriteString(" 1.0 2.0\n")
	}
	b.WriteString("```\n\n</details>\n\nprovenance: abc123..def456\n")
	body := CommentBody(answer.Answer{Key: "big", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: b.String(), Short: b.String()}}})
	if n := utf8.RuneCountInString(body); n > CommentLimit {
		t.Fatalf("body has %d characters", n)
	}
	if !strings.HasPrefix(body, "<!-- perfbot:big -->\n**3 better, 1 worse** summary\n") {
		t.Errorf("summary lost: %.100q", body)
	}
	if !strings.HasSuffix(body, "provenance: abc123..def456\n") {
		t.Errorf("end lost: %q", body[len(body)-100:])
	}
	if strings.Count(body, "```")%2 != 0 || strings.Count(body, "<details>") != strings.Count(body, "</details>") {
		t.Errorf("unbalanced fences or details")
	}
	if !strings.Contains(body, "lines left out") {
		t.Error("no note of the cut")
	}
}

func TestCutClosesOpenFence(t *testing.T) {
	text := "summary\n" + strings.Repeat("x\n", 100) + "```go\ncode\n"
	got := Cut(text, 120)
	if utf8.RuneCountInString(got) > 120 || !strings.HasSuffix(got, "code\n```\n") {
		t.Errorf("got %q", got)
	}
}

func TestMarkerCannotCloseEarly(t *testing.T) {
	if m := Marker("a-->b--c"); strings.Count(m, "-->") != 1 {
		t.Errorf("marker %q", m)
	}
}

func BenchmarkCommentBodyCut(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("**3 better, 1 worse** summary\n\n<details><summary>all rows</summary>\n\n```\n")
	for range 20000 {
		sb.WriteString("BenchmarkWAL/threads=10/size=4096-8     1.00 ±  2%   3.70 ±  1%   3.7x\n")
	}
	sb.WriteString("```\n\n</details>\n")
	m := answer.Answer{Key: "k", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: sb.String(), Short: sb.String()}}}
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		CommentBody(m)
	}
}
