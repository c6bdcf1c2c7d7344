package config

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestEveryMistakeAtItsPlace checks that one file's mistakes in different
// sections are all reported, in file order, each at its line and column.
func TestEveryMistakeAtItsPlace(t *testing.T) {
	data := `project: {repo: "ftp://x/y"}
suites:
  wal:
    command: run {threads}
    matrix: {threads: [1, 2]}
    count: many
    output: socket
    dir: ../outside
sandbox: {mode: firejail, memory: 8 gigs}
store: {driver: postgres}
venues:
  github: {repo: "acme", token_env: "ghp-0123456789abcdef", poll: true}
  jira: {url: "issues.example.org"}
  mail: {smtp: "smtp.example.org", from: "not an address"}
service: {listen: ":x:", workers: 4, jobtimeout: 1h}
schedules:
  - {cron: "0 25 * * *", digest: yearly}
  - {cron: "@fortnightly", run: [wal], tz: Local}
`
	_, err := Parse([]byte(data), "c.yaml")
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("err = %v, want Errors", err)
	}
	want := []string{
		`c.yaml:1:17: project.repo: expected a http or https or ssh or git or file URL, got scheme "ftp"`,
		`c.yaml:6:12: suites.wal.count: expected a whole number, got "many"`,
		`c.yaml:7:13: suites.wal.output: expected stdout, stderr, combined or file:PATH, got "socket"`,
		`c.yaml:8:10: suites.wal.dir: expected a directory inside the repository (a relative path without ".."), got "../outside"`,
		`c.yaml:9:17: sandbox.mode: expected bubblewrap or none, got "firejail"`,
		`c.yaml:9:35: sandbox.memory: expected a size such as 512MiB, 8GiB or 4096 (bytes), got "8 gigs"`,
		`c.yaml:10:1: store: driver postgres needs store.url or store.url_env`,
		`c.yaml:12:18: venues.github.repo: expected OWNER/REPO, such as acme/store, got "acme"`,
		`c.yaml:12:37: venues.github.token_env: expected the name of an environment variable`,
		`c.yaml:13:15: venues.jira.url: expected a URL such as http://host/..., got "issues.example.org"`,
		`c.yaml:14:16: venues.mail.smtp: expected host:port`,
		`c.yaml:14:42: venues.mail.from: expected a mail address`,
		`c.yaml:15:19: service.listen: expected host:port`,
		`c.yaml:15:35: service.workers: is 4`,
		`c.yaml:15:38: service.jobtimeout: unknown key; did you mean job_timeout?`,
		`c.yaml:17:12: schedules[0].cron: cron "0 25 * * *": hour: "25": out of range 0-23`,
		`c.yaml:17:34: schedules[0].digest: digest period "yearly": want daily, weekly or monthly`,
		`c.yaml:18:12: schedules[1].cron: cron "@fortnightly": unknown shorthand`,
		`c.yaml:18:44: schedules[1].tz: unknown time zone "Local"`,
	}
	if len(errs) != len(want) {
		t.Errorf("%d errors, want %d:\n%v", len(errs), len(want), errs)
	}
	for i := range min(len(errs), len(want)) {
		if !strings.HasPrefix(errs[i].Error(), want[i]) {
			t.Errorf("error %d:\n got %s\nwant %s...", i+1, errs[i], want[i])
		}
	}
	if strings.Contains(err.Error(), "ghp-0123456789abcdef") {
		t.Errorf("the error repeats a secret pasted as a variable name:\n%v", err)
	}
}

// TestDependentMistakesStayQuiet: a value that cannot be read is reported
// once, not again by the checks that depend on it.
func TestDependentMistakesStayQuiet(t *testing.T) {
	_, err := Parse([]byte("suites:\n  x:\n    command: run {threads}\n    matrix: [1, 2]\n"), "c.yaml")
	if err == nil || strings.Count(err.Error(), "\n") != 0 || !strings.Contains(err.Error(), "c.yaml:4:13: suites.x.matrix: expected a mapping of parameter to values") {
		t.Errorf("err = %v, want only the matrix error", err)
	}
}

func TestUnknownKeySuggestion(t *testing.T) {
	fields := fieldsOf(typeOf[GitHub]())
	for key, want := range map[string]string{
		"tokn_env":       "did you mean token_env?",
		"Token_Env":      "did you mean token_env?",
		"webhook_secret": "did you mean webhook_secret_env?",
		"installationid": "did you mean installation_id?",
		"zzz":            "unknown key (known here: app_id, checks, ",
		"colour":         "unknown key (known here:",
	} {
		if got := unknownKey(key, fields); !strings.Contains(got, want) {
			t.Errorf("unknownKey(%q) = %q, want %q", key, got, want)
		}
	}
	if d := levenshtein("kitten", "sitting"); d != 3 {
		t.Errorf("levenshtein = %d, want 3", d)
	}
}

// TestOneVenueSection: a venue's intake and posting keys live in one
// section and decode into one struct; the keys configs already use keep
// working.
func TestOneVenueSection(t *testing.T) {
	c, err := Parse([]byte(`venues:
  github: {repo: acme/store, url: "https://ghe.example.com/api/v3/", token_file: /etc/perfbot/gh, webhook_secret_env: HOOK, poll: true, login: perfbot-ci, checks: true}
  jira: {url: "https://issues.example.org", project: STORE, user_env: JU, token_env: JT, deployment: server}
  reviewboard: {url: "https://reviews.example.org", repository: store, token_file: /etc/perfbot/rb}
  mail: {smtp: "smtp.example.org:587", from: "perfbot <perfbot@example.org>", list: dev@example.org, imap: "imap.example.org:993", imap_user_env: IU, imap_password_file: /etc/perfbot/imap}
store: {driver: postgres, url_env: DBURL}
`), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := c.Venues.GitHub
	if g.Repo != "acme/store" || !g.Poll || !g.Checks || g.Login != "perfbot-ci" || g.Token().File != "/etc/perfbot/gh" {
		t.Errorf("github = %+v", g)
	}
	if c.Venues.JIRA.JQL != `project = "STORE" AND status = "Patch Available"` || c.Venues.Mail.Mailbox != "INBOX" {
		t.Errorf("defaults: jql %q, mailbox %q", c.Venues.JIRA.JQL, c.Venues.Mail.Mailbox)
	}
	var got []string
	for _, s := range c.Secrets() {
		got = append(got, s.Key+"="+s.Source())
	}
	want := []string{
		"venues.github.token_file=file /etc/perfbot/gh",
		"venues.github.webhook_secret_env=$HOOK",
		"venues.jira.user_env=$JU",
		"venues.jira.token_env=$JT",
		"venues.reviewboard.token_file=file /etc/perfbot/rb",
		"venues.mail.user_env=$SMTP_USER",
		"venues.mail.password_env=$SMTP_PASSWORD",
		"venues.mail.imap_user_env=$IU",
		"venues.mail.imap_password_file=file /etc/perfbot/imap",
		"store.url_env=$DBURL",
	}
	if !slices.Equal(got, want) {
		t.Errorf("secrets:\n got %q\nwant %q", got, want)
	}
	if files := c.SecretFiles(); !slices.Equal(files, []string{"/etc/perfbot/gh", "/etc/perfbot/rb", "/etc/perfbot/imap"}) {
		t.Errorf("secret files = %q", files)
	}
	env := Env{Getenv: func(k string) string { return map[string]string{"JT": "jira-token"}[k] },
		ReadFile: func(string) ([]byte, error) { return []byte("gh-token\n"), nil }}
	if v, err := g.Token().Read(env); v != "gh-token" || err != nil {
		t.Errorf("github token = %q, %v", v, err)
	}
	if v, err := c.Venues.JIRA.Token().Read(env); v != "jira-token" || err != nil {
		t.Errorf("jira token = %q, %v", v, err)
	}
	if s := (GitHub{}).Token(); s.Source() != "$GITHUB_TOKEN" || s.Key != "venues.github.token_env" {
		t.Errorf("default github token: %+v", s)
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"4096": 4096, "512MiB": 512 << 20, "8GiB": 8 << 30, "1.5G": 3 << 29, "2MB": 2e6, "64 KiB": 64 << 10, "0": 0} {
		if got, err := ParseSize(s); got != want || err != nil {
			t.Errorf("ParseSize(%q) = %d, %v, want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "lots", "-1GiB", "8 gigs", "1e400"} {
		if _, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) succeeded", s)
		}
	}
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// TestMergeKeys: YAML merge keys (<<: *anchor) work as the decoder reads
// them, and a misspelt key inside the merged mapping is still found.
func TestMergeKeys(t *testing.T) {
	c, err := Parse([]byte(`suites:
  a: &common {command: "run {n}", matrix: {n: [1, 2]}, count: 3}
  b:
    <<: *common
    count: 7
`), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := c.Suites.Lookup("b"); b.Count != 7 || b.Command != "run {n}" || len(b.Matrix) != 1 {
		t.Errorf("suite b = %+v", b)
	}
	_, err = Parse([]byte("x: &d {comand: run}\nsuites:\n  b:\n    <<: *d\n    command: run\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "c.yaml:1:1: x: unknown key") || !strings.Contains(err.Error(), "c.yaml:1:8: suites.b.comand: unknown key; did you mean command?") {
		t.Errorf("err = %v", err)
	}
}
