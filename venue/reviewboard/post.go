package reviewboard

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
)

// Marker is the Markdown line that identifies the answer for key: a link
// reference definition, which Markdown renderers (Review Board's included)
// drop from the output, so readers do not see it.
func Marker(key string) string {
	k := strings.NewReplacer("(", "", ")", "", "\n", " ", "\r", "").Replace(key)
	return "[//]: # (perfbot:" + k + ")"
}

// extraDataKey holds the answer's key in the review's extra_data too.
const extraDataKey = "perfbot_key"

type rbReview struct {
	ID              int            `json:"id"`
	BodyTop         string         `json:"body_top"`
	BodyTopTextType string         `json:"body_top_text_type"`
	Public          bool           `json:"public"`
	AbsoluteURL     string         `json:"absolute_url"`
	ExtraData       map[string]any `json:"extra_data"`
	Links           struct {
		User link `json:"user"`
	} `json:"links"`
}

func (r *rbReview) matches(key, marker string) bool {
	if v, ok := r.ExtraData[extraDataKey].(string); ok && v == key {
		return true
	}
	return strings.HasPrefix(r.BodyTop, marker)
}

// Format is the rendering Review Board reads: Markdown as its
// Python-Markdown renders it.
const Format = answer.MarkdownRB

// Body is the review text perfbot posts for msg: its Review Board
// rendering, or its GitHub Markdown when it has none.
func Body(msg answer.Answer) string {
	body := msg.Full(Format)
	if body == "" {
		body = msg.Full(answer.MarkdownGFM)
	}
	return Marker(msg.Key) + "\n\n" + body
}

// Post publishes msg as a review on the review request to (its numeric
// ID) and returns a link to the review.
//
// On a retry or rerun it finds its latest published review by the marker,
// among the reviews its own account wrote (GET /api/session/ names it), and
// leaves it alone when the text is unchanged; otherwise it publishes a
// new review. It never edits a published review (Review Board refuses
// that by design); creating a review reuses perfbot's own unpublished
// draft on the request, if a failed attempt left one, and publishes it.
func (c *Client) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	id := to.Number
	if to.Venue != target.ReviewBoard || id <= 0 {
		return "", fmt.Errorf("reviewboard target %q: want a review request number, such as 1234", to.Where())
	}
	if msg.Key == "" {
		return "", fmt.Errorf("reviewboard %d: message has no key; without one a rerun cannot find its review", id)
	}
	body := Body(msg)
	marker := Marker(msg.Key)
	form := url.Values{
		"body_top":                   {body},
		"body_top_text_type":         {"markdown"},
		"public":                     {"true"},
		"extra_data." + extraDataKey: {msg.Key},
	}
	var out string
	err := c.call(ctx, fmt.Sprintf("reviewboard: review on %d", id), func(ctx context.Context) error {
		me, err := c.self(ctx)
		if err != nil {
			return err
		}
		old, err := c.findReview(ctx, id, me, msg.Key, marker)
		if err != nil {
			return err
		}
		if old == nil {
			var created struct {
				Review rbReview `json:"review"`
			}
			if err := c.do(ctx, "POST", fmt.Sprintf("api/review-requests/%d/reviews/", id), form, &created); err != nil {
				return err
			}
			out = c.reviewLink(id, created.Review)
			return nil
		}
		if old.BodyTop == body {
			out = c.reviewLink(id, *old)
			return nil
		}
		var created struct {
			Review rbReview `json:"review"`
		}
		if err := c.do(ctx, "POST", fmt.Sprintf("api/review-requests/%d/reviews/", id), form, &created); err != nil {
			return err
		}
		out = c.reviewLink(id, created.Review)
		return nil
	})
	return out, err
}

// findReview pages through the published reviews (GET
// /api/review-requests/{id}/reviews/) for the latest one by user me
// carrying key. A review by anyone else is never perfbot's, whatever it
// carries.
func (c *Client) findReview(ctx context.Context, id int, me, key, marker string) (*rbReview, error) {
	next := fmt.Sprintf("api/review-requests/%d/reviews/?max-results=200", id)
	var found *rbReview
	for next != "" {
		var page struct {
			Reviews      []rbReview      `json:"reviews"`
			TotalResults int             `json:"total_results"`
			Links        map[string]link `json:"links"`
		}
		if err := c.do(ctx, "GET", next, nil, &page); err != nil {
			return nil, err
		}
		for i := range page.Reviews {
			if rv := &page.Reviews[i]; strings.EqualFold(rv.Links.User.Title, me) && rv.matches(key, marker) {
				found = &page.Reviews[i]
			}
		}
		next = page.Links["next"].Href
	}
	return found, nil
}

// reviewLink is the review's absolute_url (Review Board 3.0 and later), or
// the review request's page with the review's anchor.
func (c *Client) reviewLink(id int, r rbReview) string {
	if r.AbsoluteURL != "" {
		return r.AbsoluteURL
	}
	u, _ := c.resolve(fmt.Sprintf("r/%d/", id))
	return fmt.Sprintf("%s#review%d", u, r.ID)
}
