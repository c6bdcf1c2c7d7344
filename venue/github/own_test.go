package github

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/fake/githubfake"
	"github.com/perfbot/perfbot/target"
)

// TestPostIgnoresPlantedMarker: the pull request's author edits an old
// comment of theirs to start with the marker of a maintainer's request.
// With no login configured perfbot still knows its own account (GET
// /user): it creates its own comment and edits only that one, and the
// attacker's comment is left as they wrote it.
func TestPostIgnoresPlantedMarker(t *testing.T) {
	f := githubfake.New(t, testToken)
	planted := Marker("job-7") + "\nperfbot: running"
	f.Comments = []githubfake.Comment{{ID: 1, Body: planted, User: "mallory"}}
	var w waits
	p := newPoster(t, f, &w, testToken)
	ctx := context.Background()
	running := message("job-7", "running")
	running.State, running.Commit = answer.StatePending, ""
	if _, err := p.Post(ctx, target.MustParse("github:acme/store#7"), running); err != nil {
		t.Fatal(err)
	}
	link, err := p.Post(ctx, target.MustParse("github:acme/store#7"), message("job-7", "2 better, 1 worse"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Comments) != 2 || f.Comments[0].Body != planted {
		t.Fatalf("comments %+v: want the planted one untouched and perfbot's own", f.Comments)
	}
	if c := f.Comments[1]; c.User != "perfbot-ci" || !strings.Contains(c.Body, "| 10 | 1.0 | 3.7 | 3.7x |") || !strings.HasSuffix(link, "-1001") {
		t.Errorf("perfbot's comment %+v (link %s): want the result in its own comment", c, link)
	}
	if n := len(f.Statuses); n != 2 || f.Statuses[1]["target_url"] != link {
		t.Errorf("statuses %v: want the result's linking perfbot's own comment", f.Statuses)
	}
}

// TestPostRefusesWrongLogin: a configured login that is not the token's
// account is refused before anything is written, naming both.
func TestPostRefusesWrongLogin(t *testing.T) {
	f := githubfake.New(t, testToken)
	f.Comments = []githubfake.Comment{{ID: 1, Body: Marker("job-8") + "\nold", User: "mallory"}}
	var w waits
	p, err := New(Config{BaseURL: f.URL(), Token: testToken, Login: "mallory", Retry: w.policy()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Post(context.Background(), target.MustParse("github:acme/store#7"), message("job-8", "s"))
	if err == nil || !strings.Contains(err.Error(), `venues.github.login is "mallory"`) || !strings.Contains(err.Error(), "perfbot-ci") {
		t.Fatalf("err = %v, want the mismatch named", err)
	}
	if len(f.Comments) != 1 || f.Comments[0].Body != Marker("job-8")+"\nold" || len(f.Statuses) != 0 || len(w.d) != 0 {
		t.Errorf("comments %+v, statuses %v, waits %v: want nothing written, no retry", f.Comments, f.Statuses, w.d)
	}
	if _, err := p.Check(context.Background(), "acme/store"); err == nil || !strings.Contains(err.Error(), "venues.github.login") {
		t.Errorf("Check: err = %v, want the mismatch", err)
	}
	good, _ := New(Config{BaseURL: f.URL(), Token: testToken, Login: "Perfbot-CI"})
	if who, err := good.Self(context.Background()); err != nil || who != "perfbot-ci" {
		t.Errorf("Self = %q, %v; want perfbot-ci (logins compare without case)", who, err)
	}
}

// TestPostAsAppKnowsItsBot: as a GitHub App, perfbot is the bot user
// "<slug>[bot]" (GET /app); a comment by anyone else is not its own.
func TestPostAsAppKnowsItsBot(t *testing.T) {
	p, f := newAppPoster(t)
	f.Login = "perfbot[bot]"
	f.Comments = []githubfake.Comment{{ID: 1, Body: Marker("job-6") + "\nplanted", User: "perfbot-ci"}}
	if _, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), message("job-6", "s")); err != nil {
		t.Fatal(err)
	}
	if len(f.Comments) != 2 || f.Comments[0].Body != Marker("job-6")+"\nplanted" || f.Comments[1].User != "perfbot[bot]" {
		t.Errorf("comments %+v", f.Comments)
	}
	who, err := p.Check(context.Background(), "")
	if err != nil || !strings.Contains(who, "installation 99: token minted; posts as perfbot[bot]") {
		t.Errorf("Check = %q, %v", who, err)
	}
}

// TestStatusOnMeasuredCommit: a run measured S; the author pushed C while
// it ran. The status and the check run go on S, never on C, and the
// comment says the head moved.
func TestStatusOnMeasuredCommit(t *testing.T) {
	const pushed = "c0ffee0000000000000000000000000000000000"
	for _, checks := range []bool{false, true} {
		f := githubfake.New(t, testToken)
		f.Heads[7] = pushed
		var w waits
		p, err := New(Config{BaseURL: f.URL(), Token: testToken, Checks: checks, Retry: w.policy()})
		if err != nil {
			t.Fatal(err)
		}
		msg := message("job-5", "2 better")
		msg.State = answer.StateSuccess
		if _, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), msg); err != nil {
			t.Fatal(err)
		}
		var on []any
		for _, s := range f.Statuses {
			on = append(on, s["sha"])
		}
		for _, c := range f.CheckRuns {
			on = append(on, c["head_sha"])
		}
		if len(on) != 1 || on[0] != fakeHead {
			t.Errorf("checks %v: status on %v, want only the measured %s", checks, on, fakeHead)
		}
		want := "measured 6dcb09b; the pull request's head is now c0ffee0: a new run needs a new `/perfbot run`"
		if body := f.Comments[0].Body; !strings.Contains(body, want) || !strings.HasPrefix(body, Marker("job-5")+"\n**2 better, 1 worse, 14 same**\n") {
			t.Errorf("comment lacks the moved head after its headline:\n%s", body)
		}
	}
	// A verdict that names no measured commit sets no status at all.
	f := githubfake.New(t, testToken)
	var w waits
	p := newPoster(t, f, &w, testToken)
	msg := message("job-4", "2 better")
	msg.Commit = ""
	if _, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), msg); err != nil {
		t.Fatal(err)
	}
	if len(f.Statuses) != 0 || len(f.Comments) != 1 {
		t.Errorf("statuses %v: want none for a verdict without its commit", f.Statuses)
	}
}

// newAppPoster is a Client signed in as the fake's App (id 12345,
// installation 99).
func newAppPoster(t *testing.T) (*Client, *githubfake.Server) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	f := githubfake.New(t, "")
	f.AppKey = &key.PublicKey
	f.AppToken = "ghs_INSTALLATIONtoken0123456789"
	var w waits
	p, err := New(Config{BaseURL: f.URL(), App: &App{ID: "12345", InstallationID: 99, PrivateKey: pemKey}, Retry: w.policy()})
	if err != nil {
		t.Fatal(err)
	}
	return p, f
}

// TestLiveAnswerSaysWhatItWillMeasure: while queued or running, the answer
// to a request whose head moved says which commit the run measures.
func TestLiveAnswerSaysWhatItWillMeasure(t *testing.T) {
	f := githubfake.New(t, testToken)
	f.Heads[7] = "c0ffee0000000000000000000000000000000000"
	var w waits
	p := newPoster(t, f, &w, testToken)
	msg := message("job-1", "running")
	msg.State = answer.StatePending
	if _, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), msg); err != nil {
		t.Fatal(err)
	}
	if want := "> this run measures 6dcb09b; the pull request's head is now c0ffee0"; !strings.Contains(f.Comments[0].Body, want) {
		t.Errorf("comment lacks %q:\n%s", want, f.Comments[0].Body)
	}
	if len(f.Statuses) != 1 || f.Statuses[0]["sha"] != fakeHead || f.Statuses[0]["state"] != "pending" {
		t.Errorf("statuses %v, want pending on the approved commit", f.Statuses)
	}
}
