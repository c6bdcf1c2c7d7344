package config

import (
	"fmt"
	"os"
	"strings"
)

// Default names of the variables holding secrets.
const (
	DefaultGitHubToken      = "GITHUB_TOKEN"
	DefaultJIRAUser         = "JIRA_USER"
	DefaultJIRAToken        = "JIRA_TOKEN"
	DefaultJIRAPAT          = "JIRA_PAT"
	DefaultReviewBoardToken = "REVIEWBOARD_TOKEN"
	DefaultGerritPassword   = "GERRIT_HTTP_PASSWORD"
	DefaultSMTPUser         = "SMTP_USER"
	DefaultSMTPPassword     = "SMTP_PASSWORD"
)

// Secret says where one credential is read from: a file when File is set,
// else the environment variable Env. It never holds the value.
type Secret struct {
	// Key is the setting that names it, such as "venues.github.token_file".
	Key string
	// Env is the variable read when File is empty.
	Env string
	// File is a file holding the secret (its trailing newline dropped).
	File string
}

// Source says where the secret comes from: "file PATH" or "$NAME".
func (s Secret) Source() string {
	if s.File != "" {
		return "file " + s.File
	}
	return "$" + s.Env
}

// Env reads secrets; the zero value uses the process environment and file
// system.
type Env struct {
	Getenv   func(string) string
	ReadFile func(string) ([]byte, error)
}

// Read returns the secret's value: the file's content, or the variable's.
// An unset variable gives "" and no error; an unreadable file an error
// naming it.
func (s Secret) Read(env Env) (string, error) {
	if s.File != "" {
		read := env.ReadFile
		if read == nil {
			read = os.ReadFile
		}
		data, err := read(s.File)
		if err != nil {
			return "", fmt.Errorf("reading secret file: %w", stripPathErr(err, s.File))
		}
		return strings.TrimRight(string(data), "\r\n"), nil
	}
	if s.Env == "" {
		return "", nil
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return getenv(s.Env), nil
}

// stripPathErr keeps a file error's cause without repeating the path.
func stripPathErr(err error, file string) error {
	if pe, ok := err.(*os.PathError); ok {
		return fmt.Errorf("%s: %w", file, pe.Err)
	}
	return err
}

func secret(key, env, file, def string) Secret {
	if file != "" {
		return Secret{Key: key + "_file", File: file}
	}
	if env == "" {
		env = def
	}
	return Secret{Key: key + "_env", Env: env}
}

// Token is the GitHub token.
func (g GitHub) Token() Secret {
	return secret("venues.github.token", g.TokenEnv, g.TokenFile, DefaultGitHubToken)
}

// PrivateKey is the GitHub App's private key (PEM).
func (g GitHub) PrivateKey() Secret {
	return secret("venues.github.private_key", g.PrivateKeyEnv, g.PrivateKeyFile, "")
}

// WebhookSecret is the secret GitHub signs webhook deliveries with.
func (g GitHub) WebhookSecret() Secret {
	return secret("venues.github.webhook_secret", g.WebhookSecretEnv, g.WebhookSecretFile, "")
}

// Webhook reports whether the GitHub webhook is configured.
func (g GitHub) Webhook() bool { return g.WebhookSecretEnv != "" || g.WebhookSecretFile != "" }

// UserSecret is the JIRA account when User does not name it.
func (j JIRA) UserSecret() Secret { return secret("venues.jira.user", j.UserEnv, "", DefaultJIRAUser) }

// Token is the JIRA password or API token.
func (j JIRA) Token() Secret {
	return secret("venues.jira.token", j.TokenEnv, j.TokenFile, DefaultJIRAToken)
}

// PAT is the JIRA Server/Data Center personal access token.
func (j JIRA) PAT() Secret { return secret("venues.jira.pat", j.PATEnv, j.PATFile, DefaultJIRAPAT) }

// Token is the Review Board API token.
func (r ReviewBoard) Token() Secret {
	return secret("venues.reviewboard.token", r.TokenEnv, r.TokenFile, DefaultReviewBoardToken)
}

// Password is the Gerrit account's HTTP password.
func (g Gerrit) Password() Secret {
	return secret("venues.gerrit.password", g.PasswordEnv, g.PasswordFile, DefaultGerritPassword)
}

// UserSecret is the SMTP account when User does not name it.
func (m Mail) UserSecret() Secret { return secret("venues.mail.user", m.UserEnv, "", DefaultSMTPUser) }

// Password is the SMTP password.
func (m Mail) Password() Secret {
	return secret("venues.mail.password", m.PasswordEnv, m.PasswordFile, DefaultSMTPPassword)
}

// IMAPUser is the IMAP account.
func (m Mail) IMAPUser() Secret { return secret("venues.mail.imap_user", m.IMAPUserEnv, "", "") }

// IMAPPassword is the IMAP password.
func (m Mail) IMAPPassword() Secret {
	return secret("venues.mail.imap_password", m.IMAPPassEnv, m.IMAPPassFile, "")
}

// URLSecret is the PostgreSQL URL when store.url_env names it.
func (s Store) URLSecret() Secret { return secret("store.url", s.URLEnv, "", "") }

// Secrets lists every secret the configuration reads, with where each
// comes from: those of the venues whose section is set, and the store's
// URL when store.url_env names it. The sandbox hides the files they name
// from benchmark commands.
func (c *Config) Secrets() []Secret {
	v := c.Venues
	var out []Secret
	add := func(s Secret) {
		if s.File != "" || s.Env != "" {
			out = append(out, s)
		}
	}
	if v.GitHub != (GitHub{}) {
		if v.GitHub.UsesApp() {
			add(v.GitHub.PrivateKey())
		} else {
			add(v.GitHub.Token())
		}
		if v.GitHub.Webhook() {
			add(v.GitHub.WebhookSecret())
		}
	}
	if v.GitLab.Configured() {
		add(v.GitLab.Token())
		if v.GitLab.Webhook() {
			add(v.GitLab.WebhookSecret())
		}
	}
	if v.JIRA.URL != "" || v.JIRA.Poll {
		if v.JIRA.UsesPAT() {
			add(v.JIRA.PAT())
		} else {
			if v.JIRA.User == "" {
				add(v.JIRA.UserSecret())
			}
			add(v.JIRA.Token())
		}
	}
	if v.ReviewBoard.URL != "" || v.ReviewBoard.Poll {
		add(v.ReviewBoard.Token())
	}
	if v.Gerrit.URL != "" || v.Gerrit.Poll {
		add(v.Gerrit.Password())
	}
	if v.Mail.SMTP != "" {
		if v.Mail.User == "" {
			add(v.Mail.UserSecret())
		}
		add(v.Mail.Password())
	}
	if v.Mail.IMAP != "" {
		add(v.Mail.IMAPUser())
		add(v.Mail.IMAPPassword())
	}
	if c.Store.Driver == "postgres" && c.Store.URLEnv != "" {
		add(c.Store.URLSecret())
	}
	return out
}

// SecretFiles are the files that hold secrets, for the sandbox to hide.
func (c *Config) SecretFiles() []string {
	var out []string
	for _, s := range c.Secrets() {
		if s.File != "" {
			out = append(out, s.File)
		}
	}
	return out
}
