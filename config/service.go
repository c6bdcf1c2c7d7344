package config

import (
	"fmt"
	"os"
	"time"
)

// Service configures the HTTP endpoint, the queue and the workers.
type Service struct {
	// Listen is the HTTP address for webhooks, /healthz and /metrics
	// (default "127.0.0.1:8080").
	Listen string `yaml:"listen"`
	// Queue is the queue benchmark jobs go to and workers take them from
	// (default "benchmark"). Hosts of different kinds can use different
	// queues.
	Queue string `yaml:"queue"`
	// Workers is the number of benchmark jobs one process runs at once:
	// 1, so that two jobs never disturb each other's timings on a host.
	// "perfbot serve" with a PostgreSQL store runs none unless
	// embedded_workers is true.
	Workers int `yaml:"workers"`
	// EmbeddedWorkers makes "perfbot serve" run benchmark jobs itself.
	// It defaults to true with SQLite and false with PostgreSQL.
	EmbeddedWorkers *bool `yaml:"embedded_workers"`
	// JobTimeout ends a benchmark job that runs longer (default 2h).
	JobTimeout time.Duration `yaml:"job_timeout"`
	// Heartbeat is how often a running job records that its worker lives
	// (default 15s); StaleAfter is how old a heartbeat may get before the
	// job is handed to another worker (default 2m).
	Heartbeat  time.Duration `yaml:"heartbeat"`
	StaleAfter time.Duration `yaml:"stale_after"`
	// StopGrace is how long a stopping process lets a running job go on
	// before cancelling it to be retried later (default 10s).
	StopGrace time.Duration `yaml:"stop_grace"`
	// MaxAttempts is how often a job is tried before it is given up
	// (default 3).
	MaxAttempts int `yaml:"max_attempts"`
	// PollInterval is how often venues without webhooks are polled
	// (default 2m).
	PollInterval time.Duration `yaml:"poll_interval"`
	// Name identifies this process in runs and logs (default: host name).
	Name string `yaml:"name"`
	// URL is the public address of the service's pages (such as
	// https://perfbot.example.org); when set, every posted answer links
	// to its run's page there.
	URL string `yaml:"url"`
	// DeliveryRetryFor is how long an answer that fails to be delivered
	// (a venue or SMTP server down) is retried, with backoff, before it is
	// given up (default 12h).
	DeliveryRetryFor time.Duration `yaml:"delivery_retry_for"`
	// AnswerEditInterval spaces out the edits of a live answer (queued,
	// running round k of n): at most one per interval per answer; the final
	// answer is never held back (default 30s).
	AnswerEditInterval time.Duration `yaml:"answer_edit_interval"`
	// Bisect, when set, bisects a series whose comparison moved a
	// benchmark by at least its min_change (see Bisect).
	Bisect *Bisect `yaml:"bisect"`
	// Confirm, when set, has a second host rerun a comparison that found
	// a benchmark worse before the verdict is posted (see Confirm).
	Confirm *Confirm `yaml:"confirm"`
}

// Store says where the history and the queue live.
type Store struct {
	// Driver is "sqlite" (default) or "postgres".
	Driver string `yaml:"driver"`
	// Path is the SQLite file (default "perfbot.db").
	Path string `yaml:"path"`
	// URL is a PostgreSQL URL; URLEnv names an environment variable that
	// holds it instead (so the password stays out of the file).
	URL    string `yaml:"url"`
	URLEnv string `yaml:"url_env"`
}

// Triggers says who may start runs of unmerged patches (see Policy).
type Triggers struct {
	// Allow lists GitHub users who may always start a run ("alice", or
	// "github:alice"; "jira:bob" and "reviewboard:carol" name users of
	// those venues). The word "committers" (the default) admits anyone
	// with write, maintain or admin permission on the GitHub repository;
	// without it only the listed users may.
	Allow []string `yaml:"allow"`
	// Command is the comment command word (default "/perfbot").
	Command string `yaml:"command"`
	// Senders are the mail senders whose list patches are run: addresses
	// ("dev@example.org") or whole domains ("@example.org"). Empty (the
	// default): no mailed patch is run; each gets a polite reply.
	Senders []string `yaml:"senders"`
	// TrackerUsers are the JIRA and Review Board users whose patches are
	// run: the attachment's author, the review request's submitter ("bob"
	// on both venues, or "jira:bob", "reviewboard:bob"). "*" runs every
	// new patch, as Apache Yetus does. Polling JIRA or Review Board needs
	// at least one entry.
	TrackerUsers []string `yaml:"tracker_users"`
}

// Schedule is one cron entry: a nightly run of suites on a branch, or a
// digest.
type Schedule struct {
	// Name identifies the schedule (default: its cron spec and action).
	Name string `yaml:"name"`
	// Cron is a five-field cron spec (minute hour day-of-month month
	// day-of-week; names such as MON-FRI and JAN work, and @yearly,
	// @monthly, @weekly, @daily, @hourly), evaluated in UTC unless TZ
	// names a zone (an IANA name such as Europe/Berlin).
	Cron string `yaml:"cron"`
	TZ   string `yaml:"tz"`
	// Run lists suites to run on the branch On.
	Run []string `yaml:"run"`
	On  string   `yaml:"on"`
	// Digest is "daily", "weekly" or "monthly": the period a digest covers.
	Digest string `yaml:"digest"`
	// Post lists where the answer goes: "mail", or full targets such as
	// "mail:dev@example.org" or "github:acme/store#1".
	Post []string `yaml:"post"`
}

// Digest configures the periodic digest.
type Digest struct {
	// Branches are the tracked branches whose changes the digest lists
	// (default: the project branch).
	Branches []string `yaml:"branches"`
	// RC and Release name a release candidate and the last release to
	// compare in the digest, when both are set.
	RC      string `yaml:"rc"`
	Release string `yaml:"release"`
	// To is the digest's mail recipients (default: venues.mail.list).
	To []string `yaml:"to"`
	// MailArchive, such as "https://lists.example.org/r/%s", links a
	// mail answer's Message-ID to the list archive.
	MailArchive string `yaml:"mail_archive"`
	// OpenAfter is how many runs of a tracked branch after a regression's
	// change point, with no change point undoing it, make the digest list
	// it as still open (0: the default, 5).
	OpenAfter int `yaml:"open_after"`
}

// Defaults fills in every unset field.
func (c *Config) Defaults() {
	s := &c.Service
	if s.Listen == "" {
		s.Listen = "127.0.0.1:8080"
	}
	if s.Queue == "" {
		s.Queue = "benchmark"
	}
	if s.Workers <= 0 {
		s.Workers = 1
	}
	if s.JobTimeout <= 0 {
		s.JobTimeout = 2 * time.Hour
	}
	if s.Heartbeat <= 0 {
		s.Heartbeat = 15 * time.Second
	}
	if s.StaleAfter <= 0 {
		s.StaleAfter = 8 * s.Heartbeat
	}
	if s.StopGrace <= 0 {
		s.StopGrace = 10 * time.Second
	}
	if s.MaxAttempts <= 0 {
		s.MaxAttempts = 3
	}
	if s.PollInterval <= 0 {
		s.PollInterval = 2 * time.Minute
	}
	if s.Name == "" {
		s.Name, _ = os.Hostname()
	}
	if s.DeliveryRetryFor <= 0 {
		s.DeliveryRetryFor = 12 * time.Hour
	}
	if s.AnswerEditInterval <= 0 {
		s.AnswerEditInterval = 30 * time.Second
	}
	if c.Store.Driver == "" {
		c.Store.Driver = "sqlite"
	}
	if c.Store.Path == "" {
		c.Store.Path = "perfbot.db"
	}
	if s.EmbeddedWorkers == nil {
		embedded := c.Store.Driver == "sqlite"
		s.EmbeddedWorkers = &embedded
	}
	if len(c.Triggers.Allow) == 0 {
		c.Triggers.Allow = []string{"committers"}
	}
	if c.Triggers.Command == "" {
		c.Triggers.Command = "/perfbot"
	}
	if c.Venues.Mail.Mailbox == "" {
		c.Venues.Mail.Mailbox = "INBOX"
	}
	if c.Venues.JIRA.JQL == "" {
		c.Venues.JIRA.JQL = `status = "Patch Available"`
		if c.Venues.JIRA.Project != "" {
			c.Venues.JIRA.JQL = fmt.Sprintf(`project = %q AND status = "Patch Available"`, c.Venues.JIRA.Project)
		}
	}
}

// StoreDSN is the data source: the SQLite path or the PostgreSQL URL.
func (c *Config) StoreDSN() string {
	if c.Store.Driver != "postgres" {
		return c.Store.Path
	}
	if c.Store.URLEnv != "" {
		return os.Getenv(c.Store.URLEnv)
	}
	return c.Store.URL
}

// DigestPeriod returns the length of a digest period name.
func DigestPeriod(name string) (time.Duration, error) {
	switch name {
	case "daily":
		return 24 * time.Hour, nil
	case "weekly":
		return 7 * 24 * time.Hour, nil
	case "monthly":
		return 30 * 24 * time.Hour, nil
	}
	return 0, fmt.Errorf("digest period %q: want daily, weekly or monthly", name)
}
