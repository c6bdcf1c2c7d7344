// Package github is perfbot's GitHub client. It reads what the intake
// needs (a pull request's head, a commenter's permission, recent comments)
// and replies, and it posts perfbot's answers to pull requests: one
// Markdown comment, written by perfbot's own account and found again by a
// hidden marker and edited in place on a rerun, and a commit status (or
// check run) on the commit that was measured.
//
// It authenticates with a token (a personal access token, or the
// GITHUB_TOKEN of a workflow) or as a GitHub App installation, and talks to
// github.com or a GitHub Enterprise Server at a configured address.
package github

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	gh "github.com/google/go-github/v60/github"

	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/retry"
)

// Config says where GitHub is and how to sign in. Exactly one of Token or
// App must be set.
type Config struct {
	// BaseURL is the REST API root; empty means https://api.github.com/.
	// For GitHub Enterprise Server give the server's address
	// (https://ghe.example.com/ or https://ghe.example.com/api/v3/).
	BaseURL string
	// Token is a personal access token or an Actions GITHUB_TOKEN.
	Token string
	// App signs in as a GitHub App installation instead of with Token.
	App *App
	// Login, when set, must name the account the credentials post as
	// ("perfbot-ci", "my-app[bot]"); perfbot asks GitHub who that is
	// (GET /user, or GET /app for an App) and refuses a mismatch. It is
	// required only for a token GET /user cannot name (a workflow's
	// GITHUB_TOKEN). Only comments written by that account are edited.
	Login string
	// StatusContext names the commit status, or the check run with
	// Checks (default "perfbot").
	StatusContext string
	// Checks posts the outcome as a check run, with the report as its
	// output, instead of a commit status. GitHub lets only Apps create
	// check runs: App credentials, or the GITHUB_TOKEN of a workflow.
	Checks bool
	// HTTPClient sends the requests; nil means a client with a 60s
	// timeout. Its Transport is wrapped, never modified.
	HTTPClient *http.Client
	// Retry bounds retries of transient failures and rate limits.
	Retry retry.Policy
}

// Client is perfbot's one GitHub client: the intake reads pull requests,
// comments and permissions and replies through it (see pulls.go), and
// answers are posted through it (Post). It signs in with a token or as a
// GitHub App installation and is safe for concurrent use.
type Client struct {
	client  *gh.Client
	app     *appTransport // nil with token auth
	token   string
	login   string
	context string
	checks  bool
	retry   retry.Policy

	mu sync.Mutex
	me identity // who perfbot posts as, once asked
}

var _ venue.Poster = (*Client)(nil)

// New checks cfg and returns a Client. It makes no request.
func New(cfg Config) (*Client, error) {
	client, app, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	p := &Client{client: client, app: app, token: cfg.Token, login: cfg.Login, context: cfg.StatusContext, checks: cfg.Checks, retry: cfg.Retry}
	if p.context == "" {
		p.context = "perfbot"
	}
	return p, nil
}

func newClient(cfg Config) (*gh.Client, *appTransport, error) {
	if (cfg.Token == "") == (cfg.App == nil) {
		return nil, nil, errors.New("github: configure exactly one of a token (GITHUB_TOKEN) or GitHub App credentials")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: defaultTimeout}
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	var client *gh.Client
	var app *appTransport
	if cfg.App != nil {
		at, err := newAppTransport(*cfg.App, cfg.BaseURL, base)
		if err != nil {
			return nil, nil, err
		}
		app = at
		client = gh.NewClient(&http.Client{Transport: at, Timeout: hc.Timeout, CheckRedirect: hc.CheckRedirect, Jar: hc.Jar})
	} else {
		client = gh.NewClient(&http.Client{Transport: base, Timeout: hc.Timeout, CheckRedirect: hc.CheckRedirect, Jar: hc.Jar}).WithAuthToken(cfg.Token)
	}
	if cfg.BaseURL != "" {
		api, err := APIBaseURL(cfg.BaseURL)
		if err != nil {
			return nil, nil, err
		}
		if client, err = client.WithEnterpriseURLs(api, uploadURL(api)); err != nil {
			return nil, nil, fmt.Errorf("github: base URL %q: %w", cfg.BaseURL, err)
		}
	}
	return client, app, nil
}

// APIBaseURL is the REST API root for a configured venues.github.url, the
// address the intake and posting both use: empty, github.com or
// api.github.com mean https://api.github.com/; a GitHub Enterprise Server
// address is taken with or without its /api/v3/ and always ends in it
// (go-github's WithEnterpriseURLs rule), so requests go to
// https://HOST/api/v3/repos/....
func APIBaseURL(raw string) (string, error) {
	if raw == "" {
		return "https://api.github.com/", nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("github: base URL %q: want https://api.github.com/ or https://HOST/api/v3/ of a GitHub Enterprise Server", raw)
	}
	if strings.EqualFold(u.Host, "github.com") || strings.EqualFold(u.Host, "www.github.com") {
		return "https://api.github.com/", nil
	}
	c, err := gh.NewClient(nil).WithEnterpriseURLs(raw, uploadURL(raw))
	if err != nil {
		return "", fmt.Errorf("github: base URL %q: %w", raw, err)
	}
	return c.BaseURL.String(), nil
}

// uploadURL derives the Enterprise upload root from the API root.
func uploadURL(base string) string {
	return strings.Replace(strings.TrimSuffix(base, "/")+"/", "/api/v3/", "/api/uploads/", 1)
}

// secrets lists what must never appear in an error.
func (p *Client) secrets() []string {
	s := []string{p.token}
	if p.app != nil {
		s = append(s, p.app.current())
	}
	return s
}
