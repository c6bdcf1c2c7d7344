// Package gerrit posts perfbot's answers to Gerrit changes and lists the
// changes and messages intake reads, through Gerrit's REST API (plain
// net/http, written by hand: github.com/andygrunwald/go-gerrit is not
// available from the module proxy perfbot builds with, and perfbot needs
// only a few endpoints).
//
// Every request goes to the authenticated /a/ paths with HTTP basic auth
// (the account's HTTP password, Settings → HTTP Credentials); every JSON
// answer starts with Gerrit's ")]}'" line against cross-site script
// inclusion, which is stripped before decoding.
package gerrit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/retry"
)

// Config says where Gerrit is and how to sign in.
type Config struct {
	// BaseURL is the site (https://review.example.org, or with a path
	// such as https://example.org/gerrit/).
	BaseURL string
	// User and Password are the account and its HTTP password.
	User, Password string
	// Label, when set, is voted on with every result: +1 when nothing got
	// worse, -1 when something did (the label must exist on the project
	// and allow the account to vote -1..+1).
	Label string
	// HTTPClient sends the requests; nil means one with a 60s timeout.
	HTTPClient *http.Client
	// Retry bounds retries of transient failures.
	Retry retry.Policy
}

// Client talks to one Gerrit site. It is safe for concurrent use.
type Client struct {
	base       *url.URL
	user, pass string
	label      string
	hc         *http.Client
	retry      retry.Policy
}

var _ venue.Poster = (*Client)(nil)

// New checks cfg and returns a Client. It makes no request.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("gerrit: no site address (set PERFBOT_GERRIT_URL or venues.gerrit.url)")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" {
		return nil, fmt.Errorf("gerrit: site address %q: want http(s)://HOST[/PATH]", cfg.BaseURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	if cfg.User == "" || cfg.Password == "" {
		return nil, errors.New("gerrit: no user or HTTP password (venues.gerrit.user and password_env or password_file)")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	return &Client{base: u, user: cfg.User, pass: cfg.Password, label: cfg.Label, hc: hc, retry: cfg.Retry}, nil
}

// APIError is a failure answer: the HTTP status and Gerrit's plain-text
// reason.
type APIError struct {
	Method, Path string
	Status       int
	Msg          string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// xssiPrefix opens every JSON answer of Gerrit's REST API.
const xssiPrefix = ")]}'"

// Decode strips Gerrit's ")]}'" line from a JSON answer and decodes the
// rest into v. An answer without the line is refused: it did not come from
// Gerrit's REST API (a login page, a proxy's error).
func Decode(data []byte, v any) error {
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(data, "\ufeff"), []byte(xssiPrefix))
	if !ok {
		return fmt.Errorf("answer does not start with Gerrit's %q line", xssiPrefix)
	}
	return json.Unmarshal(rest, v)
}

// endpoint is the authenticated URL of an API path ("changes/?q=...").
func (c *Client) endpoint(path string) string {
	return c.base.String() + "a/" + path
}

// get reads path's JSON answer into v; post sends in as JSON.
func (c *Client) get(ctx context.Context, path string, v any) error {
	data, err := c.send(ctx, http.MethodGet, path, nil, "application/json")
	if err != nil {
		return err
	}
	if err := Decode(data, v); err != nil {
		return fmt.Errorf("GET %s: %w", c.base.Path+"a/"+stripQuery(path), err)
	}
	return nil
}

func (c *Client) post(ctx context.Context, path string, in, v any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	data, err := c.send(ctx, http.MethodPost, path, body, "application/json")
	if err != nil {
		return err
	}
	if v == nil {
		return nil
	}
	if err := Decode(data, v); err != nil {
		return fmt.Errorf("POST %s: %w", c.base.Path+"a/"+stripQuery(path), err)
	}
	return nil
}

func stripQuery(p string) string { p, _, _ = strings.Cut(p, "?"); return p }

// send makes one request and returns the answer's body. Failures are
// marked for retry: 429, 5xx and network errors are transient, the rest
// permanent. Redirects are not followed: the API never sends one, a login
// page does.
func (c *Client) send(ctx context.Context, method, path string, body []byte, accept string) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint(path), rd)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(c.user, c.pass)
	req.Header.Set("Accept", accept)
	if body != nil {
		req.Header.Set("Content-Type", "application/json; charset=UTF-8")
	}
	hc := *c.hc
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Do(req)
	if err != nil {
		if retry.NetworkTransient(err) {
			return nil, retry.Transient(err)
		}
		return nil, err
	}
	defer resp.Body.Close()
	p := c.base.Path + "a/" + stripQuery(path)
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, retry.Transient(fmt.Errorf("%s %s: reading answer: %w", method, p, err))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := strings.TrimSpace(string(data))
		if len(msg) > 300 || strings.HasPrefix(msg, "<") {
			msg = ""
		}
		ae := &APIError{Method: method, Path: p, Status: resp.StatusCode, Msg: msg}
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			return nil, retry.After(ae, retry.RetryAfter(resp.Header, time.Now()))
		case retry.HTTPStatusTransient(resp.StatusCode):
			return nil, retry.Transient(ae)
		}
		return nil, ae
	}
	return data, nil
}

// call runs op under the retry policy and scrubs the password from its
// error.
func (c *Client) call(ctx context.Context, what string, op func(ctx context.Context) error) error {
	return retry.Redact(c.retry.Do(ctx, what, op), c.pass)
}
