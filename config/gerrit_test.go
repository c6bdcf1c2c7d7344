package config

import (
	"errors"
	"strings"
	"testing"
)

func TestGerritConfig(t *testing.T) {
	good := `venues:
  gerrit:
    url: https://review.example.org
    user: perfbot
    password_file: /etc/perfbot/gerrit-password
    query: "status:open project:store branch:main"
    label: Performance
    group: perf-team
    poll: true
`
	c, err := Parse([]byte(good), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := c.Venues.Gerrit
	if g.User != "perfbot" || g.Label != "Performance" || !g.RunsPatchSets() || !g.ReadsCommands() {
		t.Errorf("%+v", g)
	}
	if s := c.Secrets(); len(s) != 1 || s[0].File != "/etc/perfbot/gerrit-password" {
		t.Errorf("secrets %+v", s)
	}
	bad := `venues:
  gerrit:
    url: review.example.org
    password_env: "not a name"
    label: "Perf ormance"
    patch_sets: false
    commands: false
    poll: true
`
	_, err = Parse([]byte(bad), "c.yaml")
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("err = %v", err)
	}
	text := err.Error()
	for _, want := range []string{
		"c.yaml:3:10: venues.gerrit.url: expected a URL",
		"c.yaml:4:19: venues.gerrit.password_env: expected the name of an environment variable",
		"c.yaml:5:12: venues.gerrit.label: expected a Gerrit label name",
		"venues.gerrit: needs user",
		"venues.gerrit.poll: polling needs query",
		"commands and patch_sets are both false",
		"names anyone whose changes may run",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("errors lack %q:\n%s", want, text)
		}
	}
	// A listed Gerrit user is someone whose changes may run.
	ok := strings.Replace(good, "    group: perf-team\n", "", 1) + "triggers: {tracker_users: [\"gerrit:alice\"]}\n"
	if _, err := Parse([]byte(ok), "c.yaml"); err != nil {
		t.Errorf("tracker_users gerrit:alice: %v", err)
	}
	none := strings.Replace(good, "    group: perf-team\n", "", 1)
	if _, err := Parse([]byte(none), "c.yaml"); err == nil || !strings.Contains(err.Error(), "names anyone") {
		t.Errorf("no one allowed: %v", err)
	}
}
