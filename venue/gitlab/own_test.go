package gitlab

import (
	"context"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/fake/gitlabfake"
	"github.com/perfbot/perfbot/target"
)

// TestPostIgnoresPlantedMarker: with no login configured, a note another
// account wrote with the request's marker is not perfbot's: perfbot asks
// who it is (GET /user), writes its own note and leaves the planted one.
func TestPostIgnoresPlantedMarker(t *testing.T) {
	f := newFake(t)
	const key = "gitlab:acme/db/store!12/note/7"
	planted := Marker(key) + "\n**perfbot: running**"
	f.AddNote("acme/db/store", 12, "mallory", planted)
	p := newClient(t, f, Config{})
	for _, m := range []answer.Answer{msgOf(key, answer.StatePending, "running", "**perfbot: running**"), msgOf(key, answer.StateSuccess, "2 better", "**2 better**")} {
		if _, err := p.Post(context.Background(), target.MustParse("gitlab:acme/db/store!12"), m); err != nil {
			t.Fatal(err)
		}
	}
	notes := f.Notes("acme/db/store", 12)
	if len(notes) != 2 || notes[0].Body != planted || notes[1].Author != "perfbot-bot" || notes[1].Body != Marker(key)+"\n**2 better**" {
		t.Errorf("notes %+v: want the planted one untouched and perfbot's own holding the result", notes)
	}
}

// TestPostRefusesWrongLogin: a configured login other than the token's
// account is refused before anything is written.
func TestPostRefusesWrongLogin(t *testing.T) {
	f := newFake(t)
	p := newClient(t, f, Config{Login: "mallory"})
	_, err := p.Post(context.Background(), target.MustParse("gitlab:acme/db/store!12"), msgOf("k", answer.StateSuccess, "s", "s"))
	if err == nil || !strings.Contains(err.Error(), `venues.gitlab.login is "mallory", but the token signs in as perfbot-bot`) {
		t.Fatalf("err = %v", err)
	}
	if len(f.Notes("acme/db/store", 12)) != 0 || len(f.Statuses()) != 0 {
		t.Errorf("something was written")
	}
	if _, err := p.Check(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "venues.gitlab.login") {
		t.Errorf("Check: err = %v", err)
	}
}

// TestStatusOnMeasuredCommit: the merge request's head moved during the
// run; the status goes on the measured commit and the note says so.
func TestStatusOnMeasuredCommit(t *testing.T) {
	f := newFake(t)
	const pushed = "fedcba9876543210fedcba9876543210fedcba98"
	f.AddMR(gitlabfake.MR{Project: "acme/db/store", IID: 12, Title: "wal: batch fsync", SHA: pushed}) // pushed during the run
	p := newClient(t, f, Config{})
	if _, err := p.Post(context.Background(), target.MustParse("gitlab:acme/db/store!12"), msgOf("k", answer.StateSuccess, "2 better", "**2 better**\n\n| a |\n")); err != nil {
		t.Fatal(err)
	}
	if st := f.Statuses(); len(st) != 1 || st[0].SHA != sha || st[0].State != "success" {
		t.Errorf("statuses %+v, want success on the measured %s only", st, sha)
	}
	want := Marker("k") + "\n**2 better**\n\n> measured 0123456; the merge request's head is now fedcba9: a new run needs a new `/perfbot run`\n\n| a |\n"
	if n := f.Notes("acme/db/store", 12); len(n) != 1 || n[0].Body != want {
		t.Errorf("notes %+v, want %q", n, want)
	}
}
