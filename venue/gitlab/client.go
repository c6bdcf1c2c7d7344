// Package gitlab is perfbot's one GitLab client: it reads merge requests,
// access levels and the token's account for the intake, and posts
// perfbot's answers to merge requests: one note, written by perfbot's own
// account and found again by a hidden marker and edited in place on a
// rerun, and a commit status on the commit that was measured. It talks to
// gitlab.com or a self-hosted GitLab through the maintained client
// (gitlab.com/gitlab-org/api/client-go), signed in with an access token.
package gitlab

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/internal/sameorigin"
	"github.com/perfbot/perfbot/venue/retry"
)

// DefaultBaseURL is gitlab.com.
const DefaultBaseURL = "https://gitlab.com"

// Config says where GitLab is and how to sign in.
type Config struct {
	// BaseURL is the instance (https://gitlab.example.org); the API root
	// /api/v4/ is added. Empty means gitlab.com.
	BaseURL string
	// Token is a personal, project or group access token with the api
	// scope.
	Token string
	// Login, when set, must name the account the token signs in as;
	// perfbot asks GitLab (GET /user) and refuses a mismatch. Only notes
	// written by that account are edited, whatever marker another carries.
	Login string
	// StatusName names the commit status (default "perfbot").
	StatusName string
	// ServiceURL is the service's public address (service.url): when the
	// answer links a run page under it, that page is the commit status's
	// target; otherwise the note is.
	ServiceURL string
	// HTTPClient sends the requests; nil means one with a 60s timeout.
	HTTPClient *http.Client
	// Retry bounds retries of transient failures and rate limits.
	Retry retry.Policy
}

// ConfigFrom reads the token venues.gitlab names, through env; the
// address and posting settings are copied.
func ConfigFrom(c config.GitLab, env config.Env) (Config, error) {
	ts := c.Token()
	tok, err := ts.Read(env)
	if err != nil {
		return Config{}, fmt.Errorf("GitLab: %w", err)
	}
	if tok == "" {
		return Config{}, fmt.Errorf("GitLab is not configured: no token in %s (set it, or venues.gitlab.token_env / token_file)", ts.Source())
	}
	return Config{BaseURL: c.BaseURL, Token: tok, Login: c.Login, StatusName: c.StatusName}, nil
}

// Client is perfbot's GitLab client: every REST call perfbot makes to
// GitLab goes through it, for the intake and for posting. It is safe for
// concurrent use.
type Client struct {
	api        *gl.Client
	token      string
	login      string
	status     string
	serviceURL string
	retry      retry.Policy

	mu sync.Mutex
	me string // the token's username, once asked
}

var _ venue.Poster = (*Client)(nil)

// New checks cfg and returns a Client, whose client-go client has its own
// retries off (perfbot's retry.Policy retries instead) and refuses a
// redirect to another host, so the token goes only to cfg.BaseURL. It
// makes no request.
func New(cfg Config) (*Client, error) {
	if cfg.Token == "" {
		return nil, errors.New("gitlab: no access token")
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	// client-go sends the token in a Private-Token header, which net/http
	// would carry along a redirect to any host.
	hc = sameorigin.Client(hc, "gitlab")
	api, err := gl.NewClient(cfg.Token, gl.WithBaseURL(base), gl.WithHTTPClient(hc), gl.WithoutRetries())
	if err != nil {
		return nil, fmt.Errorf("gitlab %s: %w", base, err)
	}
	c := &Client{api: api, token: cfg.Token, login: cfg.Login, status: cfg.StatusName, serviceURL: cfg.ServiceURL, retry: cfg.Retry}
	if c.status == "" {
		c.status = "perfbot"
	}
	return c, nil
}

func (c *Client) secrets() []string { return []string{c.token} }

// classify marks err for retry.Do: 429 and 5xx answers (waiting the
// Retry-After the server named) and network failures retry, every other
// answer (401, 403, 404, 422) is permanent.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var er *gl.ErrorResponse
	if errors.As(err, &er) {
		return retry.ByResponse(err, er.Response)
	}
	if retry.NetworkTransient(err) {
		return retry.Transient(err)
	}
	return err
}

// StatusCode is the HTTP status of a GitLab error answer, or 0. client-go
// answers a 404 with gl.ErrNotFound, which carries no response.
func StatusCode(err error) int {
	if errors.Is(err, gl.ErrNotFound) {
		return http.StatusNotFound
	}
	var er *gl.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}
