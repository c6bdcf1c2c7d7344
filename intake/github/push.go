package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// PushEvent is the part of GitHub's push webhook payload perfbot reads.
type PushEvent struct {
	Ref        string `json:"ref"`
	Before     string `json:"before"`
	After      string `json:"after"`
	Deleted    bool   `json:"deleted"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

// handlePush hands a push to OnPush, which queues the new head of a
// tracked branch.
func (in *Intake) handlePush(ctx context.Context, payload []byte) (int, string, string) {
	var ev PushEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return http.StatusBadRequest, "bad_payload", "push payload: " + err.Error()
	}
	if ev.Deleted {
		return http.StatusAccepted, "ignored", "deleted ref ignored"
	}
	tracked, err := in.OnPush(ctx, ev.Repository.FullName, ev.Ref, ev.Before, ev.After)
	if err != nil {
		in.log().Error("handle push", "ref", ev.Ref, "err", err)
		return http.StatusInternalServerError, "error", "internal error"
	}
	if !tracked {
		return http.StatusAccepted, "ignored", fmt.Sprintf("push to %q: not a tracked branch", ev.Ref)
	}
	return http.StatusOK, "queued", "tracked branch queued"
}
