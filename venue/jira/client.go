// Package jira posts perfbot's answers to JIRA issues, on JIRA Server, Data
// Center and Cloud: one comment in wiki markup, found again by a marker and
// edited in place on a rerun, with the raw results attached; and it
// searches issues by JQL, for intake.
//
// The comment carries a "perfbot" entity property naming the answer's key,
// which is what perfbot looks for among the comments; JIRA Cloud converts
// wiki markup to rich text and back, and may lose macros, but keeps
// properties. The comment also starts with an {anchor:perfbot-KEY} macro
// (an invisible link target on Server and Data Center), which finds
// comments written without the property.
package jira

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	jiralib "github.com/andygrunwald/go-jira"

	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/internal/sameorigin"
	"github.com/perfbot/perfbot/venue/retry"
)

// Deployment names a kind of JIRA installation.
type Deployment string

// Deployments. The empty Deployment asks the server (GET
// /rest/api/2/serverInfo, field deploymentType) on first use.
const (
	Cloud      Deployment = "cloud"
	Server     Deployment = "server" // Server and Data Center
	autoDetect Deployment = ""
)

// Config says where JIRA is and how to sign in: User and Token (basic auth:
// a Server user and password or token, or a Cloud account's email and API
// token), or PAT (a Server/Data Center personal access token, sent as a
// bearer token).
type Config struct {
	// BaseURL is the site's address: https://issues.example.org or
	// https://acme.atlassian.net (a context path such as /jira is kept).
	BaseURL string
	User    string
	Token   string
	PAT     string
	// Deployment picks the search endpoint; empty asks the server.
	Deployment Deployment
	// HTTPClient sends the requests; nil means a client with a 60s
	// timeout. Its Transport is wrapped, never modified.
	HTTPClient *http.Client
	// Retry bounds retries of transient failures.
	Retry retry.Policy
}

// Client talks to one JIRA site. It is safe for concurrent use.
type Client struct {
	api     *jiralib.Client
	base    string
	secrets []string
	retry   retry.Policy
	deploy  Deployment
	// fetch and auth download attachments (Attachment): the credentials
	// go on each request, which Go's client drops on a redirect to
	// another host, never in the transport, which would send them on.
	fetch *http.Client
	auth  func(*http.Request)

	mu       sync.Mutex
	detected Deployment
	me       identity
}

var _ venue.Poster = (*Client)(nil)

// New checks cfg and returns a Client. It makes no request.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("jira: no site address (set PERFBOT_JIRA_URL or venues.jira.url)")
	}
	if !strings.HasPrefix(cfg.BaseURL, "https://") && !strings.HasPrefix(cfg.BaseURL, "http://") {
		return nil, fmt.Errorf("jira: site address %q: want http:// or https://", cfg.BaseURL)
	}
	switch cfg.Deployment {
	case Cloud, Server, autoDetect:
	default:
		return nil, fmt.Errorf("jira: deployment %q: want cloud or server", cfg.Deployment)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	var rt http.RoundTripper
	var secrets []string
	var auth func(*http.Request)
	switch {
	case cfg.PAT != "" && cfg.Token == "":
		rt = &jiralib.PATAuthTransport{Token: cfg.PAT, Transport: base}
		secrets = []string{cfg.PAT}
		auth = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+cfg.PAT) }
	case cfg.User != "" && cfg.Token != "" && cfg.PAT == "":
		rt = &jiralib.BasicAuthTransport{Username: cfg.User, Password: cfg.Token, Transport: base}
		secrets = []string{cfg.Token, base64.StdEncoding.EncodeToString([]byte(cfg.User + ":" + cfg.Token))}
		auth = func(r *http.Request) { r.SetBasicAuth(cfg.User, cfg.Token) }
	default:
		return nil, errors.New("jira: configure either a user and token (JIRA_USER, JIRA_TOKEN) or a personal access token, not both or neither")
	}
	// rt signs every request it sends, a redirected one too, so the API
	// client follows no redirect off the site. Attachment downloads (fetch)
	// sign only the first request, whose Authorization header net/http
	// drops on a redirect to another domain.
	api, err := jiralib.NewClient(sameorigin.Client(&http.Client{Transport: rt, Timeout: hc.Timeout, CheckRedirect: hc.CheckRedirect}, "jira"), cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("jira: site address %q: %w", cfg.BaseURL, err)
	}
	return &Client{api: api, base: strings.TrimSuffix(cfg.BaseURL, "/"), secrets: secrets, retry: cfg.Retry, deploy: cfg.Deployment,
		fetch: &http.Client{Transport: base, Timeout: attachmentTimeout, CheckRedirect: hc.CheckRedirect}, auth: auth}, nil
}

// StatusError is a failure answer from JIRA.
type StatusError struct {
	Method, Path string
	Code         int
	Messages     []string // errorMessages and errors from the JSON body
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Code, http.StatusText(e.Code))
	if len(e.Messages) > 0 {
		s += ": " + strings.Join(e.Messages, "; ")
	}
	return s
}

// do sends req and decodes a 2xx JSON answer into v (when non-nil). It
// marks the error for retry: 429 and 5xx answers and network failures are
// transient, other failures permanent.
func (c *Client) do(req *http.Request, v any) error {
	req.Header.Set("Accept", "application/json")
	resp, err := c.api.Do(req, nil)
	if resp == nil {
		if err == nil {
			err = errors.New("no response")
		}
		err = fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
		if retry.NetworkTransient(err) {
			return retry.Transient(err)
		}
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		se := &StatusError{Method: req.Method, Path: req.URL.Path, Code: resp.StatusCode, Messages: readMessages(resp.Body)}
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			return retry.After(se, retry.RetryAfter(resp.Header, time.Now()))
		case retry.HTTPStatusTransient(resp.StatusCode):
			return retry.Transient(se)
		}
		return se
	}
	if v == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return retry.Transient(fmt.Errorf("%s %s: reading answer: %w", req.Method, req.URL.Path, err))
	}
	return nil
}

// readMessages pulls JIRA's {"errorMessages": [...], "errors": {...}} out of
// a failure body, or a short excerpt of a body that is not JSON.
func readMessages(r io.Reader) []string {
	data, _ := io.ReadAll(io.LimitReader(r, 8<<10))
	var e struct {
		ErrorMessages []string          `json:"errorMessages"`
		Errors        map[string]string `json:"errors"`
	}
	if json.Unmarshal(data, &e) == nil {
		out := e.ErrorMessages
		for k, v := range e.Errors {
			out = append(out, k+": "+v)
		}
		return out
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return nil
	}
	return []string{s}
}

// call runs op under the retry policy and scrubs secrets from its error.
func (c *Client) call(ctx context.Context, what string, op func(ctx context.Context) error) error {
	return retry.Redact(c.retry.Do(ctx, what, op), c.secrets...)
}

// deployment returns the configured deployment or asks the server once.
func (c *Client) deployment(ctx context.Context) (Deployment, error) {
	if c.deploy != autoDetect {
		return c.deploy, nil
	}
	c.mu.Lock()
	d := c.detected
	c.mu.Unlock()
	if d != autoDetect {
		return d, nil
	}
	var info struct {
		DeploymentType string `json:"deploymentType"`
	}
	err := c.call(ctx, "jira: server info", func(ctx context.Context) error {
		req, err := c.api.NewRequestWithContext(ctx, http.MethodGet, "rest/api/2/serverInfo", nil)
		if err != nil {
			return err
		}
		return c.do(req, &info)
	})
	if err != nil {
		return "", err
	}
	d = Server
	if strings.EqualFold(info.DeploymentType, "cloud") {
		d = Cloud
	}
	c.mu.Lock()
	c.detected = d
	c.mu.Unlock()
	return d, nil
}
