package jira

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Issue is one search hit, with what intake needs to spot a new patch.
type Issue struct {
	Key         string
	Summary     string
	Updated     time.Time
	Attachments []Attachment
	// Comments are the issue's comments, oldest first.
	Comments []Comment
}

// Attachment is a file on an issue.
type Attachment struct {
	ID       string
	Filename string
	MimeType string
	Size     int64
	Created  time.Time
	Content  string // download URL
	// Author is who attached the file: the user name on Server and Data
	// Center, the account ID on Cloud (which hides user names).
	Author string
}

// timeLayout is how JIRA writes times: 2026-11-30T09:00:00.000+0000.
const timeLayout = "2006-01-02T15:04:05.000-0700"

type apiIssue struct {
	Key    string `json:"key"`
	Fields struct {
		Summary    string `json:"summary"`
		Updated    string `json:"updated"`
		Attachment []struct {
			ID       string `json:"id"`
			Filename string `json:"filename"`
			MimeType string `json:"mimeType"`
			Size     int64  `json:"size"`
			Created  string `json:"created"`
			Content  string `json:"content"`
			Author   struct {
				Name      string `json:"name"`
				AccountID string `json:"accountId"`
			} `json:"author"`
		} `json:"attachment"`
		Comment commentPage `json:"comment"`
	} `json:"fields"`
}

func (a apiIssue) issue() Issue {
	is := Issue{Key: a.Key, Summary: a.Fields.Summary}
	is.Updated, _ = time.Parse(timeLayout, a.Fields.Updated)
	for _, f := range a.Fields.Attachment {
		t, _ := time.Parse(timeLayout, f.Created)
		is.Attachments = append(is.Attachments, Attachment{ID: f.ID, Filename: f.Filename, MimeType: f.MimeType, Size: f.Size, Created: t, Content: f.Content,
			Author: nonEmpty(f.Author.Name, f.Author.AccountID)})
	}
	return is
}

const searchFields = "summary,updated,attachment,comment"

// Search returns up to max issues matching jql (max <= 0: all), with
// their attachments and comments. On Cloud it uses GET
// /rest/api/3/search/jql, paged by nextPageToken (Cloud removed
// /rest/api/2/search), whose comment bodies are Atlassian Document Format;
// on Server and Data Center GET /rest/api/2/search, paged by startAt, whose
// comment bodies are wiki markup. An issue whose comment field holds only
// the first of its comments has the rest read from the issue's comment
// list.
func (c *Client) Search(ctx context.Context, jql string, max int) ([]Issue, error) {
	d, err := c.deployment(ctx)
	if err != nil {
		return nil, err
	}
	var out []Issue
	want := func() int {
		if max <= 0 {
			return 100
		}
		return min(100, max-len(out))
	}
	if d == Cloud {
		token := ""
		for {
			q := url.Values{"jql": {jql}, "fields": {searchFields}, "maxResults": {strconv.Itoa(want())}}
			if token != "" {
				q.Set("nextPageToken", token)
			}
			var page struct {
				Issues        []apiIssue `json:"issues"`
				NextPageToken string     `json:"nextPageToken"`
				IsLast        bool       `json:"isLast"`
			}
			if err := c.get(ctx, "rest/api/3/search/jql?"+q.Encode(), &page); err != nil {
				return nil, err
			}
			for _, a := range page.Issues {
				is, err := c.issue(ctx, d, a)
				if err != nil {
					return nil, err
				}
				out = append(out, is)
			}
			if page.IsLast || page.NextPageToken == "" || len(page.Issues) == 0 || (max > 0 && len(out) >= max) {
				return clip(out, max), nil
			}
			token = page.NextPageToken
		}
	}
	for {
		q := url.Values{"jql": {jql}, "fields": {searchFields}, "startAt": {strconv.Itoa(len(out))}, "maxResults": {strconv.Itoa(want())}}
		var page struct {
			StartAt    int        `json:"startAt"`
			MaxResults int        `json:"maxResults"`
			Total      int        `json:"total"`
			Issues     []apiIssue `json:"issues"`
		}
		if err := c.get(ctx, "rest/api/2/search?"+q.Encode(), &page); err != nil {
			return nil, err
		}
		for _, a := range page.Issues {
			is, err := c.issue(ctx, d, a)
			if err != nil {
				return nil, err
			}
			out = append(out, is)
		}
		if len(page.Issues) == 0 || len(out) >= page.Total || (max > 0 && len(out) >= max) {
			return clip(out, max), nil
		}
	}
}

// issue reads a search hit, with all its comments.
func (c *Client) issue(ctx context.Context, d Deployment, a apiIssue) (Issue, error) {
	is := a.issue()
	var err error
	is.Comments, err = c.comments(ctx, d, a.Key, a.Fields.Comment)
	return is, err
}

func (c *Client) get(ctx context.Context, path string, v any) error {
	return c.call(ctx, fmt.Sprintf("jira: GET %s", trimQuery(path)), func(ctx context.Context) error {
		req, err := c.api.NewRequestWithContext(ctx, http.MethodGet, path, nil)
		if err != nil {
			return err
		}
		return c.do(req, v)
	})
}

func trimQuery(p string) string {
	for i := range len(p) {
		if p[i] == '?' {
			return p[:i]
		}
	}
	return p
}

func clip(is []Issue, max int) []Issue {
	if max > 0 && len(is) > max {
		return is[:max]
	}
	return is
}

// nonEmpty returns a, or b when a is empty.
func nonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
