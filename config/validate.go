package config

import (
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/perfbot/perfbot/internal/cron"
	"github.com/perfbot/perfbot/target"
)

// Validate checks the settings against each other and against what can
// work: required fields, known presets and parsers, regexps, time zones,
// cron specs, the suites schedules name, addresses and sizes. It returns
// nil or an Errors listing every mistake, placed in the file when the
// config was read from one. Parse calls it; call it again after changing
// a Config (such as a command-line override).
func (c *Config) Validate() error {
	if errs := c.check().sorted(); len(errs) > 0 {
		return errs
	}
	return nil
}

// validator collects mistakes with the place of their setting.
type validator struct {
	c    *Config
	errs Errors
}

func (v *validator) add(path, format string, args ...any) {
	line, col := v.c.nodes.at(path)
	v.errs = append(v.errs, &Error{File: v.c.File, Line: line, Col: col, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// check runs every check of Validate.
func (c *Config) check() Errors {
	v := &validator{c: c}
	c.checkProject(v)
	oneOf(v, "instrument", c.Instrument, InstrumentWallTime, InstrumentCPUSim, InstrumentBoth, InstrumentAuto)
	for _, s := range c.Suites {
		path := "suites." + s.Name
		variants := "variants"
		if c.nodes != nil && c.nodes.value[path+".variants"] != nil {
			variants = path + ".variants"
		}
		s.check(v, path, variants)
	}
	c.checkSandbox(v)
	c.checkService(v)
	c.checkBisect(v)
	c.checkConfirm(v)
	c.checkStore(v)
	c.Triggers.check(v, c.Venues.JIRA.Poll, c.Venues.ReviewBoard.Poll)
	c.checkSchedules(v)
	c.checkDigest(v)
	c.checkTrack(v)
	c.checkVenues(v)
	c.checkTemplates(v)
	c.checkGitLab(v)
	return v.errs
}

// TemplateDir is the templates folder, resolved against the config
// file's folder; "" when none is set.
func (c *Config) TemplateDir() string {
	if c == nil {
		return ""
	}
	if c.Templates == "" || filepath.IsAbs(c.Templates) || c.File == "" {
		return c.Templates
	}
	return filepath.Join(filepath.Dir(c.File), c.Templates)
}

// checkTemplates wants the templates folder to be a folder; what is in
// it is checked by report.CheckTemplates, which the commands run when
// they load the config.
func (c *Config) checkTemplates(v *validator) {
	if c.Templates == "" {
		return
	}
	fi, err := os.Stat(c.TemplateDir())
	switch {
	case err != nil:
		v.add("templates", "expected a folder of templates: %v", err)
	case !fi.IsDir():
		v.add("templates", "expected a folder of templates, %s is a file", c.TemplateDir())
	}
}

func (c *Config) checkProject(v *validator) {
	if r := c.Project.Repo; strings.Contains(r, "://") {
		checkURL(v, "project.repo", r, "http", "https", "ssh", "git", "file")
	}
}

func (c *Config) checkSandbox(v *validator) {
	s := c.Sandbox
	oneOf(v, "sandbox.mode", s.Mode, "bubblewrap", "none")
	oneOf(v, "sandbox.on_missing", s.OnMissing, "refuse", "warn")
	oneOf(v, "sandbox.network", s.Network, "none", "loopback")
	checkSize(v, "sandbox.memory", s.Memory)
	checkSize(v, "sandbox.max_output", s.MaxOutput)
	checkSize(v, "sandbox.max_file_size", s.MaxFileSize)
	if s.Disk != "none" {
		if n, err := ParseSize(s.Disk); s.Disk != "" && (err != nil || n == 0) {
			v.add("sandbox.disk", "expected a job's disk budget such as 20GiB, or none, got %q", s.Disk)
		}
	}
	if s.Processes < 0 {
		v.add("sandbox.processes", "expected 0 (the default, 4096) or more, got %d", s.Processes)
	}
	if s.MaxPatchFiles < 0 {
		v.add("sandbox.max_patch_files", "expected 0 (the default, 10000) or more, got %d", s.MaxPatchFiles)
	}
	if s.UID < 0 || s.GID < 0 {
		v.add("sandbox.uid", "expected user and group numbers, not negative")
	}
	if p := s.CgroupParent; p != "" && p != "none" && !filepath.IsAbs(p) {
		v.add("sandbox.cgroup_parent", "expected an absolute directory under /sys/fs/cgroup, or none, got %q", p)
	}
	for _, p := range s.HiddenPaths {
		if p == "" || filepath.Clean(p) == "/" {
			v.add("sandbox.hidden_paths", "expected a file or directory other than /, got %q", p)
		}
	}
}

func (c *Config) checkService(v *validator) {
	s := c.Service
	if s.Listen != "" {
		if _, port, err := net.SplitHostPort(s.Listen); err != nil || port == "" {
			v.add("service.listen", "expected host:port, such as 127.0.0.1:8080, got %q", s.Listen)
		}
	}
	if s.URL != "" {
		checkURL(v, "service.url", s.URL, "https", "http")
		if u, err := url.Parse(s.URL); err == nil && u.Host != "" && (u.RawQuery != "" || u.Fragment != "" || u.User != nil) {
			v.add("service.url", "expected the pages' base address without user, query or fragment, got %q", s.URL)
		}
	}
	if s.Workers != 1 && s.Workers != 0 {
		v.add("service.workers", "is %d: a host runs one benchmark job at a time, so it must be 1", s.Workers)
	}
	if s.Heartbeat > 0 && s.StaleAfter > 0 && s.StaleAfter <= s.Heartbeat {
		v.add("service.stale_after", "(%v) must be longer than service.heartbeat (%v)", s.StaleAfter, s.Heartbeat)
	}
	if s.MaxAttempts < 0 {
		v.add("service.max_attempts", "expected 1 or more, got %d", s.MaxAttempts)
	}
	if s.DeliveryRetryFor < 0 {
		v.add("service.delivery_retry_for", "expected a duration such as 12h, not negative, got %v", s.DeliveryRetryFor)
	}
	if s.AnswerEditInterval < 0 {
		v.add("service.answer_edit_interval", "expected a duration such as 30s, not negative, got %v", s.AnswerEditInterval)
	}
}

func (c *Config) checkStore(v *validator) {
	s := c.Store
	switch s.Driver {
	case "", "sqlite":
	case "postgres":
		if s.URL != "" {
			checkURL(v, "store.url", s.URL, "postgres", "postgresql")
		}
		if s.URLEnv != "" {
			checkEnvName(v, "store.url_env", s.URLEnv)
		}
		if s.URL == "" && s.URLEnv == "" {
			v.add("store", "driver postgres needs store.url or store.url_env")
		}
	default:
		oneOf(v, "store.driver", s.Driver, "sqlite", "postgres")
	}
}

func (c *Config) checkSchedules(v *validator) {
	for i, s := range c.Schedules {
		path := fmt.Sprintf("schedules[%d]", i)
		if strings.TrimSpace(s.Cron) == "" {
			v.add(path, "cron is required, such as \"0 3 * * *\" or @daily")
		} else if _, err := cron.Parse(s.Cron); err != nil {
			v.add(path+".cron", "%v", err)
		}
		if s.TZ != "" {
			if _, err := time.LoadLocation(s.TZ); err != nil || s.TZ == "Local" {
				v.add(path+".tz", "unknown time zone %q: expected an IANA name such as UTC or Europe/Berlin", s.TZ)
			}
		}
		if (len(s.Run) == 0) == (s.Digest == "") {
			v.add(path, "set either run (suites) or digest (daily, weekly, monthly)")
		}
		for j, name := range s.Run {
			if _, ok := c.Suites.Lookup(name); !ok {
				v.add(fmt.Sprintf("%s.run[%d]", path, j), "no suite %q in suites (%s)", name, suiteNames(c.Suites))
			}
		}
		if s.Digest != "" {
			if _, err := DigestPeriod(s.Digest); err != nil {
				v.add(path+".digest", "%v", err)
			}
		}
		for j, p := range s.Post {
			checkPost(v, fmt.Sprintf("%s.post[%d]", path, j), p)
		}
	}
}

// checkPost checks one entry of a post: list: "mail" (the digest's
// recipients or the list), or a target of a venue that takes unasked
// answers, well formed as target.Parse reads it.
func checkPost(v *validator, path, p string) {
	venue, _, _ := strings.Cut(p, ":")
	switch venue {
	case "mail", "github", "jira", "reviewboard":
	default:
		v.add(path, "%q: expected mail, or a target such as mail:dev@example.org or github:acme/store#1", p)
		return
	}
	if p == "mail" {
		return
	}
	if _, err := target.Parse(p); err != nil {
		v.add(path, "%v", err)
	}
}

func suiteNames(s Suites) string {
	if len(s) == 0 {
		return "none defined"
	}
	var names []string
	for _, x := range s {
		names = append(names, x.Name)
	}
	return "known: " + strings.Join(names, ", ")
}

func (c *Config) checkDigest(v *validator) {
	for i, to := range c.Digest.To {
		checkAddress(v, fmt.Sprintf("digest.to[%d]", i), to)
	}
	if a := c.Digest.MailArchive; a != "" {
		checkURLTemplate(v, "digest.mail_archive", a)
	}
	if n := c.Digest.OpenAfter; n < 0 || n > 1000 {
		v.add("digest.open_after", "expected a number of tracked runs from 1 to 1000 (0: the default, 5), got %d", n)
	}
}

// checkURLTemplate reports a link template that is not an http or https
// URL with exactly one %s, where the digest puts a Message-ID; a literal
// percent sign is written %%.
func checkURLTemplate(v *validator, path, s string) {
	rest, n := s, 0
	for {
		i := strings.IndexByte(rest, '%')
		if i < 0 || i+1 >= len(rest) {
			if i >= 0 {
				n = -1
			}
			break
		}
		switch rest[i+1] {
		case 's':
			n++
		case '%':
		default:
			n = -1
		}
		if n < 0 {
			break
		}
		rest = rest[i+2:]
	}
	if n != 1 {
		v.add(path, "expected a URL template with one %%s where the Message-ID goes (a literal %% written %%%%), such as https://lists.example.org/r/%%s, got %q", s)
		return
	}
	u, err := url.Parse(strings.ReplaceAll(strings.ReplaceAll(s, "%%", "%25"), "%s", "ID"))
	if err != nil || u.Host == "" || !strings.EqualFold(u.Scheme, "https") && !strings.EqualFold(u.Scheme, "http") {
		v.add(path, "expected an http or https URL template such as https://lists.example.org/r/%%s, got %q", s)
	}
}

// ownerRepo is GitHub's OWNER/REPO.
var ownerRepo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)
})

func (c *Config) checkVenues(v *validator) {
	g := c.Venues.GitHub
	if g.Repo != "" && !ownerRepo().MatchString(g.Repo) {
		v.add("venues.github.repo", "expected OWNER/REPO, such as acme/store, got %q", g.Repo)
	}
	checkURL(v, "venues.github.url", g.URL, "http", "https")
	checkEnvName(v, "venues.github.token_env", g.TokenEnv)
	checkEnvName(v, "venues.github.private_key_env", g.PrivateKeyEnv)
	checkEnvName(v, "venues.github.webhook_secret_env", g.WebhookSecretEnv)
	if g.UsesApp() {
		if g.AppID == "" || g.InstallationID <= 0 || g.PrivateKeyFile == "" && g.PrivateKeyEnv == "" {
			v.add("venues.github", "a GitHub App needs app_id, installation_id and private_key_file (or private_key_env)")
		}
		if g.TokenEnv != "" || g.TokenFile != "" {
			v.add("venues.github", "give a GitHub App (app_id, ...) or a token (token_env, token_file), not both")
		}
	}
	if (g.Poll || g.Webhook()) && g.Repo == "" {
		v.add("venues.github", "taking requests (poll or webhook_secret_*) needs repo: OWNER/REPO")
	}
	j := c.Venues.JIRA
	checkURL(v, "venues.jira.url", j.URL, "http", "https")
	checkEnvName(v, "venues.jira.user_env", j.UserEnv)
	checkEnvName(v, "venues.jira.token_env", j.TokenEnv)
	checkEnvName(v, "venues.jira.pat_env", j.PATEnv)
	oneOf(v, "venues.jira.deployment", strings.ToLower(j.Deployment), "cloud", "server")
	r := c.Venues.ReviewBoard
	checkURL(v, "venues.reviewboard.url", r.URL, "http", "https")
	checkEnvName(v, "venues.reviewboard.token_env", r.TokenEnv)
	c.checkGerrit(v)
	m := c.Venues.Mail
	checkHostPort(v, "venues.mail.smtp", m.SMTP)
	checkHostPort(v, "venues.mail.imap", m.IMAP)
	if m.From != "" {
		if _, err := mail.ParseAddress(m.From); err != nil {
			v.add("venues.mail.from", "expected a mail address such as \"perfbot <perfbot@example.org>\", got %q", m.From)
		}
	}
	checkAddress(v, "venues.mail.list", m.List)
	checkSize(v, "venues.mail.max_mail_size", m.MaxMailSize)
	oneOf(v, "venues.mail.starttls", m.StartTLS, "require", "opportunistic", "off")
	for list := range m.Lists {
		checkAddress(v, "venues.mail.lists."+list, list)
	}
	checkEnvName(v, "venues.mail.user_env", m.UserEnv)
	checkEnvName(v, "venues.mail.password_env", m.PasswordEnv)
	checkEnvName(v, "venues.mail.imap_user_env", m.IMAPUserEnv)
	checkEnvName(v, "venues.mail.imap_password_env", m.IMAPPassEnv)
	if m.IMAP != "" && m.IMAPUserEnv == "" {
		v.add("venues.mail", "imap needs imap_user_env (and imap_password_env or imap_password_file)")
	}
}

// oneOf reports a value that is set and not among want.
func oneOf(v *validator, path, got string, want ...string) {
	if got == "" {
		return
	}
	for _, w := range want {
		if got == w {
			return
		}
	}
	v.add(path, "expected %s, got %q", strings.Join(want, " or "), got)
}

// checkURL reports a set value that is not an absolute URL with one of
// schemes.
func checkURL(v *validator, path, s string, schemes ...string) {
	if s == "" {
		return
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" && u.Scheme != "file" {
		v.add(path, "expected a URL such as %s://host/..., got %q", schemes[0], s)
		return
	}
	for _, sc := range schemes {
		if strings.EqualFold(u.Scheme, sc) {
			return
		}
	}
	v.add(path, "expected a %s URL, got scheme %q", strings.Join(schemes, " or "), u.Scheme)
}

func checkHostPort(v *validator, path, s string) {
	if s == "" {
		return
	}
	if host, port, err := net.SplitHostPort(s); err != nil || host == "" || port == "" {
		v.add(path, "expected host:port, such as mail.example.org:587, got %q", s)
	}
}

func checkAddress(v *validator, path, s string) {
	if s == "" {
		return
	}
	if a, err := mail.ParseAddress(s); err != nil || a.Address != strings.TrimSpace(s) && a.Name == "" {
		v.add(path, "expected a mail address such as dev@example.org, got %q", s)
	}
}

// envName is a POSIX environment variable name.
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// checkEnvName reports an *_env value that is not a variable name (a
// secret pasted in its place, most often).
func checkEnvName(v *validator, path, s string) {
	switch {
	case s == "":
	case !envName().MatchString(s):
		v.add(path, "expected the name of an environment variable, such as GITHUB_TOKEN (the secret itself belongs in that variable, not in config.yaml); the value is not printed")
	case looksLikeSecret(s):
		v.add(path, "looks like a secret, not the name of an environment variable: put the secret in a variable (or a *_file) and name the variable here, such as GITHUB_TOKEN; the value is not printed")
	}
}

// secretPrefixes start the tokens of GitHub, GitLab, Slack, OpenAI and AWS.
var secretPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-", "glptt-", "glrt-", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "sk-", "AKIA", "ASIA"}

// looksLikeSecret reports a value that reads as a token rather than a
// variable name: a known token prefix, or a long run of letters and
// digits without the underscores that separate a name's words.
func looksLikeSecret(s string) bool {
	for _, p := range secretPrefixes {
		if strings.HasPrefix(s, p) && len(s) >= len(p)+16 {
			return true
		}
	}
	var lower, upper, digit int
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			lower++
		case r >= 'A' && r <= 'Z':
			upper++
		case r >= '0' && r <= '9':
			digit++
		}
	}
	words := strings.Count(s, "_") + 1
	switch {
	case len(s) >= 20 && digit >= 4 && len(s)/words >= 16:
		return true // base64 or hex: long, digits throughout, no word breaks
	case len(s) >= 32 && lower > 0 && upper > 0 && digit > 0:
		return true // mixed case and digits, as base64 is
	}
	return false
}

func checkSize(v *validator, path, s string) {
	if s == "" {
		return
	}
	if _, err := ParseSize(s); err != nil {
		v.add(path, "%v", err)
	}
}
