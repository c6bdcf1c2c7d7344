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
)

// TestPostIgnoresPlantedMarker: the pull request's author edits an old
// comment of theirs to start with the marker of a maintainer's request.
// With no login configured perfbot still knows its own account (GET
// /user): it creates its own comment and edits only that one, and the
// attacker's comment is left as they wrote it.
func TestPostIgnoresPlantedMarker(t *testing.T) {
	f := newFakeGitHub(t, testToken)
	planted := Marker("job-7") + "\nperfbot: running"
	f.comments = []fakeComment{{ID: 1, Body: planted, User: "mallory"}}
	var w waits
	p := newPoster(t, f, &w, testToken)
	ctx := context.Background()
	running := message("job-7", "running")
	running.State, running.Commit = answer.StatePending, ""
	if _, err := p.Post(ctx, "acme/store#7", running); err != nil {
		t.Fatal(err)
	}
	link, err := p.Post(ctx, "acme/store#7", message("job-7", "2 better, 1 worse"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.comments) != 2 || f.comments[0].Body != planted {
		t.Fatalf("comments %+v: want the planted one untouched and perfbot's own", f.comments)
	}
	if c := f.comments[1]; c.User != "perfbot-ci" || !strings.Contains(c.Body, "| 10 | 1.0 | 3.7 | 3.7x |") || !strings.HasSuffix(link, "-1001") {
		t.Errorf("perfbot's comment %+v (link %s): want the result in its own comment", c, link)
	}
	if n := len(f.statuses); n != 2 || f.statuses[1]["target_url"] != link {
		t.Errorf("statuses %v: want the result's linking perfbot's own comment", f.statuses)
	}
}

// TestPostRefusesWrongLogin: a configured login that is not the token's
// account is refused before anything is written, naming both.
func TestPostRefusesWrongLogin(t *testing.T) {
	f := newFakeGitHub(t, testToken)
	f.comments = []fakeComment{{ID: 1, Body: Marker("job-8") + "\nold", User: "mallory"}}
	var w waits
	p, err := New(Config{BaseURL: f.url(), Token: testToken, Login: "mallory", Retry: w.policy()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Post(context.Background(), "acme/store#7", message("job-8", "s"))
	if err == nil || !strings.Contains(err.Error(), `venues.github.login is "mallory"`) || !strings.Contains(err.Error(), "perfbot-ci") {
		t.Fatalf("err = %v, want the mismatch named", err)
	}
	if len(f.comments) != 1 || f.comments[0].Body != Marker("job-8")+"\nold" || len(f.statuses) != 0 || len(w.d) != 0 {
		t.Errorf("comments %+v, statuses %v, waits %v: want nothing written, no retry", f.comments, f.statuses, w.d)
	}
	if _, err := p.Check(context.Background(), "acme/store"); err == nil || !strings.Contains(err.Error(), "venues.github.login") {
		t.Errorf("Check: err = %v, want the mismatch", err)
	}
	good, _ := New(Config{BaseURL: f.url(), Token: testToken, Login: "Perfbot-CI"})
	if who, err := good.Self(context.Background()); err != nil || who != "perfbot-ci" {
		t.Errorf("Self = %q, %v; want perfbot-ci (logins compare without case)", who, err)
	}
}

// TestPostAsAppKnowsItsBot: as a GitHub App, perfbot is the bot user
// "<slug>[bot]" (GET /app); a comment by anyone else is not its own.
func TestPostAsAppKnowsItsBot(t *testing.T) {
	p, f := newAppPoster(t)
	f.login = "perfbot[bot]"
	f.comments = []fakeComment{{ID: 1, Body: Marker("job-6") + "\nplanted", User: "perfbot-ci"}}
	if _, err := p.Post(context.Background(), "acme/store#7", message("job-6", "s")); err != nil {
		t.Fatal(err)
	}
	if len(f.comments) != 2 || f.comments[0].Body != Marker("job-6")+"\nplanted" || f.comments[1].User != "perfbot[bot]" {
		t.Errorf("comments %+v", f.comments)
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
		f := newFakeGitHub(t, testToken)
		f.head = pushed
		var w waits
		p, err := New(Config{BaseURL: f.url(), Token: testToken, Checks: checks, Retry: w.policy()})
		if err != nil {
			t.Fatal(err)
		}
		msg := message("job-5", "2 better")
		msg.State = answer.StateSuccess
		if _, err := p.Post(context.Background(), "acme/store#7", msg); err != nil {
			t.Fatal(err)
		}
		var on []any
		for _, s := range f.statuses {
			on = append(on, s["sha"])
		}
		for _, c := range f.checkRuns {
			on = append(on, c["head_sha"])
		}
		if len(on) != 1 || on[0] != fakeHead {
			t.Errorf("checks %v: status on %v, want only the measured %s", checks, on, fakeHead)
		}
		want := "measured 6dcb09b; the pull request's head is now c0ffee0: a new run needs a new `/perfbot run`"
		if body := f.comments[0].Body; !strings.Contains(body, want) || !strings.HasPrefix(body, Marker("job-5")+"\n**2 better, 1 worse, 14 same**\n") {
			t.Errorf("comment lacks the moved head after its headline:\n%s", body)
		}
	}
	// A verdict that names no measured commit sets no status at all.
	f := newFakeGitHub(t, testToken)
	var w waits
	p := newPoster(t, f, &w, testToken)
	msg := message("job-4", "2 better")
	msg.Commit = ""
	if _, err := p.Post(context.Background(), "acme/store#7", msg); err != nil {
		t.Fatal(err)
	}
	if len(f.statuses) != 0 || len(f.comments) != 1 {
		t.Errorf("statuses %v: want none for a verdict without its commit", f.statuses)
	}
}

// newAppPoster is a Poster signed in as the fake's App (id 12345,
// installation 99).
func newAppPoster(t *testing.T) (*Poster, *fakeGitHub) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	f := newFakeGitHub(t, "")
	f.appKey = &key.PublicKey
	f.appTok = "ghs_INSTALLATIONtoken0123456789"
	var w waits
	p, err := New(Config{BaseURL: f.url(), App: &App{ID: "12345", InstallationID: 99, PrivateKey: pemKey}, Retry: w.policy()})
	if err != nil {
		t.Fatal(err)
	}
	return p, f
}

// TestLiveAnswerSaysWhatItWillMeasure: while queued or running, the answer
// to a request whose head moved says which commit the run measures.
func TestLiveAnswerSaysWhatItWillMeasure(t *testing.T) {
	f := newFakeGitHub(t, testToken)
	f.head = "c0ffee0000000000000000000000000000000000"
	var w waits
	p := newPoster(t, f, &w, testToken)
	msg := message("job-1", "running")
	msg.State = answer.StatePending
	if _, err := p.Post(context.Background(), "acme/store#7", msg); err != nil {
		t.Fatal(err)
	}
	if want := "> this run measures 6dcb09b; the pull request's head is now c0ffee0"; !strings.Contains(f.comments[0].Body, want) {
		t.Errorf("comment lacks %q:\n%s", want, f.comments[0].Body)
	}
	if len(f.statuses) != 1 || f.statuses[0]["sha"] != fakeHead || f.statuses[0]["state"] != "pending" {
		t.Errorf("statuses %v, want pending on the approved commit", f.statuses)
	}
}
