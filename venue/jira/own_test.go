package jira

import (
	"context"
	"testing"
	"time"

	"github.com/perfbot/perfbot/target"
)

// TestPostIgnoresPlantedComment: another account's comment carrying the
// request's anchor and even the perfbot property is not perfbot's: on
// Server (user names) and Cloud (account IDs) perfbot writes and then
// edits its own comment, and leaves the planted one as it was.
func TestPostIgnoresPlantedComment(t *testing.T) {
	for _, cloud := range []bool{false, true} {
		f := newFakeJIRA(t)
		f.cloud = cloud
		planted := fakeComment{ID: "500", Body: Marker("job-3") + "\nplanted\n", Author: "mallory",
			Properties: []map[string]any{{"key": "perfbot", "value": map[string]any{"answer": "job-3"}}}}
		f.comments = []fakeComment{planted}
		var waits []time.Duration
		c := newClient(t, f, Config{User: f.user, Token: f.token}, &waits)
		for _, body := range []string{"running\n", "result\n"} {
			if _, err := c.Post(context.Background(), target.MustParse("jira:STORE-1"), message("job-3", body)); err != nil {
				t.Fatal(err)
			}
		}
		if len(f.comments) != 2 || f.comments[0].Body != planted.Body || f.comments[1].Body != "{anchor:perfbot-job-3}\nresult\n" {
			t.Errorf("cloud %v: comments %+v: want the planted one untouched and perfbot's own edited", cloud, f.comments)
		}
	}
}
