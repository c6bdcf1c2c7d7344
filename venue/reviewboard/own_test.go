package reviewboard

import (
	"context"
	"testing"
	"time"

	"github.com/perfbot/perfbot/target"
)

// TestPostIgnoresPlantedReview: another account published a review with
// the answer's exact text, marker and extra_data key. It is not perfbot's
// (GET /api/session/ names perfbot's account), so it does not count as
// answered: perfbot publishes its own review.
func TestPostIgnoresPlantedReview(t *testing.T) {
	f := newSite(t)
	m := msg("job-2", "**refused**: ask a maintainer")
	planted := published(7, "mallory", Body(m), "markdown")
	planted.ExtraData = map[string]string{extraDataKey: "job-2"}
	f.Add(42, planted)
	var waits []time.Duration
	c := newClient(t, f, f.Token, &waits)
	for range 2 {
		if _, err := c.Post(context.Background(), target.MustParse("reviewboard:42"), m); err != nil {
			t.Fatal(err)
		}
	}
	if reviews := f.Reviews(42, ""); len(reviews) != 2 || reviews[1].User != f.User || reviews[1].BodyTop != Body(m) {
		t.Errorf("reviews %+v: want perfbot's own published once beside the planted one", reviews)
	}
}
