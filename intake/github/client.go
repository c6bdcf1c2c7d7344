package github

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	ghreview "github.com/perfbot/perfbot/review/github"
)

// Client is the small part of the GitHub REST API the intake uses.
type Client struct {
	// BaseURL is venues.github.url: empty for github.com, or a GitHub
	// Enterprise Server address with or without /api/v3/; posting reads it
	// the same way (review/github.APIBaseURL).
	BaseURL string
	// Token authenticates the requests.
	Token string
	HTTP  *http.Client
}

func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	base, err := ghreview.APIBaseURL(c.BaseURL)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(base, "/")+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("github %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("github %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Message string `json:"message"`
		}
		json.Unmarshal(data, &e)
		return &APIError{Status: resp.StatusCode, Message: e.Message, Path: path}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("github %s %s: response: %w", method, path, err)
		}
	}
	return nil
}

// APIError is a GitHub API error response.
type APIError struct {
	Status  int
	Message string
	Path    string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("github %s: %d %s", e.Path, e.Status, e.Message)
}

// Permission returns a user's permission on a repository ("admin",
// "maintain", "write", "triage", "read" or "none"): the role name when
// GitHub gives one, else the base permission.
func (c *Client) Permission(ctx context.Context, repo, user string) (string, error) {
	var out struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	err := c.do(ctx, http.MethodGet, "/repos/"+repo+"/collaborators/"+url.PathEscape(user)+"/permission", nil, &out)
	if e, ok := err.(*APIError); ok && e.Status == http.StatusNotFound {
		return "none", nil // not a collaborator
	}
	if err != nil {
		return "", err
	}
	if out.RoleName != "" {
		return out.RoleName, nil
	}
	return out.Permission, nil
}

// React adds a reaction ("rocket", "eyes", "+1"...) to an issue comment.
func (c *Client) React(ctx context.Context, repo string, commentID int64, content string) error {
	return c.do(ctx, http.MethodPost, fmt.Sprintf("/repos/%s/issues/comments/%d/reactions", repo, commentID),
		map[string]string{"content": content}, nil)
}

// Reply posts a comment on an issue or pull request.
func (c *Client) Reply(ctx context.Context, repo string, number int, body string) error {
	return c.do(ctx, http.MethodPost, fmt.Sprintf("/repos/%s/issues/%d/comments", repo, number),
		map[string]string{"body": body}, nil)
}

// Issue returns an issue or pull request.
func (c *Client) Issue(ctx context.Context, repo string, number int) (*Issue, error) {
	var out Issue
	if err := c.do(ctx, http.MethodGet, fmt.Sprintf("/repos/%s/issues/%d", repo, number), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CommentsSince lists the repository's issue comments updated since t,
// oldest first (one page of up to 100).
func (c *Client) CommentsSince(ctx context.Context, repo string, since time.Time) ([]Comment, error) {
	q := url.Values{"sort": {"created"}, "direction": {"asc"}, "per_page": {"100"}}
	if !since.IsZero() {
		q.Set("since", since.UTC().Format(time.RFC3339))
	}
	var out []Comment
	err := c.do(ctx, http.MethodGet, "/repos/"+repo+"/issues/comments?"+q.Encode(), nil, &out)
	return out, err
}
