package reviewboard

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/retry"
)

// Request is a review request with its latest diff, for intake.
type Request struct {
	ID          int
	Summary     string
	Status      string // "pending", "submitted", "discarded"
	Submitter   string
	URL         string // absolute_url
	LastUpdated time.Time
	// DiffRevision is the latest diff revision (0: no diff uploaded).
	DiffRevision int
}

// ListRequests returns the review requests on repository (a repository ID,
// as the API's repository filter takes) with the given status ("pending"
// when empty; "all" for every status), each with its latest diff revision
// (GET /api/review-requests/ then .../diffs/ of each). A non-zero since
// lists only the requests last updated at or after it (the API's
// last-updated-from filter), so that a poll reads only what changed.
func (c *Client) ListRequests(ctx context.Context, repository, status string, since time.Time) ([]Request, error) {
	if status == "" {
		status = "pending"
	}
	q := url.Values{"repository": {repository}, "status": {status}, "max-results": {"200"}}
	if !since.IsZero() {
		q.Set("last-updated-from", since.UTC().Format(time.RFC3339))
	}
	next := "api/review-requests/?" + q.Encode()
	var out []Request
	for next != "" {
		var page struct {
			ReviewRequests []struct {
				ID          int             `json:"id"`
				Summary     string          `json:"summary"`
				Status      string          `json:"status"`
				AbsoluteURL string          `json:"absolute_url"`
				LastUpdated string          `json:"last_updated"`
				Links       map[string]link `json:"links"`
			} `json:"review_requests"`
			Links map[string]link `json:"links"`
		}
		err := c.call(ctx, "reviewboard: list review requests", func(ctx context.Context) error {
			return c.do(ctx, "GET", next, nil, &page)
		})
		if err != nil {
			return nil, err
		}
		for _, rr := range page.ReviewRequests {
			r := Request{ID: rr.ID, Summary: rr.Summary, Status: rr.Status, URL: rr.AbsoluteURL, Submitter: rr.Links["submitter"].Title}
			r.LastUpdated, _ = time.Parse(time.RFC3339, rr.LastUpdated)
			rev, err := c.latestDiff(ctx, rr.ID)
			if err != nil {
				return nil, err
			}
			r.DiffRevision = rev
			out = append(out, r)
		}
		next = page.Links["next"].Href
	}
	return out, nil
}

// latestDiff returns the highest diff revision of review request id.
func (c *Client) latestDiff(ctx context.Context, id int) (int, error) {
	next := fmt.Sprintf("api/review-requests/%d/diffs/?max-results=200", id)
	best := 0
	for next != "" {
		var page struct {
			Diffs []struct {
				ID       int `json:"id"`
				Revision int `json:"revision"`
			} `json:"diffs"`
			Links map[string]link `json:"links"`
		}
		err := c.call(ctx, fmt.Sprintf("reviewboard: diffs of %d", id), func(ctx context.Context) error {
			return c.do(ctx, "GET", next, nil, &page)
		})
		if err != nil {
			return 0, err
		}
		for _, d := range page.Diffs {
			best = max(best, d.Revision)
		}
		next = page.Links["next"].Href
	}
	return best, nil
}

// NotPatchError is a diff download that is not a patch: a web page, a
// login form, an error page. It is permanent: perfbot must not apply it.
type NotPatchError struct {
	URL, Reason string
}

func (e *NotPatchError) Error() string {
	return fmt.Sprintf("%s is not a patch: %s", e.URL, e.Reason)
}

// DiffURL is the API's diff resource of one revision of a review request.
func (c *Client) DiffURL(id, revision int) string {
	u, _ := c.resolve(fmt.Sprintf("api/review-requests/%d/diffs/%d/", id, revision))
	return u.String()
}

// Diff downloads one diff revision of review request id as a patch,
// through the API's diff resource (GET
// /api/review-requests/ID/diffs/REVISION/ with Accept: text/x-patch), never
// the web page. A redirect (a login form), an answer that is not
// text/x-patch, or a body that is not a unified diff is a *NotPatchError.
func (c *Client) Diff(ctx context.Context, id, revision int) (string, error) {
	u := c.DiffURL(id, revision)
	hc := *c.hc
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	var out string
	err := c.call(ctx, fmt.Sprintf("reviewboard: diff %d of %d", revision, id), func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "token "+c.token)
		req.Header.Set("Accept", "text/x-patch")
		resp, err := hc.Do(req)
		if err != nil {
			if retry.NetworkTransient(err) {
				return retry.Transient(err)
			}
			return err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return retry.Transient(fmt.Errorf("GET %s: reading answer: %w", u, err))
		}
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			return &NotPatchError{URL: u, Reason: fmt.Sprintf("redirected (%s) to %s, a login page or another site; is the API token valid?", resp.Status, resp.Header.Get("Location"))}
		case resp.StatusCode == http.StatusTooManyRequests:
			return retry.After(fmt.Errorf("GET %s: %s", u, resp.Status), retry.RetryAfter(resp.Header, time.Now()))
		case retry.HTTPStatusTransient(resp.StatusCode):
			return retry.Transient(fmt.Errorf("GET %s: %s", u, resp.Status))
		case resp.StatusCode != http.StatusOK:
			return fmt.Errorf("GET %s: %s", u, resp.Status)
		}
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/x-patch" {
			return &NotPatchError{URL: u, Reason: fmt.Sprintf("Content-Type %q, want text/x-patch", resp.Header.Get("Content-Type"))}
		}
		if why := venue.NotPatch(string(data)); why != "" {
			return &NotPatchError{URL: u, Reason: why}
		}
		out = string(data)
		return nil
	})
	return out, err
}
