package reviewboard

import (
	"context"
	"fmt"
	"net/url"
	"time"
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
// (GET /api/review-requests/ then .../diffs/).
func (c *Client) ListRequests(ctx context.Context, repository, status string) ([]Request, error) {
	if status == "" {
		status = "pending"
	}
	q := url.Values{"repository": {repository}, "status": {status}, "max-results": {"200"}}
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
