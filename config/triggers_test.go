package config

import (
	"slices"
	"testing"

	"github.com/perfbot/perfbot/trigger"
)

func TestTriggersPolicy(t *testing.T) {
	tests := []struct {
		name     string
		triggers Triggers
		want     trigger.Policy
	}{
		{"default", Triggers{Allow: []string{"committers"}},
			trigger.Policy{RequireWrite: true}},
		{"committers and names", Triggers{Allow: []string{"Committers", "release-bot", "jira:bob"}, Senders: []string{"@example.org"}},
			trigger.Policy{RequireWrite: true, AllowUsers: []string{"github:release-bot", "jira:bob"}, AllowSenders: []string{"@example.org"}}},
		{"names only", Triggers{Allow: []string{"alice"}},
			trigger.Policy{RequireWrite: true, ListedOnly: true, AllowUsers: []string{"github:alice"}}},
		{"tracker users", Triggers{Allow: []string{"committers"}, TrackerUsers: []string{"carol", "reviewboard:dave"}},
			trigger.Policy{RequireWrite: true, AllowUsers: []string{"jira:carol", "reviewboard:carol", "reviewboard:dave"}}},
		{"every tracker user", Triggers{Allow: []string{"committers"}, TrackerUsers: []string{"*"}},
			trigger.Policy{RequireWrite: true, AnyTrackerUser: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.triggers.Policy()
			if got.RequireWrite != tt.want.RequireWrite || got.ListedOnly != tt.want.ListedOnly ||
				got.AnyTrackerUser != tt.want.AnyTrackerUser || !slices.Equal(got.AllowUsers, tt.want.AllowUsers) ||
				!slices.Equal(got.AllowSenders, tt.want.AllowSenders) {
				t.Errorf("Policy() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestTriggersDecisions checks the decisions of a decoded configuration,
// venue by venue.
func TestTriggersDecisions(t *testing.T) {
	cfg, err := Parse([]byte(`
triggers:
  allow: [committers, release-bot]
  senders: [dev@store.example.org, "@committers.example.org"]
  tracker_users: [alice, "jira:bob"]
venues:
  jira: {poll: true}
  reviewboard: {poll: true}
`), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Triggers.Policy()
	tests := []struct {
		name    string
		d       trigger.Decision
		allowed bool
	}{
		{"github writer", p.GitHub("maintainer", "write"), true},
		{"github reader", p.GitHub("stranger", "read"), false},
		{"github listed", p.GitHub("release-bot", "none"), true},
		{"jira listed", p.Tracker(trigger.JIRA, "alice"), true},
		{"jira scoped", p.Tracker(trigger.JIRA, "bob"), true},
		{"review board scoped elsewhere", p.Tracker(trigger.ReviewBoard, "bob"), false},
		{"jira release-bot is a GitHub name", p.Tracker(trigger.JIRA, "release-bot"), false},
		{"mail listed", p.Mail("Dev <dev@store.example.org>"), true},
		{"mail domain", p.Mail("x@committers.example.org"), true},
		{"mail stranger", p.Mail("x@example.com"), false},
	}
	for _, tt := range tests {
		if tt.d.Allowed != tt.allowed || tt.allowed == (tt.d.Refusal != "") {
			t.Errorf("%s: %+v, want allowed %v", tt.name, tt.d, tt.allowed)
		}
	}
	cfg, err = Parse([]byte("project: {repo: .}\n"), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if d := cfg.Triggers.Policy().Mail("dev@example.org"); d.Allowed || d.Refusal == "" {
		t.Errorf("default mail decision %+v, want a polite refusal", d)
	}
	if d := cfg.Triggers.Policy().Tracker(trigger.JIRA, "alice"); d.Allowed {
		t.Errorf("default JIRA decision %+v, want a refusal", d)
	}
}
