// Package reviewboard posts perfbot's answers to Review Board review
// requests through the Web API 2.0 (plain net/http): one published review
// whose body_top is Markdown, found again on a rerun by a marker; and it
// lists a repository's review requests with their latest diff revision,
// and the reviews and replies on one, for intake.
package reviewboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/internal/sameorigin"
	"github.com/perfbot/perfbot/venue/retry"
)

// Config says where Review Board is and which API token to use.
type Config struct {
	// BaseURL is the site's address, such as https://reviews.example.org
	// (a subdirectory install such as https://example.org/reviews/ works).
	BaseURL string
	// Token is an API token (My Account → Authentication → API Tokens),
	// sent as "Authorization: token TOKEN".
	Token string
	// HTTPClient sends the requests; nil means a client with a 60s
	// timeout.
	HTTPClient *http.Client
	// Retry bounds retries of transient failures.
	Retry retry.Policy
}

// Client talks to one Review Board site. It is safe for concurrent use.
type Client struct {
	base  *url.URL
	token string
	hc    *http.Client
	retry retry.Policy

	mu sync.Mutex
	me string // the token's user, once asked
}

var _ venue.Poster = (*Client)(nil)

// New checks cfg and returns a Client. It makes no request.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("reviewboard: no site address (set PERFBOT_REVIEWBOARD_URL or venues.reviewboard.url)")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("reviewboard: site address %q: want http(s)://HOST[/PATH]", cfg.BaseURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	if cfg.Token == "" {
		return nil, errors.New("reviewboard: no API token (set REVIEWBOARD_TOKEN or venues.reviewboard.token_env)")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	// The token rides on each request, and net/http keeps it on a redirect
	// to a subdomain: redirects stay on the site's own origin.
	hc = sameorigin.Client(hc, "reviewboard")
	return &Client{base: u, token: cfg.Token, hc: hc, retry: cfg.Retry}, nil
}

// APIError is a failure answer: the HTTP status and Review Board's
// {"stat": "fail", "err": {"code": N, "msg": "..."}}.
type APIError struct {
	Method, Path string
	Status       int
	Code         int
	Msg          string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Msg != "" {
		s += fmt.Sprintf(": %s (code %d)", e.Msg, e.Code)
	}
	return s
}

// resolve turns an API path ("api/review-requests/1/reviews/") or an
// absolute link from an answer into a URL on the site.
func (c *Client) resolve(ref string) (*url.URL, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return nil, err
	}
	u := c.base.ResolveReference(r)
	if u.Host != c.base.Host || u.Scheme != c.base.Scheme {
		return nil, fmt.Errorf("reviewboard: link %q leaves the site %s", ref, c.base.Host)
	}
	return u, nil
}

// do sends one request (form-encoded when form is non-nil) and decodes the
// JSON answer into v. Failures are marked for retry: 429, 5xx and network
// errors are transient, the rest permanent.
func (c *Client) do(ctx context.Context, method, ref string, form url.Values, v any) error {
	u, err := c.resolve(ref)
	if err != nil {
		return err
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "token "+c.token)
	req.Header.Set("Accept", "application/json")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if retry.NetworkTransient(err) {
			return retry.Transient(err)
		}
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return retry.Transient(fmt.Errorf("%s %s: reading answer: %w", method, u.Path, err))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		ae := &APIError{Method: method, Path: u.Path, Status: resp.StatusCode}
		var f struct {
			Err struct {
				Code int    `json:"code"`
				Msg  string `json:"msg"`
			} `json:"err"`
		}
		if json.Unmarshal(data, &f) == nil {
			ae.Code, ae.Msg = f.Err.Code, f.Err.Msg
		}
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			return retry.After(ae, retry.RetryAfter(resp.Header, time.Now()))
		case retry.HTTPStatusTransient(resp.StatusCode):
			return retry.Transient(ae)
		}
		return ae
	}
	if v != nil {
		if err := json.Unmarshal(data, v); err != nil {
			return fmt.Errorf("%s %s: answer is not the expected JSON: %w", method, u.Path, err)
		}
	}
	return nil
}

// call runs op under the retry policy and scrubs the token from its error.
func (c *Client) call(ctx context.Context, what string, op func(ctx context.Context) error) error {
	return retry.Redact(c.retry.Do(ctx, what, op), c.token)
}

// link is the "next" or "self" link of a list answer.
type link struct {
	Href   string `json:"href"`
	Method string `json:"method"`
	Title  string `json:"title"`
}
