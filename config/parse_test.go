package config

import (
	"strings"
	"testing"
	"time"
)

// TestParseWhole reads a config.yaml with every section: defaults applied,
// the service's durations, the store, schedules, triggers and venues.
func TestParseWhole(t *testing.T) {
	cfg, err := Parse([]byte(`
project: {repo: ., branch: main}
suites: {wal: {command: "true"}}
service:
  listen: 127.0.0.1:9000
  job_timeout: 45m
  heartbeat: 5s
store: {driver: postgres, url: "postgres://perfbot@db/perfbot"}
triggers: {tracker_users: [alice]}
schedules:
  - {cron: "0 3 * * *", run: [wal], on: main, post: [mail]}
  - {cron: "0 8 * * 1", digest: weekly, post: [mail]}
venues:
  jira: {url: https://issues.example.org, project: STORE, poll: true}
  mail: {list: dev@example.org, maildir: /var/mail/perfbot}
`), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Service
	if s.JobTimeout != 45*time.Minute || s.Heartbeat != 5*time.Second || s.StaleAfter != 40*time.Second || *s.EmbeddedWorkers {
		t.Errorf("service = %+v", s)
	}
	if cfg.StoreDSN() != "postgres://perfbot@db/perfbot" || cfg.Venues.JIRA.JQL != `project = "STORE" AND status = "Patch Available"` {
		t.Errorf("dsn %q, jql %q", cfg.StoreDSN(), cfg.Venues.JIRA.JQL)
	}
	if len(cfg.Schedules) != 2 || cfg.Triggers.Command != "/perfbot" || cfg.Triggers.Allow[0] != "committers" {
		t.Errorf("config = %+v", cfg)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"store: {driver: mysql}", `config.yaml:1:17: store.driver: expected sqlite or postgres, got "mysql"`},
		{"store: {driver: postgres}", "needs store.url"},
		{"service: {workers: 2}", "must be 1"},
		{"service: {heartbeat: 10s, stale_after: 5s}", "stale_after"},
		{`schedules: [{cron: "0 3 * *", run: [x]}]`, "want 5 fields"},
		{`schedules: [{cron: "0 3 * * *"}]`, "either run"},
		{`schedules: [{cron: "0 3 * * *", digest: yearly}]`, "yearly"},
		{"service: {job_timeout: forever}", "config.yaml"},
		{"service:\n  listen: x\n  heartbeet: 5s\n", "config.yaml:3:3: service.heartbeet: unknown key; did you mean heartbeat?"},
		{"schedules:\n  - {cron: \"0 3 * * *\", run: [x], post: [mail], when: now}\n", "config.yaml:2:49: schedules[0].when: unknown key (known here: cron, digest, name, on, post, run, tz)"},
		{"triggers:\n  allow: [committers]\n  sender: [dev@example.org]\n", "config.yaml:3:3: triggers.sender: unknown key; did you mean senders?"},
		{"venues: {jira: {poll: true}}", "venues.jira.poll is on but triggers.tracker_users names no jira user"},
		{"venues: {reviewboard: {poll: true}}\ntriggers: {tracker_users: [jira:bob]}", "venues.reviewboard.poll is on"},
		{"triggers: {senders: [Dev <dev@example.org>]}", "triggers.senders[0]"},
		{"triggers: {senders: [\"@\"]}", "want a domain"},
		{"triggers: {allow: [\"*\"]}", "triggers.allow[0]"},
		{"triggers: {allow: [gitea:alice]}", `venue "gitea"`},
		{"triggers: {tracker_users: [github:alice]}", "want one of jira, reviewboard"},
		{"triggers: {tracker_users: [\"jira:\"]}", "names no user"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.yaml), "config.yaml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tt.yaml, err, tt.want)
		}
	}
}
