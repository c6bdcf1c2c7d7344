package reviewboard

import (
	"context"
	"testing"
	"time"
)

// TestPostIgnoresPlantedReview: another account published a review with
// the answer's exact text, marker and extra_data key. It is not perfbot's
// (GET /api/session/ names perfbot's account), so it does not count as
// answered: perfbot publishes its own review.
func TestPostIgnoresPlantedReview(t *testing.T) {
	f := newFakeRB(t)
	m := msg("job-2", "**refused**: ask a maintainer")
	f.reviews = []fakeReview{{ID: 7, BodyTop: Body(m), TextType: "markdown", Public: true,
		ExtraData: map[string]string{extraDataKey: "job-2"}, User: "mallory"}}
	var waits []time.Duration
	c := newClient(t, f, f.token, &waits)
	for range 2 {
		if _, err := c.Post(context.Background(), "42", m); err != nil {
			t.Fatal(err)
		}
	}
	if len(f.reviews) != 2 || f.reviews[1].User != "" || f.reviews[1].BodyTop != Body(m) {
		t.Errorf("reviews %+v: want perfbot's own published once beside the planted one", f.reviews)
	}
}
