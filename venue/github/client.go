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
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/internal/sameorigin"
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
		client = gh.NewClient(sameorigin.Client(&http.Client{Transport: at, Timeout: hc.Timeout, CheckRedirect: hc.CheckRedirect, Jar: hc.Jar}, "github"))
	} else {
		client = gh.NewClient(sameorigin.Client(&http.Client{Transport: base, Timeout: hc.Timeout, CheckRedirect: hc.CheckRedirect, Jar: hc.Jar}, "github")).WithAuthToken(cfg.Token)
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

// redact takes the credentials out of err.
func (p *Client) redact(err error) error { return retry.Redact(err, p.secrets()...) }

// secondaryWait is how long to wait after a secondary rate limit that
// names no time; GitHub asks for at least a minute.
const secondaryWait = time.Minute

// classify marks err for retry.Do: rate limits wait until the reset or the
// Retry-After the server named, 5xx and 429 answers and network failures
// retry with backoff, every other answer (401, 403, 404, 422) is permanent.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var rl *gh.RateLimitError
	if errors.As(err, &rl) {
		return retry.After(err, time.Until(rl.Rate.Reset.Time)+time.Second)
	}
	var ab *gh.AbuseRateLimitError
	if errors.As(err, &ab) {
		if ab.RetryAfter != nil && *ab.RetryAfter > 0 {
			return retry.After(err, *ab.RetryAfter)
		}
		return retry.After(err, secondaryWait)
	}
	var er *gh.ErrorResponse
	if errors.As(err, &er) {
		return retry.ByResponse(err, er.Response)
	}
	if retry.NetworkTransient(err) {
		return retry.Transient(err)
	}
	return err
}

// identity is the account perfbot's comments are written by: the token's
// user, or a GitHub App's bot user "<slug>[bot]".
type identity struct {
	login string
	// appID is the App's id (0 with a token), which narrows the check
	// runs perfbot takes for its own.
	appID int64
	// how says where the login came from, for errors; app names the App
	// ("perfbot (id 123)").
	how, app string
}

// self asks GitHub who perfbot is, once: GET /app with the App's JWT (the
// bot user is the App's slug with "[bot]"), or GET /user with a token. A
// configured Login must name the same account. A token that is not a
// user's (a workflow's GITHUB_TOKEN, an installation token) cannot ask,
// so Login is taken as is for it, and is required.
func (p *Client) self(ctx context.Context) (identity, error) {
	p.mu.Lock()
	me := p.me
	p.mu.Unlock()
	if me.login != "" {
		return me, nil
	}
	me, err := p.askSelf(ctx)
	if err != nil {
		return identity{}, err
	}
	if p.login != "" && !strings.EqualFold(p.login, me.login) {
		return identity{}, &venue.LoginMismatchError{Venue: "github", Configured: p.login, Actual: me.login, How: me.how}
	}
	p.mu.Lock()
	p.me = me
	p.mu.Unlock()
	return me, nil
}

func (p *Client) askSelf(ctx context.Context) (identity, error) {
	if p.app != nil {
		app, _, err := p.app.jwtc.Apps.Get(ctx, "")
		if err != nil {
			return identity{}, classify(fmt.Errorf("github: app %s (GET /app, signed with the private key): %w", p.app.app.ID, err))
		}
		if app.GetSlug() == "" {
			return identity{}, fmt.Errorf("github: app %s: GET /app named no slug", p.app.app.ID)
		}
		login := app.GetSlug() + "[bot]"
		return identity{login: login, appID: app.GetID(), how: fmt.Sprintf("GitHub App %s (id %d) posts as %s", app.GetSlug(), app.GetID(), login),
			app: fmt.Sprintf("%s (id %d)", app.GetSlug(), app.GetID())}, nil
	}
	u, _, err := p.client.Users.Get(ctx, "")
	if err != nil {
		var er *gh.ErrorResponse
		// A workflow's GITHUB_TOKEN or an installation token is not a
		// user: GitHub answers 403 "Resource not accessible by
		// integration", and nothing else says whose it is.
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden &&
			strings.Contains(er.Message, "integration") {
			if p.login == "" {
				return identity{}, errors.New("github: the token is an integration's (a workflow's GITHUB_TOKEN or an App installation token), which GET /user does not name: set venues.github.login to the account its comments appear under (github-actions[bot] for a workflow's GITHUB_TOKEN)")
			}
			return identity{login: p.login, how: fmt.Sprintf("the integration token posts as %s (venues.github.login; GET /user does not name an integration's account)", p.login)}, nil
		}
		return identity{}, classify(fmt.Errorf("github: token (GET /user): %w", err))
	}
	if u.GetLogin() == "" {
		return identity{}, errors.New("github: GET /user named no login")
	}
	return identity{login: u.GetLogin(), how: "the token signs in as " + u.GetLogin()}, nil
}

// Self returns the login perfbot's comments are written by, asking GitHub
// once (see Check).
func (p *Client) Self(ctx context.Context) (string, error) {
	me, err := p.self(ctx)
	if err != nil {
		return "", err
	}
	return me.login, nil
}
