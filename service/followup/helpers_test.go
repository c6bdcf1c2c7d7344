package followup_test

import (
	"context"
	"testing"
	"time"

	"github.com/perfbot/perfbot/store"
)

// followUpPut waits until the follow-up of key is recorded as put: its
// edit or reply may be delivered (and seen by the test) before the tracker
// records it, and returns it as stored then.
func followUpPut(t *testing.T, st *store.Store, key string) (*store.FollowUp, error) {
	t.Helper()
	var fu *store.FollowUp
	var err error
	deadline := time.Now().Add(30 * time.Second)
	for {
		fu, err = st.GetFollowUp(context.Background(), key)
		if err == nil && fu.State == store.FollowUpPosted || time.Now().After(deadline) {
			return fu, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
