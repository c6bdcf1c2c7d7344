package reviewboard

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Review is a published review of a review request, or a reply to one, as
// intake reads it for commands.
type Review struct {
	// ID is the review's (or the reply's) id; replies are reviews too, so
	// the ids of both are one sequence.
	ID int
	// ReplyTo is the review a reply answers; 0 for a review.
	ReplyTo int
	// User wrote it (links.user.title, the user name).
	User string
	// Own is true when the account perfbot signs in as wrote it.
	Own bool
	// Timestamp is when it was published.
	Timestamp time.Time
	// BodyTop and BodyBottom are its texts, each "plain" or "markdown" by
	// its *TextType.
	BodyTop, BodyTopTextType       string
	BodyBottom, BodyBottomTextType string
}

// rbText is the fields of a review or reply that Reviews reads.
type rbText struct {
	ID                 int    `json:"id"`
	BodyTop            string `json:"body_top"`
	BodyTopTextType    string `json:"body_top_text_type"`
	BodyBottom         string `json:"body_bottom"`
	BodyBottomTextType string `json:"body_bottom_text_type"`
	Public             bool   `json:"public"`
	Timestamp          string `json:"timestamp"`
	Links              struct {
		User link `json:"user"`
	} `json:"links"`
}

// Reviews returns the published reviews of review request id, each
// followed by its published replies (GET
// /api/review-requests/{id}/reviews/ and
// .../reviews/{review_id}/replies/), oldest first as the site lists
// them. Drafts are never listed. Own marks what perfbot's account wrote
// (GET /api/session/ names it).
func (c *Client) Reviews(ctx context.Context, id int) ([]Review, error) {
	var out []Review
	err := c.call(ctx, fmt.Sprintf("reviewboard: reviews of %d", id), func(ctx context.Context) error {
		me, err := c.self(ctx)
		if err != nil {
			return err
		}
		reviews, err := c.texts(ctx, fmt.Sprintf("api/review-requests/%d/reviews/?max-results=200", id), "reviews")
		if err != nil {
			return err
		}
		out = out[:0]
		for _, rv := range reviews {
			r, err := toReview(rv, 0, me)
			if err != nil {
				return fmt.Errorf("review %d of review request %d: %w", rv.ID, id, err)
			}
			out = append(out, r)
			replies, err := c.texts(ctx, fmt.Sprintf("api/review-requests/%d/reviews/%d/replies/?max-results=200", id, rv.ID), "replies")
			if err != nil {
				return err
			}
			for _, rp := range replies {
				r, err := toReview(rp, rv.ID, me)
				if err != nil {
					return fmt.Errorf("reply %d of review request %d: %w", rp.ID, id, err)
				}
				out = append(out, r)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// texts pages through a list of reviews or replies (the answer's key
// names the list) and keeps the public ones.
func (c *Client) texts(ctx context.Context, next, key string) ([]rbText, error) {
	var out []rbText
	for next != "" {
		var list struct {
			Reviews []rbText        `json:"reviews"`
			Replies []rbText        `json:"replies"`
			Links   map[string]link `json:"links"`
		}
		if err := c.do(ctx, "GET", next, nil, &list); err != nil {
			return nil, err
		}
		items := list.Reviews
		if key == "replies" {
			items = list.Replies
		}
		for _, it := range items {
			if it.Public {
				out = append(out, it)
			}
		}
		next = list.Links["next"].Href
	}
	return out, nil
}

// toReview reads one listed review or reply.
func toReview(t rbText, replyTo int, me string) (Review, error) {
	ts, err := parseTime(t.Timestamp)
	if err != nil {
		return Review{}, err
	}
	return Review{ID: t.ID, ReplyTo: replyTo, User: t.Links.User.Title, Own: strings.EqualFold(t.Links.User.Title, me),
		Timestamp: ts, BodyTop: t.BodyTop, BodyTopTextType: t.BodyTopTextType, BodyBottom: t.BodyBottom, BodyBottomTextType: t.BodyBottomTextType}, nil
}

// parseTime reads a timestamp as the Web API writes it: ISO 8601 with a
// zone ("2026-11-30T09:00:00Z", "...T09:00:00.123+01:00"), or without one
// on a site that keeps local times, which is then taken as UTC.
func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q: want an ISO 8601 time such as 2026-11-30T09:00:00Z", s)
}
